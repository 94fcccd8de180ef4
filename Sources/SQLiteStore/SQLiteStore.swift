import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

/// A `Store` over a SQLite file, on GRDB's low-level API: SQL compiled once per request
/// shape, cached prepared statements, values read by column index, no Codable.
///
/// A request becomes one statement, with a LEFT JOIN per to-one key path it uses; the batch
/// fault is one `WHERE t0.id IN (?,…)` statement reused for every batch. Not thread-safe:
/// one store per thread, as one managed object context.
public final class SQLiteStore: Store {
  public let model: Model
  public let path: String
  public private(set) var counters = StoreCounters()
  private let queue: DatabaseQueue
  private var sequence = 0
  public let observers = TransactionObservers()
  /// With a change log, the last logged sequence number delivered to this store's observers.
  public private(set) var deliveredSequence = 0
  private var changeLogEnabled = false
  private var bellGeneration = 0
  private let bellLock = NSLock()

  /// How a store opens its file.
  public enum OpenMode: Sendable {
    /// Read and write, in WAL mode (what an app does).
    case readWrite
    /// Reads only; a WAL file gets `-wal` and `-shm` files that a read-only connection cannot
    /// remove on close.
    case readOnly
    /// Reads a file nothing writes meanwhile (`immutable=1`): no lock, no `-wal` or `-shm`
    /// file beside it, nothing of the file changed. For loading a dataset once.
    case immutable
  }

  /// Opens `path` and checks that every entity's table and columns exist with the model's
  /// types. Throws `SQLiteStoreError` naming the file and the problem.
  public convenience init(path: String, model: Model, readOnly: Bool = false) throws {
    try self.init(path: path, model: model, mode: readOnly ? .readOnly : .readWrite)
  }

  /// Opens `path` in `mode` and checks its schema. A file that is not a SQLite database (an
  /// empty one included) is refused before SQLite opens it, so it is never turned into one.
  public init(path: String, model: Model, mode: OpenMode) throws {
    self.model = model
    self.path = path
    guard FileManager.default.fileExists(atPath: path) else { throw SQLiteStoreError.missingFile(path) }
    try Self.checkHeader(path)
    var config = Configuration()
    config.readonly = mode != .readWrite
    config.label = "fetchbench"
    // WAL recovery on open and the last connection's checkpoint on close hold the file's
    // locks for a moment; other connections (tests, the load test's writers) wait for them.
    config.busyMode = .timeout(10)
    let readOnly = mode != .readWrite
    do {
      // A URI filename (Debian's SQLite is built with SQLITE_USE_URI) carries `immutable`.
      let target = mode == .immutable ? Self.immutableURI(path) : path
      queue = try DatabaseQueue(path: target, configuration: config)
      try queue.inDatabase { db in
        if !readOnly { try db.execute(sql: "PRAGMA journal_mode = WAL") }
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
      }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
      throw SQLiteStoreError.locked(path, error.message ?? "\(error)")
    } catch let error as DatabaseError {
      throw SQLiteStoreError.notADatabase(path, error.message ?? "\(error)")
    }
    try queue.inDatabase { db in try Self.checkSchema(db, model: model, path: path) }
  }

  /// The first 16 bytes of every SQLite database file.
  static let magic = Array("SQLite format 3\u{0}".utf8)

