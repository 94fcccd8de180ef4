import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

// Change tracking: keys of affected rows, and rows related through a to-one key.
extension SQLiteStore {

  public func fetchKeyedIDs(_ request: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs {
    if plan == .coreData { try coreDataTrackedFetch(request, listing: ids == nil) }
    let sql = SQLBuilder(request)
    let types = request.sorts.dropLast().map(\.keyPath.attribute.type)
    var out = KeyedIDs(ids: [], keys: Array(repeating: [], count: types.count))
    func run(_ text: String, _ ids: [Int64]) throws {
      try read { db in
        let statement = try db.cachedStatement(sql: text)
        statement.setUncheckedArguments(StatementArguments(sql.arguments.map(Self.databaseValue)))
        counters.queries += 1
        if plan == .coreData { counters.ownQueries += 1 }
        // IDs bound and rows read through the C API: at k = 100 GRDB's per-value conversions
        // were half of a change set's cost.
        let raw = statement.sqliteStatement
        let first = Int32(sql.arguments.count)
        for (j, id) in ids.enumerated() { sqlite3_bind_int64(raw, first + Int32(j) + 1, id) }
        while true {
          let rc = sqlite3_step(raw)
          if rc == SQLITE_DONE { break }
          guard rc == SQLITE_ROW else {
            throw DatabaseError(
              resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
          }
          out.ids.append(sqlite3_column_int64(raw, 0))
          for (d, t) in types.enumerated() { out.keys[d].append(Self.rawValue(raw, Int32(d + 1), t)) }
        }
        sqlite3_reset(raw)
      }
    }
    guard let ids else {
      try run(sql.keyQuery, [])
      return out
    }
    for chunk in Self.idChunks(ids) { try run(sql.keysByIDQuery(count: chunk.count), chunk) }
    return out
  }

  /// Under Core Data's plan, what a tracked fetch issues before FetchBench's own key query:
  /// a batched list's ID query (and its grouped section count) as Core Data issues it (a full
  /// fetch's rows were its statement already), then a note in the statement log that the key
  /// query is FetchBench's own. Changed rows' keys (`listing` false) are FetchBench's alone.
  func coreDataTrackedFetch(_ request: ResolvedRequest, listing: Bool) throws {
    if listing && request.request.fetchBatchSize > 0 {
      _ = try coreDataIDs(request)
      if request.section != nil { _ = try coreDataSectionCounts(request) }
    }
    ownStatementFollows(listing ? "the list's sort keys" : "the sort keys of changed objects")
  }

  /// Names the next statement in `--sql-debug`'s log as FetchBench's own.
  func ownStatementFollows(_ what: String) {
    statementLog?.annotate(
      "FetchBench's own statement, not Core Data's: \(what), which its change tracking keeps (Core Data reads "
        + "them from its objects)")
  }

  /// IDs for `IN (?,…)` lists: at most 8,192 per statement (SQLite allows 32,766 variables),
  /// each list padded to a power of two by repeating its last ID, so that a few cached
  /// statements serve every size.
  static func idChunks(_ ids: [Int64]) -> [[Int64]] {
    stride(from: 0, to: ids.count, by: 8_192).map { start in
      var chunk = Array(ids[start..<min(ids.count, start + 8_192)])
      var size = 8
      while size < chunk.count { size *= 2 }
      chunk += Array(repeating: chunk.last!, count: size - chunk.count)
      return chunk
    }
  }

  public func relatedIDs(_ request: ResolvedRequest, through relationship: Relationship, destinationIDs: [Int64]) throws
    -> [Int64]
  {
    let dest = try model.entity(relationship.destination)
    var out: [Int64] = []
    for chunk in Self.idChunks(destinationIDs) {
      let text = SQLBuilder.relatedIDsQuery(
        request, through: relationship, destination: dest, count: chunk.count, dialect: .sqlite)
      if plan == .coreData { ownStatementFollows("the rows related to changed objects") }
      out += try read { db in
        counters.queries += 1
        if plan == .coreData { counters.ownQueries += 1 }
        return try Int64.fetchAll(db.cachedStatement(sql: text), arguments: StatementArguments(chunk))
      }
    }
    return out
  }

  static func databaseValue(_ v: Value) -> DatabaseValue {
    switch v {
    case .null: .null
    case .integer(let i): i.databaseValue
    case .double(let d), .date(let d): d.databaseValue
    case .string(let s): s.databaseValue
    case .bool(let b): (b ? 1 : 0 as Int64).databaseValue
    }
  }
}
