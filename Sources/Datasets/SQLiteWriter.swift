import Catalog
import GRDB
import GRDBSQLite

/// Writes dataset tables into a new SQLite file with prepared statements, in bounded
/// transactions: memory stays flat whatever the row count.
final class SQLiteWriter {
  private let db: Database
  private var inserts: [Statement] = []
  private var pending = 0
  /// Rows per transaction: large enough that commits cost nothing, small enough to bound the
  /// journal.
  static let transactionRows = 50_000

  init(db: Database, tables: [TableSchema]) throws {
    self.db = db
    // The file is new and renamed into place only when complete, so durability while writing
    // buys nothing.
    // Foreign keys hold by construction and are checked once at the end: per-row checks
    // would double the load time.
    try db.execute(
      sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF")
    for table in tables {
      try db.makeStatement(sql: table.createSQL).execute()
      let marks = Array(repeating: "?", count: table.columns.count).joined(separator: ",")
      inserts.append(try db.makeStatement(sql: "INSERT INTO \(table.name) VALUES (\(marks))"))
    }
    try db.execute(sql: "BEGIN")
  }

  /// Inserts one row into table `table`. O(columns) plus SQLite's O(log n) insert.
  ///
  /// Binds through the C API on GRDB's prepared statement: building `StatementArguments` for
  /// every row cost more than SQLite's own insert.
  func write(table: Int, _ row: [FieldValue]) throws {
    let stmt = inserts[table].sqliteStatement
    sqlite3_reset(stmt)
    for (i, value) in row.enumerated() {
      let index = Int32(i + 1)
      switch value {
      case .null: sqlite3_bind_null(stmt, index)
      case .integer(let v): sqlite3_bind_int64(stmt, index, v)
      case .real(let v): sqlite3_bind_double(stmt, index, v)
      case .text(let v):
        var v = v
        v.withUTF8 { buf in
          _ = sqlite3_bind_text(stmt, index, buf.baseAddress, Int32(buf.count), Self.transient)
        }
      }
    }
    let rc = sqlite3_step(stmt)
    guard rc == SQLITE_DONE else {
      throw DatabaseError(
        resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }
    pending += 1
    if pending >= Self.transactionRows {
      try db.execute(sql: "COMMIT; BEGIN")
      pending = 0
    }
  }

  /// SQLITE_TRANSIENT: SQLite copies the bytes, which live only for the call.
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  /// Commits, creates the requested indexes, and leaves the file in WAL mode for the stores.
  func finish(indexes: [IndexSpec]) throws {
    try db.execute(sql: "COMMIT")
    let violations = try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_foreign_key_check") ?? 0
    guard violations == 0 else {
      throw DatabaseError(message: "\(violations) rows violate a foreign key")
    }
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    for index in indexes { try db.makeStatement(sql: index.createStatement).execute() }
    try db.execute(sql: "ANALYZE")
    try db.execute(sql: "PRAGMA journal_mode = WAL")
  }
}
