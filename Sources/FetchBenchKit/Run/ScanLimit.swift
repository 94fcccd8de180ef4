import FetchedResults
import GRDBSQLite

/// SQLite's physical limit for an ID list: one scan per table of exactly the columns the sort
/// needs (no join, no ORDER BY), the to-one keys matched through a hash table, and the
/// standard library's sort (`Limit.sort`). What the store's ORDER BY over a LEFT JOIN costs
/// beyond it is SQLite's query plan, which an index can change.
struct ScanLimit {
  let raw: RawSQLite
  /// The sort keys but the ID: (relationship, column) each.
  let keys: [(relationship: Relationship?, column: String)]
  let ascending: [Bool]
  let entity: Entity
  let model: Model

  /// Nil when the request sorts by more than three keys or by a text key (ranks would be
  /// part of the limit; not measured yet).
  init?(_ raw: RawSQLite, request: ResolvedRequest) {
    let sorts = request.sorts.dropLast()
    guard sorts.count <= 3, request.predicate == nil,
      sorts.allSatisfy({ $0.keyPath.attribute.type != .string && $0.keyPath.attribute.name != "id" })
    else { return nil }
    self.raw = raw
    keys = sorts.map { ($0.keyPath.relationship, $0.keyPath.attribute.column) }
    ascending = sorts.map(\.ascending) + Array(repeating: true, count: 3 - sorts.count)
    entity = request.entity
    model = request.model
  }

  /// The timed work; returns the number of rows sorted.
  func run() throws -> Int {
    // The destination tables' key columns, flat, and their rows by join value.
    var joined: [String: (row: [Int64: Int32], columns: [[Double]])] = [:]
    for rel in Set(keys.compactMap(\.relationship?.name)) {
      let r = entity.relationship(rel)!
      let dest = try model.entity(r.destination)
      let names = keys.filter { $0.relationship?.name == rel }.map(\.column)
      var row: [Int64: Int32] = [:]
      var columns = Array(repeating: [Double](), count: names.count)
      let selected = ([r.destinationColumn] + names).map(\.sqlName).joined(separator: ", ")
      try scan("SELECT \(selected) FROM \(dest.table.sqlName)") { stmt in
        row[sqlite3_column_int64(stmt, 0)] = Int32(columns[0].count)
        for c in names.indices { columns[c].append(Self.number(stmt, Int32(c + 1))) }
      }
      joined[rel] = (row, columns)
    }
    let own = keys.filter { $0.relationship == nil }.map(\.column)
    let links = Array(Set(keys.compactMap { $0.relationship?.sourceColumn }))
    let selected = [entity.primaryKey] + links + own
    // Where each key comes from: an own column, or a joined table's column through a link.
    let plan: [(link: Int32?, rel: String?, column: Int32)] = keys.map { key in
      guard let rel = key.relationship else {
        return (nil, nil, Int32(1 + links.count + own.firstIndex(of: key.column)!))
      }
      let names = keys.filter { $0.relationship?.name == rel.name }.map(\.column)
      return (Int32(1 + links.firstIndex(of: rel.sourceColumn)!), rel.name, Int32(names.firstIndex(of: key.column)!))
    }
    let tables = plan.map { $0.rel.map { joined[$0]! } }
    var items: [Limit.Item] = []
    try scan("SELECT \(selected.map(\.sqlName).joined(separator: ", ")) FROM \(entity.table.sqlName)") { stmt in
      var k = (0.0, 0.0, 0.0)
      for (i, p) in plan.enumerated() {
        let v: Double
        if let link = p.link, let table = tables[i] {
          v = table.row[sqlite3_column_int64(stmt, link)].map { table.columns[Int(p.column)][Int($0)] } ?? -.infinity
        } else {
          v = Self.number(stmt, p.column)
        }
        switch i {
        case 0: k.0 = v
        case 1: k.1 = v
        default: k.2 = v
        }
      }
      items.append(Limit.Item(k0: k.0, k1: k.1, k2: k.2, id: sqlite3_column_int64(stmt, 0), position: 0))
    }
    Limit.sort(&items, ascending: ascending)
    return items.count
  }

  private func scan(_ text: String, _ row: (OpaquePointer) -> Void) throws {
    let stmt = try raw.prepare(text)
    defer { sqlite3_finalize(stmt) }
    while sqlite3_step(stmt) == SQLITE_ROW { row(stmt) }
  }

  /// A numeric column as a double, null below every value.
  private static func number(_ stmt: OpaquePointer, _ i: Int32) -> Double {
    sqlite3_column_type(stmt, i) == SQLITE_NULL ? -.infinity : sqlite3_column_double(stmt, i)
  }
}
