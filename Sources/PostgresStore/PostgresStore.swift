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
///
/// Changes across connections: every commit appends its transaction (`TransactionCodec`
/// text) to the change log, the table `fetchbench_changes`, under a sequence number, and
/// notifies the channel of the same name. Observers of any store on the database receive
/// every transaction, their own and other connections', in sequence order, from
/// `pollChanges()` (which a commit calls, and `waitForChanges(timeout:)` after a
/// notification). A log rather than NOTIFY payloads alone: payloads are capped at 8,000
/// bytes (a 50-row transaction with old values exceeds that), and notifications sent while
/// a connection is down are lost, whereas the log lets a reconnecting observer read what it
/// missed by sequence number, so nothing is missed or applied twice.
public final class PostgresStore: Store {
  public let model: Model
  public let url: PostgresURL
  public private(set) var counters = StoreCounters()
  public let observers = TransactionObservers()
  private(set) var connection: PostgresConnection
  let logger = Logger(label: "fetchbench.postgres")
  /// The last change-log sequence number delivered to this store's observers.
  public private(set) var deliveredSequence = 0
  private let signal = NotificationSignal()
  private var listenContext: PostgresListenContext?
  private var closed = false

  /// The change log's table and notification channel.
  public static let changeLog = "fetchbench_changes"
  /// Creates the change log (the loader runs it with the dataset's tables).
  public static let changeLogDDL =
    "CREATE TABLE IF NOT EXISTS \(changeLog) (seq BIGINT PRIMARY KEY, committed_at DOUBLE PRECISION NOT NULL, payload TEXT NOT NULL)"

  /// Connects and checks that every entity's table and columns exist with the model's types.
  /// Connects (giving up after `PostgresURL.connectTimeout`), checks that every entity's
  /// table and columns exist with the model's types, and starts listening for the change
  /// log's notifications; observers see transactions committed from now on.
  public init(url: PostgresURL, model: Model) throws {
    self.model = model
    self.url = url
    connection = try Self.connect(url, logger: logger)
    try checkSchema()
    try listen()
    deliveredSequence = try logHead()
  }

  deinit { close() }

  /// Closes the connection; the store cannot be used afterwards. Idempotent.
  public func close() {
    guard !closed else { return }
    closed = true
    listenContext?.stop()
    try? connection.close().wait()
  }

  static func connect(_ url: PostgresURL, logger: Logger) throws -> PostgresConnection {
    var configuration = PostgresConnection.Configuration(
      host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: .disable)
    configuration.options.connectTimeout = .seconds(Int64(PostgresURL.connectTimeout))
    do {
      return try PostgresConnection.connect(
        on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
      ).wait()
    } catch {
      throw PostgresStoreError.unreachable(url, Self.describe(error))
    }
  }

  /// Reconnects after the connection dropped, then delivers what the log holds beyond
  /// `deliveredSequence`, so observers miss nothing and see nothing twice. Returns the
  /// number of transactions delivered.
  @discardableResult
  public func reconnect() throws -> Int {
    listenContext?.stop()
    try? connection.close().wait()
    connection = try Self.connect(url, logger: logger)
    // Prepared statements belong to the old session (and postgres-nio would send them to
    // the closed connection, which never answers).
    prepared = [:]
    try listen()
    return try pollChanges()
  }

  /// The server process serving this store's connection (`pg_backend_pid()`).
  public func backendPID() throws -> Int {
    let out = UncheckedBox(0)
    try run("SELECT pg_backend_pid()", []) { row in out.value = Int(try row[0].decode(Int32.self)) }
    return out.value
  }

  /// Whether the connection is closed (dropped by the server or the network).
  public var isDisconnected: Bool { connection.isClosed }

  private func listen() throws {
    let signal = self.signal
    listenContext = connection.addListener(channel: Self.changeLog) { _, _ in signal.post() }
    // The listener sends LISTEN itself; a round trip makes sure it is registered before
    // this store reads the log head, so no commit falls between the two.
    try run("SELECT 1", []) { _ in }
  }

  private func logHead() throws -> Int {
    let out = UncheckedBox(0)
    do {
      try run("SELECT COALESCE(MAX(seq), 0) FROM \(Self.changeLog)", []) { row in out.value = Int(try row[0].decode(Int64.self)) }
    } catch {
      throw PostgresStoreError.schemaMismatch(
        url, "the change log (table \(Self.changeLog)) is missing; load the dataset with `fetchbench generate --store postgres`")
    }
    return out.value
  }

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

