import FetchedResults
import Foundation
import Logging
import NIOPosix
import PostgresNIO
import SQLQueries

/// A `Store` on a PostgreSQL server through postgres-nio: the same tables and columns as the
/// SQLite files (dates as double precision seconds since 1970), the same SQL shapes (one
/// statement per request, a LEFT JOIN per to-one key path), the batch fault one statement
/// `WHERE t0.id = ANY($1)` for every batch.
///
/// The `Store` protocol is synchronous; queries run on postgres-nio's event loop and the
/// calling thread waits on their futures, so no Swift concurrency thread is ever blocked (rows
/// arrive in an `onRow` callback: iterating an async row sequence on the main actor costs a
/// thread hop per row). Not thread-safe: one store per thread, as one managed object context.
public final class PostgresStore: Store {
  public let model: Model
  public let url: PostgresURL
  public private(set) var counters = StoreCounters()
  public let observers = TransactionObservers()
  let connection: PostgresConnection
  let logger = Logger(label: "fetchbench.postgres")
  private var sequence = 0

  /// Connects and checks that every entity's table and columns exist with the model's types.
  public init(url: PostgresURL, model: Model) throws {
    self.model = model
    self.url = url
    let configuration = PostgresConnection.Configuration(
      host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: .disable)
    do {
      connection = try PostgresConnection.connect(
        on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
      ).wait()
    } catch {
      throw PostgresStoreError.unreachable(url, Self.describe(error))
    }
    try checkSchema()
  }

  deinit { try? connection.close().wait() }

  private func checkSchema() throws {
    for entity in model.entities {
      var columns: [String: String] = [:]
      try run(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
        [.string(entity.table)]
      ) { row in
        columns[try row[0].decode(String.self)] = try row[1].decode(String.self)
      }
      guard !columns.isEmpty else {
        throw PostgresStoreError.schemaMismatch(
          url, "table \(entity.table) (entity \(entity.name)) is missing; load a dataset with `fetchbench generate --store postgres`")
      }
      for a in entity.attributes {
        guard let type = columns[a.column] else {
          throw PostgresStoreError.schemaMismatch(url, "column \(entity.table).\(a.column) (attribute \(entity.name).\(a.name)) is missing")
        }
        let expected = Self.columnType(a.type)
        guard type == expected else {
          throw PostgresStoreError.schemaMismatch(url, "column \(entity.table).\(a.column) is \(type), the model expects \(expected)")
        }
      }
    }
  }

  /// The information_schema type of an attribute's column.
  static func columnType(_ t: AttributeType) -> String {
    switch t {
    case .string: "text"
    case .integer, .bool: "bigint"
    case .double, .date: "double precision"
    }
  }

  public func resetCounters() { counters = StoreCounters() }

  // MARK: running statements

