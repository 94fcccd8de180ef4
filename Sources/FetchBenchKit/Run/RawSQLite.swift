import DatasetStores
import FetchedResults
import GRDBSQLite
import SQLiteStore
import Vocabulary

/// The SQLite C API with nothing on top, for the floors: the store's own statements for a
/// request (the ID query, the full query, a scroll-through in batches), and the scan limit.
final class RawSQLite {
  /// A value read from a column, as plainly as the C API gives it.
  enum Raw {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)
  }

  let db: OpaquePointer
  let sql: SQLiteStore.Statements
  let batchSize: Int
  private let idStmt: OpaquePointer
  private let fullStmt: OpaquePointer
  private let batchStmt: OpaquePointer

  /// Opens `location` read-only (checked as the store checks it) with `request`'s statements
  /// prepared. Requests with predicates are refused: the floors run the runs' requests.
  init(_ location: DatasetLocation, request: ResolvedRequest, batchSize: Int) throws {
    sql = SQLiteStore.statements(for: request)
    guard sql.arguments.isEmpty else {
      throw MeasurementFault.floorWithPredicate
    }
    _ = try location.open(.sqlite)
    var db: OpaquePointer?
    guard sqlite3_open_v2(try location.readerURI(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK,
      let db
    else {
      throw MeasurementFault.cannotOpen(path: location.sqlitePath)
    }
    sqlite3_busy_timeout(db, 10_000)  // as the store: wait out another connection's checkpoint
    if let collation = request.model.collation { SQLiteStore.addCollations(raw: db, collation) }
    guard sqlite3_exec(db, SQLiteStore.connectionSettings, nil, nil, nil) == SQLITE_OK else {
      defer { sqlite3_close(db) }
      throw MeasurementFault.connectionSettings(
        settings: SQLiteStore.connectionSettings, message: String(cString: sqlite3_errmsg(db)))
    }
    self.db = db
    self.batchSize = max(1, batchSize)
    func prepare(_ text: String) throws -> OpaquePointer {
      var stmt: OpaquePointer?
      guard sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil) == SQLITE_OK, let stmt
      else {
        throw MeasurementFault.cannotPrepare(sql: text, message: String(cString: sqlite3_errmsg(db)))
      }
      return stmt
    }
    idStmt = try prepare(sql.ids)
    fullStmt = try prepare(sql.full)
    batchStmt = try prepare(sql.rowsByID(self.batchSize))
  }

  deinit {
    for s in [idStmt, fullStmt, batchStmt] { sqlite3_finalize(s) }
    sqlite3_close(db)
  }

  func prepare(_ text: String) throws -> OpaquePointer {
    var stmt: OpaquePointer?
    guard sqlite3_prepare_v2(db, text, -1, &stmt, nil) == SQLITE_OK, let stmt else {
      throw MeasurementFault.cannotPrepare(sql: text, message: String(cString: sqlite3_errmsg(db)))
    }
    return stmt
  }

  /// SQLite's plan for `sql` (`EXPLAIN QUERY PLAN`), its steps joined by "; ", nested ones
  /// indented by their depth as the sqlite3 shell shows them.
  func plan(_ sql: String) throws -> String {
    let stmt = try prepare("EXPLAIN QUERY PLAN " + sql)
    defer { sqlite3_finalize(stmt) }
    var depth: [Int32: Int] = [:]
    var steps: [String] = []
    while sqlite3_step(stmt) == SQLITE_ROW {
      let (id, parent) = (sqlite3_column_int(stmt, 0), sqlite3_column_int(stmt, 1))
      let d = (depth[parent] ?? -1) + 1
      depth[id] = d
      steps.append(String(repeating: "  ", count: d) + String(cString: sqlite3_column_text(stmt, 3)))
    }
    return steps.joined(separator: "; ")
  }

  /// The store's ID query.
  func ids() -> [Int64] {
    var out: [Int64] = []
    sqlite3_reset(idStmt)
    while sqlite3_step(idStmt) == SQLITE_ROW { out.append(sqlite3_column_int64(idStmt, 0)) }
    return out
  }

  /// The store's full query, every row's values read.
  func fullRows() -> [[Raw]] {
    var out: [[Raw]] = []
    sqlite3_reset(fullStmt)
    Self.rows(fullStmt, into: &out)
    return out
  }

  /// A scroll-through: every batch by one reused statement (the last, shorter batch by its
  /// own), the rows of a batch read and then dropped. Returns the rows read.
  func scroll(_ all: [Int64]) throws -> Int {
    var read = 0
    var batch: [[Raw]] = []
    var start = 0
    while start < all.count {
      let end = min(all.count, start + batchSize)
      let stmt = end - start == batchSize ? batchStmt : try prepare(sql.rowsByID(end - start))
      defer { if stmt != batchStmt { sqlite3_finalize(stmt) } }
      sqlite3_reset(stmt)
      for (k, id) in all[start..<end].enumerated() { sqlite3_bind_int64(stmt, Int32(k + 1), id) }
      batch.removeAll(keepingCapacity: true)
      Self.rows(stmt, into: &batch)
      read += batch.count
      start = end
    }
    return read
  }

  static func rows(_ stmt: OpaquePointer, into out: inout [[Raw]]) {
    let n = sqlite3_column_count(stmt)
    while sqlite3_step(stmt) == SQLITE_ROW {
      var row: [Raw] = []
      row.reserveCapacity(Int(n))
      for i in 0..<n {
        switch sqlite3_column_type(stmt, i) {
        case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(stmt, i)))
        case SQLITE_FLOAT: row.append(.double(sqlite3_column_double(stmt, i)))
        case SQLITE_TEXT: row.append(.text(SQLiteText.string(stmt, i)))
        default: row.append(.null)
        }
      }
      out.append(row)
    }
  }
}
