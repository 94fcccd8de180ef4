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
    // IMMEDIATE: the write lock from the first statement, so the old values read below and
    // the change log's next number are those of the state this transaction replaces (a
    // deferred one could read, lose the race for the lock, and fail with SQLITE_BUSY_SNAPSHOT).
    try queue.inTransaction(.immediate) { db in
      for op in operations {
        switch op {
        case .insert(let name, let values): try insert(name, values, db, &recorder)
        case .update(let name, let id, let values): try update(name, id, values, db, &recorder)
        case .delete(let name, let id): try delete(name, id, db, &recorder)
        }
      }
      if changeLogEnabled { logged = try log(recorder.changes, db) }
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

  /// One INSERT; the new row's links recorded for observers.
  private func insert(_ name: String, _ values: [String: Value], _ db: Database, _ recorder: inout ChangeRecorder) throws {
    let entity = try model.entity(name)
    var columns = [entity.primaryKey]
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
  }

  /// Reads the old values of the attributes written (and of the links), then one UPDATE.
  /// Reports only the attributes whose value really changes, as Core Data's changedValues().
  private func update(_ name: String, _ id: Int64, _ values: [String: Value], _ db: Database, _ recorder: inout ChangeRecorder) throws {
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
    guard !sets.isEmpty else { return }
    // The same read gives the link attributes, which observers need.
    let linkAttributes = model.linkAttributes(of: entity)
    let columns = keys.map { entity.attribute($0)!.column } + linkAttributes.map(\.column)
    let old = try Row.fetchOne(
      db, sql: "SELECT \(columns.joined(separator: ",")) FROM \(entity.table) WHERE \(entity.primaryKey) = ?", arguments: [id])
    counters.queries += 1
    guard let old else { throw FetchError.store("\(name): no row with id \(id) to update") }
    var changed: [String: Value] = [:]
    for (i, k) in keys.enumerated() {
      let before = Self.value(old, i, entity.attribute(k)!.type)
      if before != values[k]! { changed[k] = before }
    }
    try db.execute(
      sql: "UPDATE \(entity.table) SET \(sets.joined(separator: ", ")) WHERE \(entity.primaryKey) = ?",
      arguments: StatementArguments(args + [id.databaseValue]))
    counters.queries += 1
    recorder.updated(name, id, old: changed)
    if !changed.isEmpty {
      var links: [String: Value] = [:]
      for (j, a) in linkAttributes.enumerated() { links[a.name] = values[a.name] ?? Self.value(old, keys.count + j, a.type) }
      recorder.linked(name, id, links)
    }
  }

  /// Reads the row as deleted (observers need its foreign keys to find who pointed at it),
  /// then one DELETE.
  private func delete(_ name: String, _ id: Int64, _ db: Database, _ recorder: inout ChangeRecorder) throws {
    let entity = try model.entity(name)
    let old = try Row.fetchOne(
      db, sql: "SELECT \(entity.attributes.map(\.column).joined(separator: ",")) FROM \(entity.table) WHERE \(entity.primaryKey) = ?",
      arguments: [id])
    counters.queries += 1
    guard let old else { throw FetchError.store("\(name): no row with id \(id) to delete") }
    try db.execute(sql: "DELETE FROM \(entity.table) WHERE \(entity.primaryKey) = ?", arguments: [id])
    counters.queries += 1
    var values: [String: Value] = [:]
    for (i, a) in entity.attributes.enumerated() { values[a.name] = Self.value(old, i, a.type) }
    recorder.deleted(name, id, old: values)
    recorder.linked(name, id, values.filter { k, _ in model.linkAttributes(of: entity).contains { $0.name == k } })
  }

  /// Appends the transaction to the change log under the write lock, so numbers are gapless
  /// and in commit order, and returns its number.
  private func log(_ changes: [EntityChanges], _ db: Database) throws -> Int {
    try db.execute(
      sql: "INSERT INTO \(Self.changeLog) (seq, committed_at, payload) SELECT COALESCE(MAX(seq), 0) + 1, ?, ? FROM \(Self.changeLog)",
      arguments: [Date().timeIntervalSince1970, TransactionCodec.encode(changes)])
    // seq is the INTEGER PRIMARY KEY, the rowid: no second query to learn it.
    return Int(db.lastInsertedRowID)
  }
}
