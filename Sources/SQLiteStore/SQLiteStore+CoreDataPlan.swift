import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

// The Core Data plan (`StatementPlan.coreData`): the statements Core Data issues, run as it
// runs them (`CoreDataStatements`).
extension SQLiteStore {
  /// The ID query; the order among rows with equal sort keys is SQLite's. One statement.
  func coreDataIDs(_ request: ResolvedRequest) throws -> [Int64] {
    let sql = statements(request)
    var ids: [Int64] = []
    try stepRows(sql.idQuery, sql.arguments) { ids.append(sqlite3_column_int64($0, 1)) }
    return ids
  }

  /// The grouped count of distinct objects per section key. One statement.
  func coreDataSectionCounts(_ request: ResolvedRequest) throws -> [SectionCount] {
    guard let section = request.section else {
      throw FetchError.invalidRequest("section counts need a section key path")
    }
    let sql = statements(request)
    var out: [SectionCount] = []
    try stepRows(sql.sectionQuery, sql.arguments) { raw in
      out.append(
        SectionCount(value: Self.rawValue(raw, 0, section.attribute.type), count: Int(sqlite3_column_int64(raw, 1))))
    }
    return out
  }

  func coreDataCount(_ request: ResolvedRequest) throws -> Int {
    let sql = statements(request)
    var n = 0
    try stepRows(sql.countQuery, sql.arguments) { n = Int(sqlite3_column_int64($0, 0)) }
    return n
  }

