import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

// Writes: one transaction per commit, recorded for observers and the change log.
extension SQLiteStore {

  @discardableResult
  public func commit(_ operations: [WriteOperation]) throws -> StoreTransaction {
    var recorder = ChangeRecorder()
    var logged = 0
    let save = try coreDataSave()
    if let save { try allocateKeys(save, operations) }
    // IMMEDIATE: the write lock from the first statement, so the old values read below and
    // the change log's next number are those of the state this transaction replaces (a
    // deferred one could read, lose the race for the lock, and fail with SQLITE_BUSY_SNAPSHOT).
    // Core Data's save begins EXCLUSIVE, which in WAL mode takes the same lock.
    deletedInSave = []
    defer { deletedInSave = [] }
    try queue.inTransaction(save == nil ? .immediate : .exclusive) { db in
      for op in operations {
        switch op {
        case .insert(let name, let values): try insert(name, values, db, &recorder, save)
        case .update(let name, let id, let values): try update(name, id, values, db, &recorder, save)
        case .delete(let name, let id): try delete(name, id, db, &recorder, save)
        }
      }
      if let save, historyTracking {
        let history = PersistentHistory.statements(
          recorder.changes, entityNumbers: save.entityNumbers, timestamp: Date().timeIntervalSince1970)
        for s in history { try step(s, db) }
      }
      if changeLogEnabled { logged = try log(recorder.changes, db) }
      return .commit
    }
    counters.commits += 1
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

  /// Turns on Core Data's persistent history for this store's saves on a Core Data file,
  /// creating its tables where missing (in one transaction). Throws on a file that is not a
  /// Core Data store. O(1).
  public func trackHistory() throws {
    guard try coreDataSave() != nil else {
      throw FetchError.store("\(path) is not a Core Data store: persistent history is Core Data's")
    }
    try queue.inTransaction(.immediate) { db in
      for sql in PersistentHistory.createTables { try db.makeStatement(sql: sql).execute() }
      return .commit
    }
    historyTracking = true
  }

  /// Core Data's key allocation, before the rows' transaction and in one of its own (a second
  /// commit, and a second fsync under `synchronous=FULL`): per entity inserted into, the
  /// counter read, then raised where it is still that value. O(entities inserted into).
  private func allocateKeys(_ save: CoreDataSave, _ operations: [WriteOperation]) throws {
    let largest = save.largestInsertedKeys(operations)
    guard !largest.isEmpty else { return }
    try queue.inTransaction(.exclusive) { db in
      for (entity, key) in largest {
        var read: Int64 = 0
        try step(CoreDataSave.maxQuery(entity), db) { read = sqlite3_column_int64($0, 0) }
        try step(CoreDataSave.raise(entity, from: read, to: key), db)
        guard db.changesCount == 1 else {
          throw FetchError.store(
            "Z_PRIMARYKEY's counter of entity \(entity) changed while this save allocated keys (a merge conflict)")
        }
      }
      return .commit
    }
    counters.commits += 1
  }

  /// Throws Core Data's merge conflict when an optimistically locked write (`… AND Z_OPT = ?`)
  /// changed no row: the row is no longer at the version read.
  private func checkVersion(_ version: Int64?, _ name: String, _ id: Int64, _ db: Database) throws {
    guard version != nil, db.changesCount == 0 else { return }
    throw FetchError.store("\(name) \(id) is no longer at version Z_OPT \(version!) (a merge conflict)")
  }

  /// One INSERT; the new row's links recorded for observers.
  private func insert(
    _ name: String, _ values: [String: Value], _ db: Database, _ recorder: inout ChangeRecorder, _ save: CoreDataSave?
  ) throws {
    let entity = try model.entity(name)
    try step(CoreDataSave.statement(.insert(entity: name, values: values), model: model, save: save), db)
    let id = db.lastInsertedRowID
    var links: [String: Value] = [:]
    for a in model.linkAttributes(of: entity) { links[a.name] = values[a.name] ?? .null }
    recorder.inserted(name, id, links: links)
  }

  /// Reads the old values of the attributes written (and of the links), then one UPDATE.
  /// Reports only the attributes whose value really changes, as Core Data's changedValues().
  private func update(
    _ name: String, _ id: Int64, _ values: [String: Value], _ db: Database, _ recorder: inout ChangeRecorder,
    _ save: CoreDataSave?
  ) throws {
    let entity = try model.entity(name)
    let keys = values.keys.sorted()
    guard !keys.isEmpty, !deletedInSave.contains(DeletedRow(table: entity.table, id: id)) else { return }
    // The same read gives the link attributes, which observers need.
    let linkAttributes = model.linkAttributes(of: entity)
    var read: [Attribute] = []
    for key in keys {
      guard let a = entity.attribute(key) else {
        throw FetchError.unknownKeyPath(key, entity: name, known: entity.attributes.map(\.name))
      }
      read.append(a)
    }
    read += linkAttributes
    let versioned = save?.keeps(name) == true
    guard let (old, version) = try row(entity, id, read, db, versioned: versioned) else {
      throw FetchError.store("\(name): no row with id \(id) to update")
    }
    var changed: [String: Value] = [:]
    for (i, k) in keys.enumerated() where old[i] != values[k]! { changed[k] = old[i] }
    try step(
      CoreDataSave.statement(.update(entity: name, id: id, values: values), model: model, save: save, version: version),
      db)
    try checkVersion(version, name, id, db)
    recorder.updated(name, id, old: changed)
    if !changed.isEmpty {
      var links: [String: Value] = [:]
      for (j, a) in linkAttributes.enumerated() { links[a.name] = values[a.name] ?? old[keys.count + j] }
      recorder.linked(name, id, links)
    }
  }

  /// Reads the row as deleted (observers need its foreign keys to find who pointed at it),
  /// then one DELETE; on a Core Data file its delete rules first, each dependent changed
  /// through the same paths (recorded for observers, versions checked). A row this save
  /// already deletes is left alone.
  private func delete(
    _ name: String, _ id: Int64, _ db: Database, _ recorder: inout ChangeRecorder, _ save: CoreDataSave?
  ) throws {
    let entity = try model.entity(name)
    // Rules that cascade both ways lead back here: the object is deleted once.
    guard deletedInSave.insert(DeletedRow(table: entity.table, id: id)).inserted else { return }
    if save != nil { try applyDeleteRules(name, id, db, &recorder, save) }
    guard let (old, version) = try row(entity, id, entity.attributes, db, versioned: save?.keeps(name) == true) else {
      throw FetchError.store("\(name): no row with id \(id) to delete")
    }
    try step(CoreDataSave.statement(.delete(entity: name, id: id), model: model, save: save, version: version), db)
    try checkVersion(version, name, id, db)
    var values: [String: Value] = [:]
    for (i, a) in entity.attributes.enumerated() { values[a.name] = old[i] }
    recorder.deleted(name, id, old: values)
    recorder.linked(name, id, values.filter { k, _ in model.linkAttributes(of: entity).contains { $0.name == k } })
  }

  /// The delete rules of `name`'s object `id`: each dependent object nullified, deleted in
  /// turn, or the save refused (deny). One query per rule, plus the dependents' writes.
  private func applyDeleteRules(
    _ name: String, _ id: Int64, _ db: Database, _ recorder: inout ChangeRecorder, _ save: CoreDataSave?
  ) throws {
    for rule in deleteRules where rule.entity == name {
      let dependent = try model.entity(rule.dependent)
      guard let key = dependent.attribute(rule.key) else {
        throw FetchError.unknownKeyPath(rule.key, entity: dependent.name, known: dependent.attributes.map(\.name))
      }
      var ids: [Int64] = []
      let sql = """
        SELECT \(dependent.primaryKey.sqlName) FROM \(dependent.table.sqlName) WHERE \(key.column.sqlName) = ?
        """
      try step(WriteSQL.Statement(sql: sql, arguments: [.integer(id)]), db) { ids.append(sqlite3_column_int64($0, 0)) }
      for dependentID in ids {
        switch rule.action {
        case .nullify: try update(dependent.name, dependentID, [key.name: .null], db, &recorder, save)
        case .cascade: try delete(dependent.name, dependentID, db, &recorder, save)
        case .deny:
          throw FetchError.store(
            "\(name) \(id) cannot be deleted: \(dependent.name) \(dependentID) points at it and the rule is Deny")
        }
      }
    }
  }

  /// The values of `attributes` in the row `id` and, when `versioned`, its `Z_OPT`; nil when
  /// there is no such row. One query.
  private func row(
    _ entity: Entity, _ id: Int64, _ attributes: [Attribute], _ db: Database, versioned: Bool
  ) throws -> (values: [Value], version: Int64?)? {
    var out: (values: [Value], version: Int64?)?
    let columns = attributes.map(\.column.sqlName) + (versioned ? ["Z_OPT"] : [])
    let sql =
      "SELECT \(columns.joined(separator: ",")) FROM \(entity.table.sqlName) WHERE \(entity.primaryKey.sqlName) = ?"
    try step(WriteSQL.Statement(sql: sql, arguments: [.integer(id)]), db) { raw in
      let values = attributes.enumerated().map { i, a in Self.rawValue(raw, Int32(i), a.type) }
      out = (values, versioned ? sqlite3_column_int64(raw, Int32(attributes.count)) : nil)
    }
    return out
  }

  /// Appends the transaction to the change log under the write lock, so numbers are gapless
  /// and in commit order, and returns its number.
  private func log(_ changes: [EntityChanges], _ db: Database) throws -> Int {
    try step(
      WriteSQL.Statement(
        sql: WriteSQL.appendToLog(.sqlite),
        arguments: [.date(Date().timeIntervalSince1970), .string(TransactionCodec.encode(changes))]),
      db, counted: false)
    // seq is the INTEGER PRIMARY KEY, the rowid: no second query to learn it.
    return Int(db.lastInsertedRowID)
  }

  /// Runs a statement, cached, through the C API (GRDB's arguments and rows cost more than
  /// SQLite's own work on one-row statements), calling `row` with each result row. One
  /// statement, counted as a query unless it is the change log's, as on PostgreSQL.
  func step(
    _ statement: WriteSQL.Statement, _ db: Database, counted: Bool = true, row: (OpaquePointer) -> Void = { _ in }
  ) throws {
    let raw = try db.cachedStatement(sql: statement.sql).sqliteStatement
    sqlite3_reset(raw)
    defer { sqlite3_reset(raw) }
    for (i, v) in statement.arguments.enumerated() { Self.bind(raw, Int32(i + 1), v) }
    if counted { counters.queries += 1 }
    while true {
      let rc = sqlite3_step(raw)
      if rc == SQLITE_DONE { return }
      guard rc == SQLITE_ROW else {
        throw DatabaseError(
          resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
          sql: statement.sql)
      }
      row(raw)
    }
  }

  /// Binds a value to a parameter (1-based) of a statement: a text's every byte, a NUL too.
  /// O(length of the value).
  public static func bind(_ statement: OpaquePointer, _ n: Int32, _ v: Value) {
    switch v {
    case .null: sqlite3_bind_null(statement, n)
    case .integer(let x): sqlite3_bind_int64(statement, n, x)
    case .double(let x), .date(let x): sqlite3_bind_double(statement, n, x)
    case .bool(let b): sqlite3_bind_int64(statement, n, b ? 1 : 0)
    case .string(let s):
      let bytes = Int32(s.utf8.count)
      s.withCString { _ = sqlite3_bind_text(statement, n, $0, bytes, transient) }
    }
  }

  /// SQLite copies the bound text (`SQLITE_TRANSIENT`).
  static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
