import FetchedResults
import Foundation
import GRDBSQLite
import SQLQueries

/// Commits transactions through SQLite's C API alone, on one connection with the store's
/// settings (WAL, the default `synchronous` of FULL, the same memory map): `WriteSQL`'s
/// statements, prepared once each, in `BEGIN IMMEDIATE … COMMIT`. No reads of old values, no
/// observers, no change recording: what the file itself can take, the limit the store's
/// write path is measured against. Not thread-safe: one writer per thread.
public final class SQLiteRawWriter {
  public let path: String
  let model: Model
  /// A Core Data store's save statements (nil: `WriteSQL`'s), in their form for a writer that
  /// reads no version first.
  let save: CoreDataSave?
  /// Whether each commit writes Core Data's persistent history (its tables must exist:
  /// `SQLiteStore.trackHistory()`).
  let historyTracking: Bool
  private var connection: OpaquePointer?
  private var statements: [String: OpaquePointer] = [:]

  /// Opens `path` read-write. Throws `SQLiteStoreError` naming the file and SQLite's message.
  public init(path: String, model: Model, save: CoreDataSave? = nil, historyTracking: Bool = false) throws {
    self.path = path
    self.model = model
    self.save = save
    self.historyTracking = historyTracking && save != nil
    guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
      let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(connection)
      throw SQLiteStoreError.notADatabase(path, message)
    }
    sqlite3_busy_timeout(connection, 10_000)
    try execute("PRAGMA journal_mode = WAL")
    try execute("PRAGMA mmap_size = 0")
  }

  deinit {
    for s in statements.values { sqlite3_finalize(s) }
    sqlite3_close_v2(connection)
  }

  /// Applies `operations` and appends `payload` to the change log in one transaction; on any
  /// error rolls back and throws. O(operations) statements, each a primary-key lookup.
  public func commit(_ operations: [WriteOperation], payload: String) throws {
    try execute("BEGIN IMMEDIATE")
    do {
      for op in operations {
        let s = try CoreDataSave.statement(op, model: model, save: save)
        try run(s.sql, s.arguments)
      }
      for s in save?.primaryKeyCounters(operations) ?? [] { try run(s.sql, s.arguments) }
      if let save, historyTracking {
        let history = PersistentHistory.statements(
          PersistentHistory.changes(operations), entityNumbers: save.entityNumbers,
          timestamp: Date().timeIntervalSince1970)
        for s in history { try run(s.sql, s.arguments) }
      }
      try run(WriteSQL.appendToLog(.sqlite), [.date(Date().timeIntervalSince1970), .string(payload)])
      try execute("COMMIT")
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  private func execute(_ sql: String) throws {
    guard sqlite3_exec(connection, sql, nil, nil, nil) == SQLITE_OK else { throw failure(sql) }
  }

  /// Binds, steps to the end and resets a cached statement.
  private func run(_ sql: String, _ arguments: [Value]) throws {
    let statement = try prepared(sql)
    defer {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }
    for (i, v) in arguments.enumerated() { SQLiteStore.bind(statement, Int32(i + 1), v) }
    var code = sqlite3_step(statement)
    while code == SQLITE_ROW { code = sqlite3_step(statement) }
    guard code == SQLITE_DONE else { throw failure(sql) }
  }

  private func prepared(_ sql: String) throws -> OpaquePointer {
    if let s = statements[sql] { return s }
    var s: OpaquePointer?
    guard sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil) == SQLITE_OK, let s else {
      throw failure(sql)
    }
    statements[sql] = s
    return s
  }

  private func failure(_ sql: String) -> SQLiteStoreError {
    .query(path, String(cString: sqlite3_errmsg(connection)), sql)
  }
}
