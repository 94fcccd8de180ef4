import Datasets
import FetchedResults
import Foundation
import GRDB
import PostgresStore

/// Where the PostgreSQL store lives: `--postgres-url`, else `FETCHBENCH_POSTGRES_URL`, else the
/// private server of `scripts/postgres`.
public enum PostgresLocation {
  public static let defaultURL = "postgres://postgres@127.0.0.1:55432/fetchbench"

  public static func url(_ option: String?) throws -> PostgresURL {
    try PostgresURL(option ?? ProcessInfo.processInfo.environment["FETCHBENCH_POSTGRES_URL"] ?? defaultURL)
  }
}

/// Puts a generated dataset into PostgreSQL with the same tables and columns as the SQLite
/// file (dates as double precision seconds), by COPY, then the same optional indexes and
/// ANALYZE. One dataset size is loaded at a time; `fetchbench_meta` records which.
public enum PostgresLoader {
  /// Loads `location`'s SQLite file (generating it when missing) into the server at `url`,
  /// unless `fetchbench_meta` says the same dataset, size, seed and indexes are there already.
  /// Returns the seconds spent, 0 when nothing was loaded.
  @discardableResult
  public static func load(_ location: DatasetLocation, into url: PostgresURL, force: Bool = false) throws -> Double {
    let admin = try PostgresAdmin(url: url)
    let tag = "\(location.kind.rawValue)-\(location.rows)-s\(location.seed)-\(location.indexes.sorted().joined(separator: "+"))"
    try admin.execute("CREATE TABLE IF NOT EXISTS fetchbench_meta (dataset TEXT PRIMARY KEY, tag TEXT NOT NULL)")
    if !force, try admin.scalar("SELECT tag FROM fetchbench_meta WHERE dataset = '\(location.kind.rawValue)'") == tag {
      return 0
    }
    guard FileManager.default.fileExists(atPath: location.sqlitePath) else {
      throw HarnessError.missingDataset(
        location.sqlitePath, hint: "fetchbench generate --dataset \(location.kind.rawValue) --rows \(location.rows)")
    }
    let t0 = Clock.wallNanos
    var config = Configuration()
    config.readonly = true
    config.busyMode = .timeout(10)
    let source = try DatabaseQueue(path: location.sqlitePath, configuration: config)
    try admin.execute("DELETE FROM fetchbench_meta WHERE dataset = '\(location.kind.rawValue)'")
    for table in location.kind.tables.reversed() { try admin.execute("DROP TABLE IF EXISTS \(table.name) CASCADE") }
    for table in location.kind.tables {
      try admin.execute(table.postgresCreateSQL)
      let columns = table.columns.map(\.name)
      let types = table.columns.map(\.type)
      try source.read { db in
        let statement = try db.makeStatement(sql: "SELECT \(columns.joined(separator: ",")) FROM \(table.name) ORDER BY id")
        let cursor = try Row.fetchCursor(statement)
        try admin.copy(table: table.name, columns: columns) { emit in
          while let row = try cursor.next() {
            var fields: [String] = []
            fields.reserveCapacity(types.count)
            for (i, t) in types.enumerated() {
              let v: DatabaseValue = row[i]
              switch (v.storage, t) {
              case (.null, _): fields.append("\\N")
              case (.int64(let x), _): fields.append(String(x))
              case (.double(let x), _): fields.append("\(x)")
              case (.string(let s), _): fields.append(PostgresAdmin.field(s))
              case (.blob, _): fields.append("\\N")
              }
            }
            emit(fields.joined(separator: "\t"))
          }
        }
      }
    }
    for index in location.indexes {
      guard let table = location.kind.tables.first(where: { $0.column(index) != nil }) else {
        throw HarnessError.invalidArgument("no \(location.kind.rawValue) table has a column \(index)")
      }
      try admin.execute("CREATE INDEX \(table.name)_\(index) ON \(table.name) (\(index))")
    }
    for table in location.kind.tables { try admin.execute("ANALYZE \(table.name)") }
    try admin.execute("INSERT INTO fetchbench_meta (dataset, tag) VALUES ('\(location.kind.rawValue)', '\(tag)')")
    return Double(Clock.wallNanos - t0) / 1e9
  }
}

extension TableSchema {
  /// The `CREATE TABLE` statement for PostgreSQL: the same columns, BIGINT and DOUBLE PRECISION.
  public var postgresCreateSQL: String {
    let defs = columns.map { c -> String in
      if c.name == "id" { return "id BIGINT PRIMARY KEY" }
      let type = c.type == .text ? "TEXT" : (c.type == .integer ? "BIGINT" : "DOUBLE PRECISION")
      var d = "\(c.name) \(type)"
      if !c.nullable { d += " NOT NULL" }
      if c.unique { d += " UNIQUE" }
      if let r = c.references { d += " REFERENCES \(r)" }
      return d
    }
    return "CREATE TABLE \(name) (\(defs.joined(separator: ", ")))"
  }
}
