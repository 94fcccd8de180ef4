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

  func write(_ op: WriteOperation, _ recorder: inout ChangeRecorder) throws {
    switch op {
    case .insert(let name, let values): try insert(name, values, &recorder)
    case .update(let name, let id, let values): try update(name, id, values, &recorder)
    case .delete(let name, let id): try delete(name, id, &recorder)
    }
  }

  /// One INSERT … RETURNING the new row's ID; its links recorded for observers.
  private func insert(_ name: String, _ values: [String: Value], _ recorder: inout ChangeRecorder) throws {
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
  }

  /// One statement that reads the old values and writes the new ones; only the attributes
  /// whose value really changes are reported, as Core Data's changedValues().
  private func update(_ name: String, _ id: Int64, _ values: [String: Value], _ recorder: inout ChangeRecorder) throws {
    let entity = try model.entity(name)
    var keys: [String] = []
    for key in values.keys.sorted() {
      guard entity.attribute(key) != nil else {
        throw FetchError.unknownKeyPath(key, entity: name, known: entity.attributes.map(\.name))
      }
      keys.append(key)
    }
    guard !keys.isEmpty else { return }
    // The same read gives the link attributes. One statement: the CTE
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
  }

  /// One DELETE … RETURNING the row as deleted: observers need its foreign keys to find who
  /// pointed at it.
  private func delete(_ name: String, _ id: Int64, _ recorder: inout ChangeRecorder) throws {
    let entity = try model.entity(name)
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