  private static func checkHeader(_ path: String) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw SQLiteStoreError.notADatabase(path, "it cannot be read (\(String(cString: strerror(errno))))")
    }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: magic.count)) ?? Data()
    guard Array(head) == magic else {
      throw SQLiteStoreError.notADatabase(
        path, head.isEmpty ? "the file is empty" : "it does not start with SQLite's header; regenerate it with `fetchbench generate`")
    }
  }

  static func immutableURI(_ path: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "?#%")
    let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
    return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
  }

  private static func checkSchema(_ db: Database, model: Model, path: String) throws {
    for entity in model.entities {
      guard try db.tableExists(entity.table) else {
        throw SQLiteStoreError.schemaMismatch(path, "table \(entity.table) (entity \(entity.name)) is missing")
      }
      let columns = Dictionary(uniqueKeysWithValues: try db.columns(in: entity.table).map { ($0.name, $0.type.uppercased()) })
      for a in entity.attributes {
        guard let type = columns[a.column] else {
          throw SQLiteStoreError.schemaMismatch(path, "column \(entity.table).\(a.column) (attribute \(entity.name).\(a.name)) is missing")
        }
        let expected = a.type == .string ? "TEXT" : (a.type == .integer || a.type == .bool ? "INTEGER" : "REAL")
        guard type == expected else {
          throw SQLiteStoreError.schemaMismatch(path, "column \(entity.table).\(a.column) is \(type), the model expects \(expected)")
        }
      }
    }
  }

  public func resetCounters() { counters = StoreCounters() }

  /// The SQL this store issues for a request, for floor measurements that run the same
  /// statements through the raw C API.
  public struct Statements: Sendable {
    public var ids: String
    public var full: String
    public var arguments: [Value]
    public var rowsByID: @Sendable (Int) -> String
  }

  /// The statements for `request`. O(request size).
  public static func statements(for request: ResolvedRequest) -> Statements {
    let sql = SQLBuilder(request)
    return Statements(ids: sql.idQuery, full: sql.fullQuery, arguments: sql.arguments, rowsByID: { sql.rowsByIDQuery(count: $0) })
  }

  // MARK: queries

  public func fetchIDs(_ request: ResolvedRequest) throws -> [Int64] {
    let sql = SQLBuilder(request)
    return try read { db in
      let statement = try db.cachedStatement(sql: sql.idQuery)
      statement.setUncheckedArguments(StatementArguments(sql.arguments.map(Self.databaseValue)))
      counters.queries += 1
      // Step through the C API: converting each of 244k IDs through DatabaseValue cost 1.6×
      // the floor on a join-free query.
      let raw = statement.sqliteStatement
      var ids: [Int64] = []
      while true {
        let rc = sqlite3_step(raw)
        if rc == SQLITE_DONE { break }
        guard rc == SQLITE_ROW else {
          throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        ids.append(sqlite3_column_int64(raw, 0))
      }
      sqlite3_reset(raw)
      return ids
    }
  }

  /// The last request's compiled batch-fault SQL: a scroll-through faults thousands of batches
  /// of one request, and compiling its SQL each time cost more than SQLite's own work.
  private var batchCache: (request: FetchedResults.FetchRequest, layout: RowLayout, statements: [Int: Statement])?

  public func fetchObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
    guard !ids.isEmpty else { return [] }
    if batchCache?.request != request.request {
      batchCache = (request.request, request.rowLayout, [:])
    }
    let layout = batchCache!.layout
    return try read { db in
      let statement: Statement
      if let cached = batchCache!.statements[ids.count] {
        statement = cached
      } else {
        statement = try db.makeStatement(sql: SQLBuilder(request).rowsByIDQuery(count: ids.count))
        batchCache!.statements[ids.count] = statement
      }
      let raw = statement.sqliteStatement
      sqlite3_reset(raw)
      for (k, id) in ids.enumerated() { sqlite3_bind_int64(raw, Int32(k + 1), id) }
      counters.queries += 1
      let out = try Self.rawObjects(raw, layout: layout, db: db)
      counters.rowsMaterialized += out.count
      return out
    }
  }

  /// One column of the current row, as the model's type.
  @inline(__always)
  static func rawValue(_ stmt: OpaquePointer, _ c: Int32, _ t: AttributeType) -> Value {
    switch sqlite3_column_type(stmt, c) {
    case SQLITE_NULL: return .null
    case SQLITE_INTEGER:
      let v = sqlite3_column_int64(stmt, c)
      switch t {
      case .bool: return .bool(v != 0)
      case .double: return .double(Double(v))
      case .date: return .date(Double(v))
      default: return .integer(v)
      }
    case SQLITE_FLOAT:
      let v = sqlite3_column_double(stmt, c)
      return t == .date ? .date(v) : .double(v)
    case SQLITE_TEXT: return .string(String(cString: sqlite3_column_text(stmt, c)))
    default: return .null
    }
  }

  /// Reads rows (the id, then the layout's values) straight from a bound statement.
  private static func rawObjects(_ stmt: OpaquePointer, layout: RowLayout, db: Database) throws -> [FetchedObject] {
    var out: [FetchedObject] = []
    let types = layout.types
    while true {
      let rc = sqlite3_step(stmt)
      if rc == SQLITE_DONE { break }
      guard rc == SQLITE_ROW else {
        throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
      }
      var values: [Value] = []
      values.reserveCapacity(types.count)
      for (i, t) in types.enumerated() {
        let c = Int32(i + 1)
        switch sqlite3_column_type(stmt, c) {
        case SQLITE_NULL: values.append(.null)
        case SQLITE_INTEGER:
          let v = sqlite3_column_int64(stmt, c)
          switch t {
          case .bool: values.append(.bool(v != 0))
          case .double: values.append(.double(Double(v)))
          case .date: values.append(.date(Double(v)))
          default: values.append(.integer(v))
          }
        case SQLITE_FLOAT:
          let v = sqlite3_column_double(stmt, c)
          values.append(t == .date ? .date(v) : .double(v))
        case SQLITE_TEXT: values.append(.string(String(cString: sqlite3_column_text(stmt, c))))
        default: values.append(.null)
        }
      }
      out.append(FetchedObject(id: sqlite3_column_int64(stmt, 0), values: values, layout: layout))
    }
    sqlite3_reset(stmt)
    return out
  }

  public func fetchObjects(_ request: ResolvedRequest) throws -> [FetchedObject] {
    let sql = SQLBuilder(request)
    let layout = request.rowLayout
    return try read { db in
      let statement = try db.cachedStatement(sql: sql.fullQuery)
      statement.setUncheckedArguments(StatementArguments(sql.arguments.map(Self.databaseValue)))
      counters.queries += 1
      let out = try Self.objects(statement, layout: layout)
      counters.rowsMaterialized += out.count
      return out
    }
  }

  public func count(_ request: ResolvedRequest) throws -> Int {
    let sql = SQLBuilder(request)
    return try read { db in
      counters.queries += 1
      return try Int.fetchOne(db, sql: sql.countQuery, arguments: StatementArguments(sql.arguments.map(Self.databaseValue))) ?? 0
    }
  }

  public func sectionCounts(_ request: ResolvedRequest) throws -> [SectionCount] {
    guard let section = request.section else {
      throw FetchError.invalidRequest("section counts need a section key path")
    }
    let sql = SQLBuilder(request)
    return try read { db in
      let statement = try db.cachedStatement(sql: sql.sectionQuery)
      statement.setUncheckedArguments(StatementArguments(sql.arguments.map(Self.databaseValue)))
      counters.queries += 1
      var out: [SectionCount] = []
      let rows = try Row.fetchCursor(statement)
      while let row = try rows.next() {
        out.append(SectionCount(value: Self.value(row, 0, section.attribute.type), count: row[1]))
      }
      return out
    }
  }

  /// Row columns: the id, then the layout's values.
  private static func objects(_ statement: Statement, layout: RowLayout) throws -> [FetchedObject] {
    var out: [FetchedObject] = []
    let types = layout.types
    let rows = try Row.fetchCursor(statement)
    while let row = try rows.next() {
      var values: [Value] = []
      values.reserveCapacity(types.count)
      for (i, t) in types.enumerated() { values.append(value(row, i + 1, t)) }
      out.append(FetchedObject(id: row[0], values: values, layout: layout))
    }
    return out
  }

  @inline(__always)
  static func value(_ row: Row, _ i: Int, _ type: AttributeType) -> Value {
    switch (row[i] as DatabaseValue).storage {
    case .null: return .null
    case .int64(let v):
      switch type {
      case .bool: return .bool(v != 0)
      case .double: return .double(Double(v))
      case .date: return .date(Double(v))
      default: return .integer(v)
      }
    case .double(let v): return type == .date ? .date(v) : .double(v)
    case .string(let s): return .string(s)
    case .blob: return .null
    }
  }

  private func read<T>(_ body: (Database) throws -> T) throws -> T {
    do {
      return try queue.inDatabase(body)
    } catch let error as DatabaseError {
      throw SQLiteStoreError.query(path, error.message ?? "\(error)", error.sql ?? "")
    }
  }

  // MARK: writes

  @discardableResult
  public func commit(_ operations: [WriteOperation]) throws -> StoreTransaction {
    var recorder = ChangeRecorder()
    var logged = 0
    // IMMEDIATE: the write lock from the first statement, so the old values read below and
    // the change log's next number are those of the state this transaction replaces (a
    // deferred one could read, lose the race for the lock, and fail with SQLITE_BUSY_SNAPSHOT).
    try queue.inTransaction(.immediate) { db in
      for op in operations {
        switch op {
        case .insert(let name, let values):
          let entity = try model.entity(name)
          var columns = ["id"]
          var args: [DatabaseValue] = [values["id"].map(Self.databaseValue) ?? .null]
          for (key, v) in values where key != "id" {
            guard let a = entity.attribute(key) else {
              throw FetchError.unknownKeyPath(key, entity: name, known: entity.attributes.map(\.name))
            }
            columns.append(a.column)
            args.append(Self.databaseValue(v))
          }
          try db.execute(
            sql:
              "INSERT INTO \(entity.table) (\(columns.joined(separator: ","))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ",")))",
            arguments: StatementArguments(args))
          counters.queries += 1
          let id = db.lastInsertedRowID
          var links: [String: Value] = [:]
          for a in model.linkAttributes(of: entity) { links[a.name] = values[a.name] ?? .null }
          recorder.inserted(name, id, links: links)
        case .update(let name, let id, let values):
          let entity = try model.entity(name)
          var sets: [String] = []
          var args: [DatabaseValue] = []
          var keys: [String] = []
          for (key, v) in values.sorted(by: { $0.key < $1.key }) {
            guard let a = entity.attribute(key) else {
              throw FetchError.unknownKeyPath(key, entity: name, known: entity.attributes.map(\.name))
            }
            sets.append("\(a.column) = ?")
            args.append(Self.databaseValue(v))
            keys.append(key)
          }
          guard !sets.isEmpty else { continue }
          // Report only the attributes whose value really changes, as Core Data's
          // changedValues(): compare with the stored row first.
          // The same read gives the link attributes, which observers need.
          let linkAttributes = model.linkAttributes(of: entity)
          let columns = keys.map { entity.attribute($0)!.column } + linkAttributes.map(\.column)
          let old = try Row.fetchOne(db, sql: "SELECT \(columns.joined(separator: ",")) FROM \(entity.table) WHERE id = ?", arguments: [id])
          counters.queries += 1
          guard let old else { throw FetchError.store("\(name): no row with id \(id) to update") }
          var changed: [String: Value] = [:]
          for (i, k) in keys.enumerated() {
            let before = Self.value(old, i, entity.attribute(k)!.type)
            if before != values[k]! { changed[k] = before }
          }
          try db.execute(
            sql: "UPDATE \(entity.table) SET \(sets.joined(separator: ", ")) WHERE id = ?",
            arguments: StatementArguments(args + [id.databaseValue]))
          counters.queries += 1
          recorder.updated(name, id, old: changed)
          if !changed.isEmpty {
            var links: [String: Value] = [:]
            for (j, a) in linkAttributes.enumerated() { links[a.name] = values[a.name] ?? Self.value(old, keys.count + j, a.type) }
            recorder.linked(name, id, links)
          }
        case .delete(let name, let id):
          let entity = try model.entity(name)
          // The row as deleted: observers need its foreign keys to find who pointed at it.
          let old = try Row.fetchOne(
            db, sql: "SELECT \(entity.attributes.map(\.column).joined(separator: ",")) FROM \(entity.table) WHERE id = ?", arguments: [id])
          counters.queries += 1
          guard let old else { throw FetchError.store("\(name): no row with id \(id) to delete") }
          try db.execute(sql: "DELETE FROM \(entity.table) WHERE id = ?", arguments: [id])
          counters.queries += 1
          var values: [String: Value] = [:]
          for (i, a) in entity.attributes.enumerated() { values[a.name] = Self.value(old, i, a.type) }
          recorder.deleted(name, id, old: values)
          recorder.linked(name, id, values.filter { k, _ in model.linkAttributes(of: entity).contains { $0.name == k } })
        }
      }
      if changeLogEnabled {
        // Under the write lock, so numbers are gapless and in commit order.
        try db.execute(
          sql: "INSERT INTO \(Self.changeLog) (seq, committed_at, payload) SELECT COALESCE(MAX(seq), 0) + 1, ?, ? FROM \(Self.changeLog)",
          arguments: [Date().timeIntervalSince1970, TransactionCodec.encode(recorder.changes)])
        // seq is the INTEGER PRIMARY KEY, the rowid: no second query to learn it.
        logged = Int(db.lastInsertedRowID)
      }
      return .commit
    }
    guard changeLogEnabled else {
      sequence += 1
      let transaction = StoreTransaction(sequence: sequence, changes: recorder.changes)
      observers.notify(transaction)
      return transaction
    }
    ChangeBell.ring(path)
    if !observers.isEmpty { try pollChanges() }
    return StoreTransaction(sequence: logged, changes: recorder.changes)
  }

  // MARK: changes from every connection

  /// The change log's table, as on PostgreSQL.
  public static let changeLog = "fetchbench_changes"

  /// Turns on the change log for this connection: from now on every commit also appends its
  /// transaction (`TransactionCodec` text) to the table `fetchbench_changes` (created when
  /// missing), numbered under the write lock, so numbers are gapless and in commit order.
  /// Observers of every store with the log on, on any connection to the file, receive every
  /// logged transaction in order through `pollChanges()`. Observers see transactions
  /// committed after this call. Needs a writable file.
  ///
  /// SQLite has no notification channel: within this process a commit wakes the stores
  /// waiting in `waitForChanges(timeout:)` on the same file; commits of other processes are
  /// seen when the wait times out.
  public func enableChangeLog() throws {
    do {
      try queue.inDatabase { db in
        try db.execute(
          sql:
            "CREATE TABLE IF NOT EXISTS \(Self.changeLog) (seq INTEGER PRIMARY KEY, committed_at REAL NOT NULL, payload TEXT NOT NULL)")
        deliveredSequence = Int(try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM \(Self.changeLog)") ?? 0)
      }
    } catch let error as DatabaseError {
      throw SQLiteStoreError.query(path, error.message ?? "\(error)", error.sql ?? "")
    }
    let generation = ChangeBell.generation(path)
    bellLock.withLock { bellGeneration = generation }
    changeLogEnabled = true
  }

  /// Delivers the change log's transactions after `deliveredSequence` to the observers, in
  /// order, one query. Returns how many were delivered. O(transactions delivered).
  @discardableResult
  public func pollChanges() throws -> Int {
    guard changeLogEnabled else { return 0 }
    let rows = try read { db in
      counters.queries += 1
      return try Row.fetchAll(
        db, sql: "SELECT seq, payload FROM \(Self.changeLog) WHERE seq > ? ORDER BY seq", arguments: [deliveredSequence]
      ).map { (Int($0[0] as Int64), $0[1] as String) }
    }
    for (seq, payload) in rows {
      guard seq == deliveredSequence + 1 else {
        throw SQLiteStoreError.query(path, "change log sequence jumps from \(deliveredSequence) to \(seq)", "")
      }
      let transaction = StoreTransaction(sequence: seq, changes: try TransactionCodec.decode(payload))
      deliveredSequence = seq
      observers.notify(transaction)
    }
    return rows.count
  }

  /// Blocks the calling thread until a commit of this process rings the file's bell or
  /// `timeout` seconds pass, then polls the log. Returns the number of transactions
  /// delivered. Call it from a thread of your own, never from Swift concurrency's pool.
  @discardableResult
  public func waitForChanges(timeout: Double) throws -> Int {
    awaitNotification(timeout: timeout)
    return try pollChanges()
  }

  /// Blocks until a commit of this process rings the file's bell or `timeout` seconds pass,
  /// without reading the log. Only the waiting thread may call it (it keeps the bell
  /// generation seen), but other threads may use the store meanwhile.
  public func awaitNotification(timeout: Double) {
    let seen = bellLock.withLock { bellGeneration }
    let now = ChangeBell.wait(path, after: seen, timeout: timeout)
    bellLock.withLock { bellGeneration = now }
  }

  // MARK: change tracking

  public func fetchKeyedIDs(_ request: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs {
    let sql = SQLBuilder(request)
    let types = request.sorts.dropLast().map(\.keyPath.attribute.type)
    var out = KeyedIDs(ids: [], keys: Array(repeating: [], count: types.count))
    func run(_ text: String, _ ids: [Int64]) throws {
      try read { db in
        let statement = try db.cachedStatement(sql: text)
        statement.setUncheckedArguments(StatementArguments(sql.arguments.map(Self.databaseValue)))
        counters.queries += 1
        // IDs bound and rows read through the C API: at k = 100 GRDB's per-value conversions
        // were half of a change set's cost.
        let raw = statement.sqliteStatement
        let first = Int32(sql.arguments.count)
        for (j, id) in ids.enumerated() { sqlite3_bind_int64(raw, first + Int32(j) + 1, id) }
        while true {
          let rc = sqlite3_step(raw)
          if rc == SQLITE_DONE { break }
          guard rc == SQLITE_ROW else {
            throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
          }
          out.ids.append(sqlite3_column_int64(raw, 0))
          for (d, t) in types.enumerated() { out.keys[d].append(Self.rawValue(raw, Int32(d + 1), t)) }
        }
        sqlite3_reset(raw)
      }
    }
    guard let ids else {
      try run(sql.keyQuery, [])
      return out
    }
    for chunk in Self.idChunks(ids) { try run(sql.keysByIDQuery(count: chunk.count), chunk) }
    return out
  }

  /// IDs for `IN (?,…)` lists: at most 8,192 per statement (SQLite allows 32,766 variables),
  /// each list padded to a power of two by repeating its last ID, so that a few cached
  /// statements serve every size.
  static func idChunks(_ ids: [Int64]) -> [[Int64]] {
    stride(from: 0, to: ids.count, by: 8_192).map { start in
      var chunk = Array(ids[start..<min(ids.count, start + 8_192)])
      var size = 8
      while size < chunk.count { size *= 2 }
      chunk += Array(repeating: chunk.last!, count: size - chunk.count)
      return chunk
    }
  }

  public func relatedIDs(_ request: ResolvedRequest, through relationship: Relationship, destinationIDs: [Int64]) throws -> [Int64] {
    let dest = try model.entity(relationship.destination)
    var out: [Int64] = []
    for chunk in Self.idChunks(destinationIDs) {
      let text =
        "SELECT DISTINCT t0.\(request.entity.primaryKey) FROM \(request.entity.table) t0 JOIN \(dest.table) t1 ON t1.\(relationship.destinationColumn) = t0.\(relationship.sourceColumn) WHERE t1.\(dest.primaryKey) IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
      out += try read { db in
        counters.queries += 1
        return try Int64.fetchAll(db.cachedStatement(sql: text), arguments: StatementArguments(chunk))
      }
    }
    return out
  }

  static func databaseValue(_ v: Value) -> DatabaseValue {
    switch v {
    case .null: .null
    case .integer(let i): i.databaseValue
    case .double(let d), .date(let d): d.databaseValue
    case .string(let s): s.databaseValue
    case .bool(let b): (b ? 1 : 0 as Int64).databaseValue
    }
  }
}

/// Wakes the stores of this process that wait for commits to a file: a generation counter per
/// path and a broadcast, so every waiter wakes (a counting signal would wake one).
enum ChangeBell {
  private static let condition = NSCondition()
  nonisolated(unsafe) private static var generations: [String: Int] = [:]

  static func ring(_ path: String) {
    condition.lock()
    generations[path, default: 0] += 1
    condition.broadcast()
    condition.unlock()
  }

  static func generation(_ path: String) -> Int {
    condition.lock()
    defer { condition.unlock() }
    return generations[path, default: 0]
  }

  /// Waits until the path's generation differs from `seen` or `timeout` passes; returns the
  /// generation now.
  static func wait(_ path: String, after seen: Int, timeout: Double) -> Int {
    let deadline = Date(timeIntervalSinceNow: timeout)
    condition.lock()
    defer { condition.unlock() }
    while generations[path, default: 0] == seen && condition.wait(until: deadline) {}
    return generations[path, default: 0]
  }
}

/// Errors of the SQLite store, each naming the file.
public enum SQLiteStoreError: Error, CustomStringConvertible, Equatable {
  case missingFile(String)
  case notADatabase(String, String)
  case schemaMismatch(String, String)
  case query(String, String, String)
  case locked(String, String)

  public var description: String {
    switch self {
    case .missingFile(let p): "\(p): no such dataset file (run `fetchbench generate` first)"
    case .notADatabase(let p, let m): "\(p) is not a readable SQLite database: \(m)"
    case .schemaMismatch(let p, let m): "\(p) does not have the expected schema: \(m)"
    case .locked(let p, let m): "\(p) stayed locked by another connection for 10 s: \(m)"
    case .query(let p, let m, let sql): "\(p): query failed: \(m)\(sql.isEmpty ? "" : " (\(sql))")"
    }
  }
}