  /// Runs `sql` with `arguments` (and `ids` as a bigint[] parameter after them), calling
  /// `onRow` for every row on this thread's behalf (the callback runs on the event loop
  /// while this thread waits). One round trip.
  ///
  /// Statements whose only parameter is the ID array (the batch fault, the keys of changed
  /// objects) run as named prepared statements, one per request shape, parsed and planned
  /// once per connection: they repeat thousands of times in a scroll-through. Statements run
  /// once per performFetch go unnamed (parsed in the same round trip), which also lets the
  /// predicate's arguments carry their own types.
  func run(
    _ sql: String, _ arguments: [Value], ids: [Int64]? = nil,
    onRow: @escaping (ResultCells) throws -> Void
  ) throws {
    // postgres-nio 1.33 never completes a query sent on a connection the server has closed
    // (its future is left pending), so a dropped connection is checked for first.
    guard !connection.isClosed else { throw PostgresStoreError.disconnected(url) }
    let box = UncheckedBox(onRow)
    let bytes = UncheckedBox(0)
    counters.roundTrips += 1
    defer { counters.bytesReceived += bytes.value }
    // A DataRow message: type byte, length and column count here; a length and the bytes
    // per column as the callback reads the cells.
    @Sendable func received(_ row: PostgresRow, binary: Bool) throws {
      bytes.value += 7
      try box.value(ResultCells(row: row, binary: binary, bytes: bytes))
    }
    do {
      if let ids, arguments.isEmpty {
        let statement = try preparedStatement(sql)
        let array = PostgresData(array: ids.map { PostgresData(int64: $0) }, elementType: .int8)
        try statement.execute([array]) { try received($0, binary: true) }.wait()
      } else {
        var binds = PostgresBindings()
        for v in arguments { Self.bind(v, &binds) }
        if let ids { binds.append(ids) }
        _ = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) { try received($0, binary: false) }.wait()
      }
    } catch let error as PostgresStoreError {
      throw error
    } catch {
      throw PostgresStoreError.query(url, Self.describe(error), sql)
    }
  }

  /// One empty round trip (`SELECT 1`): the network and protocol cost alone.
  public func ping() throws { try run("SELECT 1", []) { _ in } }

  /// The first column of the first row of `sql` as text, nil without rows (the raw bytes of
  /// text-like columns, EXPLAIN's JSON included).
  public func scalarText(_ sql: String) throws -> String? {
    let out = UncheckedBox<String?>(nil)
    try run(sql, []) { row in
      if out.value == nil, var bytes = row[0].bytes { out.value = bytes.readString(length: bytes.readableBytes) }
    }
    return out.value
  }

  private var prepared: [String: PreparedQuery] = [:]

  private func preparedStatement(_ sql: String) throws -> PreparedQuery {
    if let p = prepared[sql] { return p }
    counters.roundTrips += 1
    let p = try connection.prepare(query: sql).wait()
    prepared[sql] = p
    return p
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

  /// An int8 cell (IDs, counts), read straight from its bytes when binary.
  @inline(__always)
  static func int64(_ cell: PostgresCell) throws -> Int64 {
    if cell.format == .binary, cell.dataType == .int8, var b = cell.bytes, b.readableBytes == 8, let v = b.readInteger(as: Int64.self) {
      return v
    }
    return try cell.decode(Int64.self)
  }

  /// One cell as the model's type. Binary int8, float8 and text cells (every column of
  /// the schema the store checks) are read straight from their bytes: postgres-nio's
  /// generic `decode` cost more than the rest of a row's handling together.
  @inline(__always)
  static func value(_ cell: PostgresCell, _ t: AttributeType) throws -> Value {
    guard var b = cell.bytes else { return .null }
    if cell.format == .binary {
      switch (t, cell.dataType) {
      case (.integer, .int8): if let v = b.readInteger(as: Int64.self) { return .integer(v) }
      case (.string, .text): if let v = b.readString(length: b.readableBytes) { return .string(v) }
      case (.double, .float8): if let v = b.readInteger(as: UInt64.self) { return .double(Double(bitPattern: v)) }
      case (.date, .float8): if let v = b.readInteger(as: UInt64.self) { return .date(Double(bitPattern: v)) }
      case (.bool, .int8): if let v = b.readInteger(as: Int64.self) { return .bool(v != 0) }
      default: break
      }
    }
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
    // Decoding errors hide their details from `description` (they could hold row data);
    // ours hold column types and positions, which the user needs.
    if let e = error as? PostgresDecodingError {
      return "cannot decode column \(e.columnIndex) (\(e.columnName), \(e.postgresType), \(e.postgresFormat)) as \(e.targetType): \(e.code)"
    }
    return String(describing: error)
  }

  // MARK: queries

  /// The sorted IDs as one bigint[] value, `SELECT ARRAY(<the ID query>)`: the array keeps
  /// the subquery's ORDER BY order, and one row of 244k elements costs the client a fraction
  /// of 244k one-column rows (postgres-nio's per-row protocol handling was ~70% of the
  /// time of fetching the IDs as rows).
  public func fetchIDs(_ request: ResolvedRequest) throws -> [Int64] {
    let sql = SQLBuilder(request, dialect: .postgres)
    let out = UncheckedBox([Int64]())
    counters.queries += 1
    try run("SELECT ARRAY(\(sql.idQuery))", sql.arguments) { row in
      try row.forEach { _, cell in out.value = try Self.int64Array(cell, url: self.url) }
    }
    return out.value
  }

  /// A one-dimensional bigint[] in binary form: ndim, has-null flag, element type, then per
  /// dimension its length and lower bound, then each element as length + 8 bytes. O(n).
  static func int64Array(_ cell: PostgresCell, url: PostgresURL) throws -> [Int64] {
    guard cell.format == .binary, cell.dataType == .int8Array, var b = cell.bytes else { return try cell.decode([Int64].self) }
    guard let ndim = b.readInteger(as: Int32.self), b.readInteger(as: Int32.self) != nil, b.readInteger(as: UInt32.self) != nil
    else { throw PostgresStoreError.query(url, "malformed bigint[]", "") }
    if ndim == 0 { return [] }
    guard ndim == 1, let count = b.readInteger(as: Int32.self), b.readInteger(as: Int32.self) != nil, count >= 0,
      b.readableBytes == Int(count) * 12
    else { throw PostgresStoreError.query(url, "unexpected bigint[] shape", "") }
    return b.withUnsafeReadableBytes { raw in
      [Int64](unsafeUninitializedCapacity: Int(count)) { out, n in
        for i in 0..<Int(count) {
          // Skip the element's length (always 8: the subquery's IDs are never NULL).
          out[i] = Int64(bigEndian: raw.loadUnaligned(fromByteOffset: i * 12 + 4, as: Int64.self))
        }
        n = Int(count)
      }
    }
  }

  public func fetchObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
    guard !ids.isEmpty else { return [] }
    let sql = SQLBuilder(request, dialect: .postgres)
    let layout = request.rowLayout
    counters.queries += 1
    // The batch fault has no predicate: the IDs are its only parameter.
    let out = try objects(sql.rowsByIDArrayQuery(parameter: 1), [], layout: layout, ids: Array(ids))
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

  private func objects(_ text: String, _ arguments: [Value], layout: RowLayout, ids: [Int64]? = nil) throws
    -> [FetchedObject]
  {
    let out = UncheckedBox([FetchedObject]())
    let types = layout.types
    try run(text, arguments, ids: ids) { row in
      var values: [Value] = []
      values.reserveCapacity(types.count)
      var id: Int64 = 0
      try row.forEach { i, cell in
        if i == 0 { id = try Self.int64(cell) } else { values.append(try Self.value(cell, types[i - 1])) }
      }
      out.value.append(FetchedObject(id: id, values: values, layout: layout))
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
    try run(ids == nil ? sql.keyQuery : sql.keysByIDArrayQuery, sql.arguments, ids: ids) { row in
      try row.forEach { i, cell in
        if i == 0 { out.value.ids.append(try Self.int64(cell)) } else { out.value.keys[i - 1].append(try Self.value(cell, types[i - 1])) }
      }
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
    try run(text, [], ids: destinationIDs) { row in out.value.append(try row[0].decode(Int64.self)) }
    return out.value
  }

  /// Runs `operations` in one transaction (BEGIN … COMMIT; on any error ROLLBACK, and
  /// nothing of it is logged or seen), appends it to the change log and notifies the
  /// channel, then delivers every logged transaction not yet delivered, this one included,
  /// to the observers in sequence order. Round trips: 1 per insert, update or delete (each
  /// returns the row's values from before it, as Core Data's committed values), plus 5.
  @discardableResult
  public func commit(_ operations: [WriteOperation]) throws -> StoreTransaction {
    var recorder = ChangeRecorder()
    try run("BEGIN", []) { _ in }
    let sequence: Int
    do {
      for op in operations { try write(op, &recorder) }
      // The lock makes sequence order commit order: it is held until COMMIT, so a later
      // number is never visible before an earlier one (an observer reading `seq > n` could
      // otherwise skip a transaction still in flight). It is taken last, so writers only
      // serialize their final two statements.
      try run("SELECT pg_advisory_xact_lock(hashtext('\(Self.changeLog)'))", []) { _ in }
      let out = UncheckedBox(0)
      try run(
        """
        WITH ins AS (INSERT INTO \(Self.changeLog) (seq, committed_at, payload) \
        SELECT COALESCE(MAX(seq), 0) + 1, $1, $2 FROM \(Self.changeLog) RETURNING seq) \
        SELECT seq, pg_notify('\(Self.changeLog)', seq::text) FROM ins
        """,
        [.double(Date().timeIntervalSince1970), .string(TransactionCodec.encode(recorder.changes))]
      ) { row in out.value = Int(try row[0].decode(Int64.self)) }
      sequence = out.value
      try run("COMMIT", []) { _ in }
    } catch {
      try? run("ROLLBACK", []) { _ in }
      throw error
    }
    try pollChanges()
    return StoreTransaction(sequence: sequence, changes: recorder.changes)
  }

  private func write(_ op: WriteOperation, _ recorder: inout ChangeRecorder) throws {
    switch op {
    case .insert(let name, let values):
      let entity = try model.entity(name)
      var columns: [String] = []
      var arguments: [Value] = []
      for (key, v) in values.sorted(by: { $0.key < $1.key }) {
        if key == "id" {
          columns.append(entity.primaryKey)
        } else if let a = entity.attribute(key) {
          columns.append(a.column)
        } else {
          throw FetchError.unknownKeyPath(key, entity: name, known: entity.attributes.map(\.name))
        }
        arguments.append(v)
      }
      // Without an ID the table's identity column numbers the row.
      let insert =
        columns.isEmpty
        ? "INSERT INTO \(entity.table) DEFAULT VALUES"
        : "INSERT INTO \(entity.table) (\(columns.joined(separator: ","))) VALUES (\(arguments.indices.map { "$\($0 + 1)" }.joined(separator: ",")))"
      let out = UncheckedBox<Int64>(0)
      counters.queries += 1
      try run("\(insert) RETURNING \(entity.primaryKey)", arguments) { row in out.value = try row[0].decode(Int64.self) }
      var links: [String: Value] = [:]
      for a in model.linkAttributes(of: entity) { links[a.name] = values[a.name] ?? .null }
      recorder.inserted(name, out.value, links: links)
    case .update(let name, let id, let values):
      let entity = try model.entity(name)
      var keys: [String] = []
      for key in values.keys.sorted() {
        guard entity.attribute(key) != nil else {
          throw FetchError.unknownKeyPath(key, entity: name, known: entity.attributes.map(\.name))
        }
        keys.append(key)
      }
      guard !keys.isEmpty else { return }
      // Only the attributes whose value really changes are reported, as Core Data's
      // changedValues(); the same read gives the link attributes. One statement: the CTE
      // locks the row and reads its committed values (FOR UPDATE waits for a concurrent
      // writer and returns the row as it left it), and the UPDATE joins on it, so the row is
      // locked before it is written and RETURNING gives the values from before the write.
      // The CTE's columns are renamed: a link attribute may also be one of the updated ones.
      let linkAttributes = model.linkAttributes(of: entity)
      let read = keys.map { entity.attribute($0)! } + linkAttributes
      let table = entity.table
      let key = entity.primaryKey
      let sets = keys.enumerated().map { i, k in "\(entity.attribute(k)!.column) = $\(i + 2)" }
      let old = UncheckedBox<[Value]?>(nil)
      counters.queries += 1
      try run(
        """
        WITH o AS (SELECT \(key) AS k, \(read.enumerated().map { "\($1.column) AS v\($0)" }.joined(separator: ",")) \
        FROM \(table) WHERE \(key) = $1 FOR UPDATE) \
        UPDATE \(table) AS t SET \(sets.joined(separator: ", ")) FROM o WHERE t.\(key) = o.k \
        RETURNING \(read.indices.map { "o.v\($0)" }.joined(separator: ","))
        """,
        [.integer(id)] + keys.map { values[$0]! }
      ) { row in old.value = try read.enumerated().map { i, a in try Self.value(row[i], a.type) } }
      guard let before = old.value else { throw FetchError.store("\(name): no row with id \(id) to update") }
      var changed: [String: Value] = [:]
      for (i, k) in keys.enumerated() where before[i] != values[k]! { changed[k] = before[i] }
      recorder.updated(name, id, old: changed)
      if !changed.isEmpty {
        var links: [String: Value] = [:]
        for (j, a) in linkAttributes.enumerated() { links[a.name] = values[a.name] ?? before[keys.count + j] }
        recorder.linked(name, id, links)
      }
    case .delete(let name, let id):
      let entity = try model.entity(name)
      // The row as deleted: observers need its foreign keys to find who pointed at it.
      let old = UncheckedBox<[String: Value]?>(nil)
      counters.queries += 1
      try run(
        "DELETE FROM \(entity.table) WHERE \(entity.primaryKey) = $1 RETURNING \(entity.attributes.map(\.column).joined(separator: ","))",
        [.integer(id)]
      ) { row in
        var values: [String: Value] = [:]
        for (i, a) in entity.attributes.enumerated() { values[a.name] = try Self.value(row[i], a.type) }
        old.value = values
      }
      guard let values = old.value else { throw FetchError.store("\(name): no row with id \(id) to delete") }
      recorder.deleted(name, id, old: values)
      let linkNames = Set(model.linkAttributes(of: entity).map(\.name))
      recorder.linked(name, id, values.filter { linkNames.contains($0.key) })
    }
  }

  // MARK: changes from every connection

  /// Delivers the change log's transactions after `deliveredSequence` to the observers, in
  /// sequence order, one query. Returns how many were delivered.
  @discardableResult
  public func pollChanges() throws -> Int {
    let rows = UncheckedBox([(Int, String)]())
    counters.queries += 1
    try run("SELECT seq, payload FROM \(Self.changeLog) WHERE seq > $1 ORDER BY seq", [.integer(Int64(deliveredSequence))]) { row in
      rows.value.append((Int(try row[0].decode(Int64.self)), try row[1].decode(String.self)))
    }
    for (seq, payload) in rows.value {
      // Sequence numbers are gapless (assigned under the log lock): a gap means a row was
      // removed behind the store's back, and the observers cannot be kept right.
      guard seq == deliveredSequence + 1 else {
        throw PostgresStoreError.query(url, "change log sequence jumps from \(deliveredSequence) to \(seq)", "")
      }
      let transaction = StoreTransaction(sequence: seq, changes: try TransactionCodec.decode(payload))
      deliveredSequence = seq
      observers.notify(transaction)
    }
    return rows.value.count
  }

  /// Blocks the calling thread until a commit notification arrives or `timeout` seconds
  /// pass, then polls the log. Returns the number of transactions delivered. Call it from a
  /// thread of your own, never from Swift concurrency's pool.
  @discardableResult
  public func waitForChanges(timeout: Double) throws -> Int {
    awaitNotification(timeout: timeout)
    return try pollChanges()
  }

  /// Blocks until a commit notification arrives or `timeout` seconds pass, without reading
  /// the log: safe to call while another thread uses the store (only the notification
  /// signal is touched), so a thread can wait without holding the lock that guards the store.
  public func awaitNotification(timeout: Double) { signal.wait(timeout: timeout) }
}

/// Counts notifications; a waiting thread wakes on the first one.
final class NotificationSignal: @unchecked Sendable {
  private let condition = NSCondition()
  private var pending = 0

  func post() {
    condition.lock()
    pending += 1
    condition.signal()
    condition.unlock()
  }

  func wait(timeout: Double) {
    condition.lock()
    let deadline = Date(timeIntervalSinceNow: timeout)
    while pending == 0 && condition.wait(until: deadline) {}
    pending = 0
    condition.unlock()
  }
}

/// One result row's cells, read in order (`forEach`, no allocation) or by index, each
/// cell's wire size added to the statement's byte count as it is read.
///
/// postgres-nio 1.33's prepared-statement path (`PreparedQuery`) labels result columns with
/// the Describe step's format (text) although its Bind asks for, and the server sends,
/// binary; `binary` corrects the label so that decoding reads them right.
struct ResultCells {
  let row: PostgresRow
  let binary: Bool
  let bytes: UncheckedBox<Int>

  @inline(__always)
  func forEach(_ body: (Int, PostgresCell) throws -> Void) throws {
    var i = 0
    for var cell in row {
      if binary { cell.format = .binary }
      bytes.value += 4 + (cell.bytes?.readableBytes ?? 0)
      try body(i, cell)
      i += 1
    }
  }

  subscript(_ i: Int) -> PostgresCell {
    var cell = row.makeRandomAccess()[i]
    if binary { cell.format = .binary }
    bytes.value += 4 + (cell.bytes?.readableBytes ?? 0)
    return cell
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
  /// Seconds to wait for a connection before reporting the server unreachable.
  public static let connectTimeout = 5

  /// `sslmode` values the store honours: it connects without TLS, which these allow.
  static let plainSSLModes: Set<String> = ["disable", "allow", "prefer"]

  /// Parses a URL; throws a message naming what is wrong, with the password masked.
  public init(_ text: String) throws {
    let shown = Self.masked(text)
    guard let c = URLComponents(string: text), c.scheme == "postgres" || c.scheme == "postgresql", let host = c.host, !host.isEmpty else {
      throw PostgresStoreError.badURL(shown, "expected postgres://user@host:port/database")
    }
    user = c.user ?? "postgres"
    password = c.password
    self.host = host
    port = c.port ?? 5432
    guard (1...65_535).contains(port) else { throw PostgresStoreError.badURL(shown, "invalid port \(port) (1 to 65535)") }
    let db = c.path.hasPrefix("/") ? String(c.path.dropFirst()) : c.path
    guard !db.isEmpty else { throw PostgresStoreError.badURL(shown, "the database name is missing") }
    database = db
    // A parameter is honoured or refused, never ignored: a user asking for TLS must not get
    // a plain connection.
    for item in c.queryItems ?? [] {
      switch (item.name, item.value ?? "") {
      case ("sslmode", let mode) where Self.plainSSLModes.contains(mode): continue
      case ("sslmode", let mode):
        throw PostgresStoreError.badURL(
          shown, "sslmode=\(mode) asks for TLS, which FetchBench's PostgreSQL store does not support; use a server it can reach without TLS"
        )
      default:
        throw PostgresStoreError.badURL(shown, "unsupported parameter '\(item.name)' (only sslmode=disable, allow or prefer)")
      }
    }
  }

  /// `text` with the password between `user:` and `@` replaced by `***`.
  static func masked(_ text: String) -> String {
    guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else { return text }
    let credentials = text[scheme.upperBound..<at]
    guard let colon = credentials.firstIndex(of: ":") else { return text }
    return String(text[..<colon]) + ":***" + String(text[at...])
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
  case disconnected(PostgresURL)

  public var description: String {
    switch self {
    case .badURL(let u, let m): "'\(u)' is not a PostgreSQL URL: \(m)"
    case .unreachable(let u, let m):
      "cannot connect to PostgreSQL at \(u.host):\(u.port) (database \(u.database)): \(m). Is the server running? `scripts/postgres start` starts a private one."
    case .schemaMismatch(let u, let m): "\(u) does not have the expected schema: \(m)"
    case .query(let u, let m, let sql): "\(u): query failed: \(m)\(sql.isEmpty ? "" : " (\(sql))")"
    case .disconnected(let u): "the connection to PostgreSQL at \(u.host):\(u.port) was closed (server restart or network); reconnect"
    }
  }
}
