import FetchedResults

/// The statements Core Data's save issues on its own schema (tables with `Z_ENT` and `Z_OPT`,
/// the counter table `Z_PRIMARYKEY`), as its SQL debug log shows them:
/// - an insert writes `Z_ENT`, the entity's number, and `Z_OPT` 1 beside the row's columns;
/// - an update sets `Z_OPT` to the next version where the row is still at the version the
///   save read (`… Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?`: optimistic locking), and a delete
///   removes the row only at that version;
/// - a save that inserts first allocates the keys in a transaction of its own, per entity
///   reading `Z_PRIMARYKEY.Z_MAX` and raising it only where it is still the value read
///   (`UPDATE OR FAIL … WHERE Z_ENT = ? AND Z_MAX = ?`), as a published SQL log of a save shows.
///   Core Data hands out the keys from that counter; FetchBench's workloads name their new
///   rows' keys, so the counter is raised to the largest of them.
///
/// A writer that reads nothing first (the load test's raw writer) has no version to compare:
/// its update increments `Z_OPT` in place and its delete is by key alone.
public struct CoreDataSave: Sendable, Equatable {
  /// Each entity's `Z_ENT`, by entity name, as `Z_PRIMARYKEY` lists them.
  public let entityNumbers: [String: Int64]

  public init(entityNumbers: [String: Int64]) { self.entityNumbers = entityNumbers }

  /// Whether `entity` is one of the store's Core Data entities (its writes keep the
  /// bookkeeping). O(1).
  public func keeps(_ entity: String) -> Bool { entityNumbers[entity] != nil }

  /// The statement that applies `operation`, `version` being the row's `Z_OPT` as read before
  /// it (nil: not read). Throws for an entity or attribute the model does not have.
  /// O(values + attributes).
  public func statement(_ operation: WriteOperation, model: Model, version: Int64?) throws -> WriteSQL.Statement {
    switch operation {
    case .insert(let name, let values):
      let entity = try model.entity(name)
      let (columns, arguments) = try WriteSQL.columnsAndValues(values, of: entity)
      let all = ["Z_ENT", "Z_OPT"] + columns
      return WriteSQL.Statement(
        sql:
          """
          INSERT INTO \(entity.table.sqlName) (\(all.joined(separator: ", "))) VALUES \
          (\(all.map { _ in "?" }.joined(separator: ", ")))
          """,
        arguments: [.integer(entityNumbers[name] ?? 0), .integer(1)] + arguments)
    case .update(let name, let id, let values):
      let entity = try model.entity(name)
      let (columns, arguments) = try WriteSQL.columnsAndValues(values, of: entity)
      let sets = columns.map { "\($0) = ?" }.joined(separator: ", ")
      guard let version else {
        return WriteSQL.Statement(
          sql: "UPDATE \(entity.table.sqlName) SET \(sets), Z_OPT = Z_OPT + 1 WHERE \(entity.primaryKey.sqlName) = ?",
          arguments: arguments + [.integer(id)]
        )
      }
      return WriteSQL.Statement(
        sql:
          "UPDATE \(entity.table.sqlName) SET \(sets), Z_OPT = ? WHERE \(entity.primaryKey.sqlName) = ? AND Z_OPT = ?",
        arguments: arguments + [.integer(version + 1), .integer(id), .integer(version)])
    case .delete(let name, let id):
      let entity = try model.entity(name)
      guard let version else {
        return WriteSQL.Statement(
          sql: "DELETE FROM \(entity.table.sqlName) WHERE \(entity.primaryKey.sqlName) = ?", arguments: [.integer(id)])
      }
      return WriteSQL.Statement(
        sql: "DELETE FROM \(entity.table.sqlName) WHERE \(entity.primaryKey.sqlName) = ? AND Z_OPT = ?",
        arguments: [.integer(id), .integer(version)])
    }
  }

  /// The statement of `operation` on SQLite: Core Data's save statement on an entity `save`
  /// keeps (at the row's `version`, read before it; nil: not read), `WriteSQL`'s otherwise.
  /// O(values + attributes).
  public static func statement(
    _ operation: WriteOperation, model: Model, save: CoreDataSave?, version: Int64? = nil
  ) throws -> WriteSQL.Statement {
    if let save, save.keeps(operation.entity) { return try save.statement(operation, model: model, version: version) }
    return try WriteSQL.statement(operation, model: model, dialect: .sqlite)
  }

  /// Each entity `operations` insert into, by its number, with the largest key inserted, in
  /// entity-number order: the key allocation's work. O(operations).
  public func largestInsertedKeys(_ operations: [WriteOperation]) -> [(entity: Int64, key: Int64)] {
    var largest: [String: Int64] = [:]
    for case .insert(let name, let values) in operations where keeps(name) {
      if case .integer(let id) = values["id"] { largest[name] = max(largest[name] ?? id, id) }
    }
    return largest.map { (entityNumbers[$0.key]!, $0.value) }.sorted { $0.entity < $1.entity }
  }

  /// The raw writer's form, which reads nothing (the load test's writers): each entity's
  /// counter raised to its largest inserted key in the rows' own transaction, in
  /// entity-number order. O(operations).
  public func primaryKeyCounters(_ operations: [WriteOperation]) -> [WriteSQL.Statement] {
    largestInsertedKeys(operations).map { entity, key in
      WriteSQL.Statement(
        sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(Z_MAX, ?) WHERE Z_ENT = ?",
        arguments: [.integer(key), .integer(entity)])
    }
  }

  /// The allocation's read of an entity's counter.
  public static func maxQuery(_ entity: Int64) -> WriteSQL.Statement {
    WriteSQL.Statement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [.integer(entity)])
  }

  /// The allocation's raise of an entity's counter from the value read: it changes no row when
  /// another save allocated in between.
  public static func raise(_ entity: Int64, from read: Int64, to key: Int64) -> WriteSQL.Statement {
    WriteSQL.Statement(
      sql: "UPDATE OR FAIL Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX = ?",
      arguments: [.integer(max(read, key)), .integer(entity), .integer(read)])
  }
}
