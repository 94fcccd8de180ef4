#if PostgreSQL
  import FetchedResults
  import Foundation
  import Logging
  import NIOPosix
  import PostgresNIO
  import SQLQueries

  // Writes: one transaction per commit, logged and notified.
  extension PostgresStore {
    /// Runs `operations` in one transaction (BEGIN … COMMIT; on any error ROLLBACK, and
    /// nothing of it is logged or seen), appends it to the change log and notifies the
    /// channel, then delivers every logged transaction not yet delivered, this one included,
    /// to the observers in sequence order. One statement per insert, update or delete (each
    /// returns the row's values from before it, as Core Data's committed values), plus 4, and
    /// the log's read when the store has observers; sent in two pipelined groups (`send`): the
    /// writes, then the log and the COMMIT, which need what the writes returned.
    @discardableResult
    public func commit(_ operations: [WriteOperation]) throws -> StoreTransaction {
      var recorder = ChangeRecorder()
      let sequence: Int
      do {
        var writes: [PendingWrite] = []
        let begin = try send("BEGIN", [])
        for op in operations { if let w = try send(op) { writes.append(w) } }
        // The lock makes sequence order commit order: it is held until COMMIT, so a later
        // number is never visible before an earlier one (an observer reading `seq > n` could
        // otherwise skip a transaction still in flight). It is taken last, so writers only
        // serialize their final statements.
        let lock = try send("SELECT pg_advisory_xact_lock(hashtext('\(Self.changeLog)'))", [])
        // Every statement is waited for, so none is left in flight when one fails.
        let failure = waitForAll([begin] + writes.map(\.sent) + [lock])
        if let failure { throw failure }
        for w in writes { try w.record(&recorder) }
        let out = UncheckedBox(0)
        let log = try send(
          """
          WITH ins AS (INSERT INTO \(Self.changeLog) (seq, committed_at, payload) \
          SELECT COALESCE(MAX(seq), 0) + 1, $1, $2 FROM \(Self.changeLog) RETURNING seq) \
          SELECT seq, pg_notify('\(Self.changeLog)', seq::text) FROM ins
          """,
          [.double(Date().timeIntervalSince1970), .string(TransactionCodec.encode(recorder.changes))]
        ) { row in out.value = Int(try row[0].decode(Int64.self)) }
        let commit = try send("COMMIT", [])
        if let failure = waitForAll([log, commit]) { throw failure }
        counters.commits += 1
        sequence = out.value
      } catch {
        try? run("ROLLBACK", []) { _ in }
        throw error
      }
      if !observers.isEmpty { try pollChanges() }
      return StoreTransaction(sequence: sequence, changes: recorder.changes)
    }

    /// A write sent and not yet waited for, and what records its change once it has returned.
    struct PendingWrite {
      let sent: Sent
      let record: (inout ChangeRecorder) throws -> Void
    }

    /// Waits for every statement, in order; the first error, if any.
    func waitForAll(_ statements: [Sent]) -> (any Error)? {
      var first: (any Error)?
      for s in statements {
        do { try wait(s) } catch { first = first ?? error }
      }
      return first
    }

    /// The write of `op`, sent; nil for an update that sets nothing, which sends no statement.
    func send(_ op: WriteOperation) throws -> PendingWrite? {
      switch op {
      case .insert(let name, let values): try insert(name, values)
      case .update(let name, let id, let values): try update(name, id, values)
      case .delete(let name, let id): try delete(name, id)
      }
    }

    /// One INSERT … RETURNING the new row's ID; its links recorded for observers.
    private func insert(_ name: String, _ values: [String: Value]) throws -> PendingWrite {
      let entity = try model.entity(name)
      // Without an ID the table's identity column numbers the row.
      let insert = try WriteSQL.statement(.insert(entity: name, values: values), model: model, dialect: .postgres)
      let out = UncheckedBox<Int64>(0)
      counters.queries += 1
      let sent = try send("\(insert.sql) RETURNING \(entity.primaryKey)", insert.arguments) { row in
        out.value = try row[0].decode(Int64.self)
      }
      var links: [String: Value] = [:]
      for a in model.linkAttributes(of: entity) { links[a.name] = values[a.name] ?? .null }
      return PendingWrite(sent: sent) { recorder in recorder.inserted(name, out.value, links: links) }
    }

    /// One statement that reads the old values and writes the new ones; only the attributes
    /// whose value really changes are reported, as Core Data's changedValues().
    private func update(_ name: String, _ id: Int64, _ values: [String: Value]) throws -> PendingWrite? {
      let entity = try model.entity(name)
      var keys: [String] = []
      for key in values.keys.sorted() {
        guard entity.attribute(key) != nil else {
          throw FetchError.unknownKeyPath(key, entity: name, known: entity.attributes.map(\.name))
        }
        keys.append(key)
      }
      guard !keys.isEmpty else { return nil }
      // The same read gives the link attributes. One statement: the CTE
      // locks the row and reads its committed values (FOR UPDATE waits for a concurrent
      // writer and returns the row as it left it), and the UPDATE joins on it, so the row is
      // locked before it is written and RETURNING gives the values from before the write.
      // The CTE's columns are renamed: a link attribute may also be one of the updated ones.
      let linkAttributes = model.linkAttributes(of: entity)
      let read = keys.map { entity.attribute($0)! } + linkAttributes
      let table = entity.table.sqlName
      let key = entity.primaryKey.sqlName
      let sets = keys.enumerated().map { i, k in "\(entity.attribute(k)!.column.sqlName) = $\(i + 2)" }
      let old = UncheckedBox<[Value]?>(nil)
      counters.queries += 1
      let sent = try send(
        """
        WITH o AS (SELECT \(key) AS k, \
        \(read.enumerated().map { "\($1.column.sqlName) AS v\($0)" }.joined(separator: ",")) \
        FROM \(table) WHERE \(key) = $1 FOR UPDATE) \
        UPDATE \(table) AS t SET \(sets.joined(separator: ", ")) FROM o WHERE t.\(key) = o.k \
        RETURNING \(read.indices.map { "o.v\($0)" }.joined(separator: ","))
        """,
        [.integer(id)] + keys.map { values[$0]! }
      ) { row in old.value = try read.enumerated().map { i, a in try Self.value(row[i], a.type) } }
      return PendingWrite(sent: sent) { recorder in
        guard let before = old.value else { throw FetchError.store("\(name): no row with id \(id) to update") }
        var changed: [String: Value] = [:]
        for (i, k) in keys.enumerated() where before[i] != values[k]! { changed[k] = before[i] }
        recorder.updated(name, id, old: changed)
        if !changed.isEmpty {
          var links: [String: Value] = [:]
          for (j, a) in linkAttributes.enumerated() { links[a.name] = values[a.name] ?? before[keys.count + j] }
          recorder.linked(name, id, links)
        }
      }
    }

    /// One DELETE … RETURNING the row as deleted: observers need its foreign keys to find who
    /// pointed at it.
    private func delete(_ name: String, _ id: Int64) throws -> PendingWrite {
      let entity = try model.entity(name)
      let old = UncheckedBox<[String: Value]?>(nil)
      counters.queries += 1
      let sent = try send(
        """
        DELETE FROM \(entity.table.sqlName) WHERE \(entity.primaryKey.sqlName) = $1 RETURNING \
        \(entity.attributes.map(\.column.sqlName).joined(separator: ","))
        """,
        [.integer(id)]
      ) { row in
        var values: [String: Value] = [:]
        for (i, a) in entity.attributes.enumerated() { values[a.name] = try Self.value(row[i], a.type) }
        old.value = values
      }
      let linkNames = Set(model.linkAttributes(of: entity).map(\.name))
      return PendingWrite(sent: sent) { recorder in
        guard let values = old.value else { throw FetchError.store("\(name): no row with id \(id) to delete") }
        recorder.deleted(name, id, old: values)
        recorder.linked(name, id, values.filter { linkNames.contains($0.key) })
      }
    }
  }
#endif