  /// A batch: the rows' own columns by ID, then one statement per prefetched relationship.
  func coreDataObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
    let sql = statements(request)
    var rows: [(id: Int64, values: [Value])] = []
    try stepRows(sql.batchQuery(count: ids.count), ids.map { .integer($0) }) { rows.append(ownRow($0, request.entity)) }
    return try withPrefetched(rows, request)
  }

  /// A full fetch: every row's own columns in order, then one statement per prefetched
  /// relationship, its keys bound as one array when they are many.
  func coreDataObjects(_ request: ResolvedRequest) throws -> [FetchedObject] {
    let sql = statements(request)
    var rows: [(id: Int64, values: [Value])] = []
    try stepRows(sql.fullQuery, sql.arguments) { rows.append(ownRow($0, request.entity)) }
    return try withPrefetched(rows, request)
  }

  /// A relationship fault as Core Data fires it: the destination's row by one key. One
  /// statement.
  func coreDataDestination(of relationship: Relationship, key: Int64) throws -> [Value]? {
    let destination = try model.entity(relationship.destination)
    let versioned = isVersioned(destination.table)
    let sql = CoreDataStatements.faultQuery(destination, matching: relationship.destinationColumn, versioned: versioned)
    let first = Int32(2 + (versioned ? 1 : 0))
    var out: [Value]?
    try stepRows(sql, [.integer(key)]) { raw in
      out = destination.attributes.enumerated().map { i, a in Self.rawValue(raw, first + Int32(i), a.type) }
    }
    if out != nil { counters.rowsMaterialized += 1 }
    return out
  }

  private func statements(_ request: ResolvedRequest) -> CoreDataStatements {
    if let cached = coreDataCache, cached.request == request.request { return cached.statements }
    let statements = CoreDataStatements(request, versioned: isVersioned(request.entity.table))
    coreDataCache = (request.request, statements)
    return statements
  }

  /// Core Data's save statements when the file is a Core Data store: each entity of the model
  /// that `Z_PRIMARYKEY` names and whose table has `Z_OPT` keeps Core Data's bookkeeping on
  /// every write. nil for any other file. Read once, outside any transaction; O(entities).
  public func coreDataSave() throws -> CoreDataSave? {
    if let known = coreDataSaveRead { return known }
    let numbers = try queue.inDatabase { db -> [String: Int64] in
      guard try db.tableExists("Z_PRIMARYKEY") else { return [:] }
      var out: [String: Int64] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY") {
        guard let name = String.fromDatabaseValue(row[0]), let number = Int64.fromDatabaseValue(row[1]) else {
          continue
        }
        out[name] = number
      }
      return out
    }
    let kept = numbers.filter { name, _ in (try? model.entity(name)).map { isVersioned($0.table) } ?? false }
    let save = kept.isEmpty ? nil : CoreDataSave(entityNumbers: kept)
    coreDataSaveRead = .some(save)
    return save
  }

  /// Whether `table` has Core Data's `Z_OPT` column, which its statements select.
  func isVersioned(_ table: String) -> Bool {
    if let known = versionedTables[table] { return known }
    let versioned =
      (try? read { db in try SQLiteSchema.columns(in: table, db).contains { $0.name == "Z_OPT" } }) ?? false
    versionedTables[table] = versioned
    return versioned
  }

  /// The ID and own attribute values of the current row of a Core Data statement
  /// (`0, pk, [Z_OPT], columns…`).
  private func ownRow(_ raw: OpaquePointer, _ entity: Entity) -> (id: Int64, values: [Value]) {
    let first = Int32(sqlite3_column_count(raw)) - Int32(entity.attributes.count)
    return (
      sqlite3_column_int64(raw, 1),
      entity.attributes.enumerated().map { i, a in Self.rawValue(raw, first + Int32(i), a.type) }
    )
  }

  /// The rows with each prefetched relationship's attributes appended, read by one statement
  /// per relationship; counted as the store's materialized rows.
  private func withPrefetched(_ rows: [(id: Int64, values: [Value])], _ request: ResolvedRequest) throws
    -> [FetchedObject]
  {
    var values = rows.map(\.values)
    for rel in request.prefetch {
      let destination = try request.model.entity(rel.destination)
      guard let link = request.entity.linkKey(of: rel) else {
        throw FetchError.invalidRequest(
          "\(request.entity.name).\(rel.name): its key \(rel.sourceColumn) is not a column the entity reads")
      }
      let keys = rows.map { link.key(id: $0.id, values: $0.values) }
      let related = try prefetch(destination, matching: rel.destinationColumn, keys: keys.compactMap { $0 })
      let empty = [Value](repeating: .null, count: destination.attributes.count)
      for i in rows.indices { values[i] += keys[i].flatMap { related[$0] } ?? empty }
    }
    let layout = request.rowLayout
    counters.rowsMaterialized += rows.count
    return rows.indices.map { FetchedObject(id: rows[$0].id, values: values[$0], layout: layout) }
  }

  /// `destination`'s rows whose `column` is one of `keys`, by that column's value. One
  /// statement: up to 999 keys bound one by one, more as one array (Core Data binds a long
  /// list as an int array, `_Z_intarray0`; here a JSON array read by `json_each`).
  private func prefetch(_ destination: Entity, matching column: String, keys: [Int64]) throws -> [Int64: [Value]] {
    guard !keys.isEmpty else { return [:] }
    let versioned = isVersioned(destination.table)
    let many = keys.count > 999
    let sql = CoreDataStatements.prefetchQuery(
      destination, matching: column, count: many ? nil : keys.count, versioned: versioned)
    let arguments: [Value] =
      many ? [.string("[" + keys.map(String.init).joined(separator: ",") + "]")] : keys.map { .integer($0) }
    var out: [Int64: [Value]] = [:]
    let first = Int32(2 + (versioned ? 1 : 0))
    let keyColumn =
      column == destination.primaryKey
      ? 1 : first + Int32(destination.attributes.firstIndex { $0.column == column } ?? destination.attributes.count)
    try stepRows(sql, arguments) { raw in
      let key = sqlite3_column_int64(raw, keyColumn)
      out[key] = destination.attributes.enumerated().map { i, a in Self.rawValue(raw, first + Int32(i), a.type) }
    }
    return out
  }
}