  /// Runs `sql` with `arguments`, calling `onRow` for every row on this thread's behalf (the
  /// callback runs on the event loop while this thread waits).
  func run(
    _ sql: String, _ arguments: [Value], extra: (inout PostgresBindings) -> Void = { _ in },
    onRow: @escaping (PostgresRandomAccessRow) throws -> Void
  ) throws {
    var binds = PostgresBindings()
    for v in arguments { Self.bind(v, &binds) }
    extra(&binds)
    let box = UncheckedBox(onRow)
    do {
      _ = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) { row in
        try box.value(row.makeRandomAccess())
      }.wait()
    } catch let error as PostgresStoreError {
      throw error
    } catch {
      throw PostgresStoreError.query(url, Self.describe(error), sql)
    }
  }

  static func bind(_ v: Value, _ binds: inout PostgresBindings) {
    switch v {
    case .null: binds.appendNull()
    case .integer(let i): binds.append(i)
    case .double(let d), .date(let d): binds.append(d)
    case .string(let s): binds.append(s)
    case .bool(let b): binds.append(Int64(b ? 1 : 0))
    }
  }

  /// One cell as the model's type.
  @inline(__always)
  static func value(_ cell: PostgresCell, _ t: AttributeType) throws -> Value {
    guard cell.bytes != nil else { return .null }
    switch t {
    case .string: return .string(try cell.decode(String.self))
    case .integer: return .integer(try cell.decode(Int64.self))
    case .bool: return .bool(try cell.decode(Int64.self) != 0)
    case .double: return .double(try cell.decode(Double.self))
    case .date: return .date(try cell.decode(Double.self))
    }
  }

  static func describe(_ error: any Error) -> String {
    if let e = error as? PSQLError {
      if let message = e.serverInfo?[.message] { return message }
      return "\(e.code)"
    }
    return String(describing: error)
  }

  // MARK: queries

  public func fetchIDs(_ request: ResolvedRequest) throws -> [Int64] {
    let sql = SQLBuilder(request, dialect: .postgres)
    let out = UncheckedBox([Int64]())
    counters.queries += 1
    try run(sql.idQuery, sql.arguments) { row in out.value.append(try row[0].decode(Int64.self)) }
    return out.value
  }

  public func fetchObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
    guard !ids.isEmpty else { return [] }
    let sql = SQLBuilder(request, dialect: .postgres)
    let layout = request.rowLayout
    counters.queries += 1
    // The batch fault has no predicate: the IDs are its only parameter.
    let out = try objects(sql.rowsByIDArrayQuery(parameter: 1), [], layout: layout) { $0.append(Array(ids)) }
    counters.rowsMaterialized += out.count
    return out
  }

  public func fetchObjects(_ request: ResolvedRequest) throws -> [FetchedObject] {
    let sql = SQLBuilder(request, dialect: .postgres)
    counters.queries += 1
    let out = try objects(sql.fullQuery, sql.arguments, layout: request.rowLayout)
    counters.rowsMaterialized += out.count
    return out
  }

  private func objects(_ text: String, _ arguments: [Value], layout: RowLayout, extra: (inout PostgresBindings) -> Void = { _ in }) throws
    -> [FetchedObject]
  {
    let out = UncheckedBox([FetchedObject]())
    let types = layout.types
    try run(text, arguments, extra: extra) { row in
      var values: [Value] = []
      values.reserveCapacity(types.count)
      for (i, t) in types.enumerated() { values.append(try Self.value(row[i + 1], t)) }
      out.value.append(FetchedObject(id: try row[0].decode(Int64.self), values: values, layout: layout))
    }
    return out.value
  }

  public func count(_ request: ResolvedRequest) throws -> Int {
    let sql = SQLBuilder(request, dialect: .postgres)
    let out = UncheckedBox(0)
    counters.queries += 1
    try run(sql.countQuery, sql.arguments) { row in out.value = Int(try row[0].decode(Int64.self)) }
    return out.value
  }

  public func sectionCounts(_ request: ResolvedRequest) throws -> [SectionCount] {
    guard let section = request.section else { throw FetchError.invalidRequest("section counts need a section key path") }
    let sql = SQLBuilder(request, dialect: .postgres)
    let out = UncheckedBox([SectionCount]())
    counters.queries += 1
    try run(sql.sectionQuery, sql.arguments) { row in
      out.value.append(SectionCount(value: try Self.value(row[0], section.attribute.type), count: Int(try row[1].decode(Int64.self))))
    }
    return out.value
  }

  // MARK: change tracking

  public func fetchKeyedIDs(_ request: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs {
    let sql = SQLBuilder(request, dialect: .postgres)
    let types = request.sorts.dropLast().map(\.keyPath.attribute.type)
    let out = UncheckedBox(KeyedIDs(ids: [], keys: Array(repeating: [], count: types.count)))
    counters.queries += 1
    try run(ids == nil ? sql.keyQuery : sql.keysByIDArrayQuery, sql.arguments, extra: { if let ids { $0.append(ids) } }) { row in
      out.value.ids.append(try row[0].decode(Int64.self))
      for (d, t) in types.enumerated() { out.value.keys[d].append(try Self.value(row[d + 1], t)) }
    }
    return out.value
  }

  public func relatedIDs(_ request: ResolvedRequest, through relationship: Relationship, destinationIDs: [Int64]) throws -> [Int64] {
    guard !destinationIDs.isEmpty else { return [] }
    let dest = try model.entity(relationship.destination)
    let text =
      "SELECT DISTINCT t0.\(request.entity.primaryKey) FROM \(request.entity.table) t0 JOIN \(dest.table) t1 ON t1.\(relationship.destinationColumn) = t0.\(relationship.sourceColumn) WHERE t1.\(dest.primaryKey) = ANY($1)"
    let out = UncheckedBox([Int64]())
    counters.queries += 1
    try run(text, [], extra: { $0.append(destinationIDs) }) { row in out.value.append(try row[0].decode(Int64.self)) }
    return out.value
  }

  @discardableResult
  public func commit(_ operations: [WriteOperation]) throws -> StoreTransaction {
    throw PostgresStoreError.query(url, "writes are not implemented yet in this store", "")
  }
}

/// A value handed to a postgres-nio callback that runs while the owning thread waits for it.
final class UncheckedBox<T>: @unchecked Sendable {
  var value: T
  init(_ value: T) { self.value = value }
}

/// `postgres://user[:password]@host[:port]/database`.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
  public var user: String
  public var password: String?
  public var host: String
  public var port: Int
  public var database: String

  /// Parses a URL; throws a message naming what is wrong.
  public init(_ text: String) throws {
    guard let c = URLComponents(string: text), c.scheme == "postgres" || c.scheme == "postgresql", let host = c.host, !host.isEmpty else {
      throw PostgresStoreError.badURL(text, "expected postgres://user@host:port/database")
    }
    user = c.user ?? "postgres"
    password = c.password
    self.host = host
    port = c.port ?? 5432
    let db = c.path.hasPrefix("/") ? String(c.path.dropFirst()) : c.path
    guard !db.isEmpty else { throw PostgresStoreError.badURL(text, "the database name is missing") }
    database = db
  }

  /// The URL without its password.
  public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}

/// Errors of the PostgreSQL store, each naming the server.
public enum PostgresStoreError: Error, CustomStringConvertible, Equatable {
  case badURL(String, String)
  case unreachable(PostgresURL, String)
  case schemaMismatch(PostgresURL, String)
  case query(PostgresURL, String, String)

  public var description: String {
    switch self {
    case .badURL(let u, let m): "'\(u)' is not a PostgreSQL URL: \(m)"
    case .unreachable(let u, let m):
      "cannot connect to PostgreSQL at \(u.host):\(u.port) (database \(u.database)): \(m). Is the server running? `scripts/postgres start` starts a private one."
    case .schemaMismatch(let u, let m): "\(u) does not have the expected schema: \(m)"
    case .query(let u, let m, let sql): "\(u): query failed: \(m)\(sql.isEmpty ? "" : " (\(sql))")"
    }
  }
}
