#if PostgreSQL
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
  public final class PostgresStore: ChangeLogStore {
    public let model: Model
    public let url: PostgresURL
    public internal(set) var counters = StoreCounters()
    public let observers = TransactionObservers()
    var connection: PostgresConnection
    let logger = Logger(label: "fetchbench.postgres")
    /// The last change-log sequence number delivered to this store's observers.
    /// Where this connection's observers are in the change log.
    var cursor = ChangeLogCursor(after: 0)
    /// The sequence number of the last logged transaction delivered to the observers.
    public var deliveredSequence: Int { cursor.delivered }
    /// Statements prepared on this connection, by SQL text.
    var prepared: [String: PreparedQuery] = [:]
    let signal = NotificationSignal()
    var listenContext: PostgresListenContext?
    var closed = false
    /// The user's schema this store reads, read-only; nil for a dataset FetchBench loaded.
    public let userSchema: String?
    /// `--sql-debug`'s log of every statement this store sends once it is open; nil when it is off.
    var statementLog: StatementLog?

    /// Connects and checks that every entity's table and columns exist with the model's types.
    /// Connects (giving up after `PostgresURL.connectTimeout`), checks that every entity's
    /// table and columns exist with the model's types, and starts listening for the change
    /// log's notifications; observers see transactions committed from now on.
    public init(url: PostgresURL, model: Model) throws {
      self.model = model
      self.url = url
      userSchema = nil
      connection = try Self.connect(url, logger: logger)
      try checkSchema()
      try listen()
      cursor = ChangeLogCursor(after: try logHead())
      statementLog = StatementLog.forStore()
    }

    /// A store over a user's own schema: tables are found through `search_path`, and there is
    /// no change log. Columns keep their own types (integer, numeric, varchar, timestamp…):
    /// their values are converted as rows arrive. `readOnly`: every transaction of the session
    /// is read-only, so the server refuses any write (false only for FetchBench's own copy,
    /// where the index trials drop indexes inside transactions they roll back).
    public init(url: PostgresURL, model: Model, userSchema schema: String, readOnly: Bool = true) throws {
      self.model = model
      self.url = url
      userSchema = schema
      connection = try Self.connect(url, logger: logger)
      try run("SET search_path TO \"\(schema.replacingOccurrences(of: "\"", with: "\"\""))\"", []) { _ in }
      if readOnly { try run("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", []) { _ in } }
      try checkSchema()
      statementLog = StatementLog.forStore()
    }

    deinit { close() }

    /// Closes the connection; the store cannot be used afterwards. Idempotent.
    public func close() {
      guard !closed else { return }
      closed = true
      listenContext?.stop()
      // The last reference can go on the connection's own event loop (a row callback that
      // captured the store, released after the query), where waiting would deadlock and NIO
      // traps: close there without waiting.
      if connection.eventLoop.inEventLoop {
        connection.close().whenComplete { _ in }
      } else {
        try? connection.close().wait()
      }
    }

    /// Runs a closure on the connection's event loop and waits for it, without holding the
    /// store: for tests of a store released there.
    package var runOnEventLoop: @Sendable (@escaping @Sendable () -> Void) throws -> Void {
      let loop = connection.eventLoop
      return { body in try loop.submit(body).wait() }
    }

    static func connect(_ url: PostgresURL, logger: Logger) throws -> PostgresConnection {
      var configuration = PostgresConnection.Configuration(
        host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
        tls: .disable)
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

    func listen() throws {
      let signal = self.signal
      listenContext = connection.addListener(channel: Self.changeLog) { _, _ in signal.post() }
      // The listener sends LISTEN itself; a round trip makes sure it is registered before
      // this store reads the log head, so no commit falls between the two.
      try run("SELECT 1", []) { _ in }
    }

    func logHead() throws -> Int {
      let out = UncheckedBox(0)
      do {
        try run(ChangeLogSQL.head, []) { row in out.value = Int(try row[0].decode(Int64.self)) }
      } catch {
        throw PostgresStoreError.schemaMismatch(
          url,
          """
          the change log (table \(Self.changeLog)) is missing; load the dataset with `fetchbench generate --store \
          postgres`
          """
        )
      }
      return out.value
    }

    func checkSchema() throws {
      for entity in model.entities {
        var columns: [String: String] = [:]
        try run(
          "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2",
          // Unquoted names are folded to lower case: `ZFLIGHT` is created as zflight.
          [.string(userSchema ?? "public"), .string(entity.table.postgresStoredName)]
        ) { row in
          columns[try row[0].decode(String.self)] = try row[1].decode(String.self)
        }
        guard !columns.isEmpty else {
          throw PostgresStoreError.schemaMismatch(
            url,
            """
            table \(entity.table) (entity \(entity.name)) is missing; load a dataset with `fetchbench generate \
            --store postgres`
            """
          )
        }
        for a in entity.attributes {
          guard let type = columns[a.column.postgresStoredName] else {
            throw PostgresStoreError.schemaMismatch(
              url, "column \(entity.table).\(a.column) (attribute \(entity.name).\(a.name)) is missing")
          }
          let expected = Self.columnType(a.type)
          // A user's columns were read from this schema: their own types are converted.
          guard type == expected || userSchema != nil else {
            throw PostgresStoreError.schemaMismatch(
              url, "column \(entity.table).\(a.column) is \(type), the model expects \(expected)")
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

  }
#endif
