#if PostgreSQL
  import FetchedResults
  import Foundation
  import Logging
  import NIOPosix
  import PostgresNIO
  import SQLQueries

  // Running statements: prepared, bound, rows decoded on the event loop as they arrive.
  extension PostgresStore {

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
      guard let ids, arguments.isEmpty else { return try wait(send(sql, arguments, ids: ids, onRow: onRow)) }
      // postgres-nio 1.33 never completes a query sent on a connection the server has closed
      // (its future is left pending), so a dropped connection is checked for first.
      guard !connection.isClosed else { throw PostgresStoreError.disconnected(url) }
      let sent = Sent(sql: sql, binds: 1, onRow: onRow)
      counters.roundTrips += 1
      do {
        let statement = try preparedStatement(sql)
        let array = PostgresData(array: ids.map { PostgresData(int64: $0) }, elementType: .int8)
        sent.future = statement.execute([array]) { try sent.received($0, binary: true) }
      } catch {
        sent.future = connection.eventLoop.makeFailedFuture(error)
      }
      try wait(sent)
    }

    /// A statement sent and not yet waited for: its rows go to `onRow` on the event loop as
    /// they arrive.
    final class Sent: @unchecked Sendable {
      let sql: String
      let binds: Int
      let onRow: (ResultCells) throws -> Void
      let started = DispatchTime.now().uptimeNanoseconds
      var future: EventLoopFuture<Void>?
      var rows = 0
      let bytes = UncheckedBox(0)

      init(sql: String, binds: Int, onRow: @escaping (ResultCells) throws -> Void) {
        self.sql = sql
        self.binds = binds
        self.onRow = onRow
      }

      /// A DataRow message: type byte, length and column count here; a length and the bytes
      /// per column as the callback reads the cells.
      func received(_ row: PostgresRow, binary: Bool) throws {
        bytes.value += 7
        rows += 1
        try onRow(ResultCells(row: row, binary: binary, bytes: bytes))
      }
    }

    /// Sends `sql` with `arguments` (and `ids` as a bigint[] parameter after them) without
    /// waiting: postgres-nio queues it on the connection and sends it when the server is ready
    /// for it, so the statements of one transaction follow each other with no thread waking
    /// between them. One round trip on the wire each; `wait` for each, in order.
    func send(
      _ sql: String, _ arguments: [Value], ids: [Int64]? = nil, onRow: @escaping (ResultCells) throws -> Void = { _ in }
    ) throws -> Sent {
      guard !connection.isClosed else { throw PostgresStoreError.disconnected(url) }
      let sent = Sent(sql: sql, binds: arguments.count + (ids == nil ? 0 : 1), onRow: onRow)
      counters.roundTrips += 1
      var binds = PostgresBindings()
      for v in arguments { Self.bind(v, &binds, datesAsTimestamps: userSchema != nil) }
      if let ids { binds.append(ids) }
      sent.future = connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
        try sent.received($0, binary: false)
      }
      .map { _ in }
      return sent
    }

    /// Waits for a statement sent by `send`; its rows have reached `onRow` when this returns.
    func wait(_ sent: Sent) throws {
      defer {
        counters.bytesReceived += sent.bytes.value
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - sent.started) / 1e9
        statementLog?.record(sql: sent.sql, binds: sent.binds, rows: sent.rows, seconds: seconds)
      }
      do {
        try sent.future!.wait()
      } catch let error as PostgresStoreError {
        throw error
      } catch {
        throw PostgresStoreError.query(url, Self.describe(error), sent.sql)
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

    func preparedStatement(_ sql: String) throws -> PreparedQuery {
      if let p = prepared[sql] { return p }
      counters.roundTrips += 1
      let p = try connection.prepare(query: sql).wait()
      prepared[sql] = p
      return p
    }

    /// `datesAsTimestamps`: a user's own schema, whose date columns are timestamps and whose
    /// booleans are `boolean` (FetchBench's own tables hold seconds and integers).
    static func bind(_ v: Value, _ binds: inout PostgresBindings, datesAsTimestamps: Bool = false) {
      switch v {
      case .null: binds.appendNull()
      case .integer(let i): binds.append(i)
      case .date(let d) where datesAsTimestamps: binds.append(Date(timeIntervalSince1970: d))
      case .double(let d), .date(let d): binds.append(d)
      case .string(let s): binds.append(s)
      case .bool(let b) where datesAsTimestamps: binds.append(b)
      case .bool(let b): binds.append(Int64(b ? 1 : 0))
      }
    }

    /// An int8 cell (IDs, counts), read straight from its bytes when binary.
    @inline(__always)
    static func int64(_ cell: PostgresCell) throws -> Int64 {
      if cell.format == .binary, cell.dataType == .int8, var b = cell.bytes, b.readableBytes == 8,
        let v = b.readInteger(as: Int64.self)
      {
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
      switch (t, cell.dataType) {
      case (.string, _): return .string(try cell.decode(String.self))
      case (.integer, _): return .integer(try cell.decode(Int64.self))
      case (.bool, .bool): return .bool(try cell.decode(Bool.self))
      case (.bool, _): return .bool(try cell.decode(Int64.self) != 0)
      // A user's own column types (`init(url:model:userSchema:readOnly:)`).
      case (.double, .numeric): return .double(NSDecimalNumber(decimal: try cell.decode(Decimal.self)).doubleValue)
      case (.date, .timestamp), (.date, .timestamptz), (.date, .date):
        return .date(try cell.decode(Date.self).timeIntervalSince1970)
      case (.double, _): return .double(try cell.decode(Double.self))
      case (.date, _): return .date(try cell.decode(Double.self))
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
        return
          """
          cannot decode column \(e.columnIndex) (\(e.columnName), \(e.postgresType), \(e.postgresFormat)) as \
          \(e.targetType): \(e.code)
          """
      }
      return String(describing: error)
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
#endif
