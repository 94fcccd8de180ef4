import FetchedResults

/// The least SQL that applies a transaction: one statement per inserted, updated or deleted
/// row by primary key, and one change-log row, with none of the reads a store makes to report
/// what changed. The load test commits it through each store's client alone to measure the
/// store's own write limit beside the write path that keeps observers informed.
public enum WriteSQL {
  /// One statement: its text (the same for every operation of one shape, so a statement cache
  /// reuses it) and its arguments in parameter order. O(values).
  public struct Statement: Sendable, Equatable {
    public var sql: String
    public var arguments: [Value]

    public init(sql: String, arguments: [Value]) {
      self.sql = sql
      self.arguments = arguments
    }
  }

  /// The statement that applies `operation`. Throws for an entity or attribute the model
  /// does not have. O(values + attributes).
  public static func statement(_ operation: WriteOperation, model: Model, dialect: SQLDialect) throws -> Statement {
    switch operation {
    case .insert(let name, let values):
      let entity = try model.entity(name)
      let (columns, arguments) = try columnsAndValues(values, of: entity)
      guard !columns.isEmpty else {
        return Statement(sql: "INSERT INTO \(entity.table.sqlName) DEFAULT VALUES", arguments: [])
      }
      let parameters = arguments.indices.map { dialect.parameter($0 + 1) }
      return Statement(
        sql:
          """
          INSERT INTO \(entity.table.sqlName) (\(columns.joined(separator: ","))) VALUES \
          (\(parameters.joined(separator: ",")))
          """,
        arguments: arguments)
    case .update(let name, let id, let values):
      let entity = try model.entity(name)
      let (columns, arguments) = try columnsAndValues(values, of: entity)
      let sets = columns.enumerated().map { i, c in "\(c) = \(dialect.parameter(i + 1))" }
      return Statement(
        sql:
          """
          UPDATE \(entity.table.sqlName) SET \(sets.joined(separator: ", ")) WHERE \(entity.primaryKey.sqlName) = \
          \(dialect.parameter(columns.count + 1))
          """,
        arguments: arguments + [.integer(id)])
    case .delete(let name, let id):
      let entity = try model.entity(name)
      return Statement(
        sql: "DELETE FROM \(entity.table.sqlName) WHERE \(entity.primaryKey.sqlName) = \(dialect.parameter(1))",
        arguments: [.integer(id)])
    }
  }

  /// Appends a change-log row (its time and text the two parameters) numbered after the last
  /// one, as the stores' own commits do.
  public static func appendToLog(_ dialect: SQLDialect) -> String {
    """
    INSERT INTO \(ChangeLogSQL.table) (seq, committed_at, payload) \
    SELECT COALESCE(MAX(seq), 0) + 1, \(dialect.parameter(1)), \(dialect.parameter(2)) FROM \(ChangeLogSQL.table)
    """
  }

  /// The operations as text, one line each (kind, entity, ID, attributes written): a payload
  /// of about the size a store logs for the same transaction. O(operations).
  public static func payload(_ operations: [WriteOperation]) -> String {
    operations.map { op in
      switch op {
      case .insert(let name, let values): "I \(name) \(values.keys.sorted().joined(separator: ","))"
      case .update(let name, let id, let values): "U \(name) \(id) \(values.keys.sorted().joined(separator: ","))"
      case .delete(let name, let id): "D \(name) \(id)"
      }
    }.joined(separator: "\n")
  }

  /// Columns in attribute-name order, `id` as the primary key.
  static func columnsAndValues(_ values: [String: Value], of entity: Entity) throws -> ([String], [Value]) {
    var columns: [String] = []
    var arguments: [Value] = []
    for (key, value) in values.sorted(by: { $0.key < $1.key }) {
      if key == "id" {
        columns.append(entity.primaryKey.sqlName)
      } else if let a = entity.attribute(key) {
        columns.append(a.column.sqlName)
      } else {
        throw FetchError.unknownKeyPath(key, entity: entity.name, known: entity.attributes.map(\.name))
      }
      arguments.append(value)
    }
    return (columns, arguments)
  }
}
