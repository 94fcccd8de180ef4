// To-many relationships: each source row's destination rows, by the destination's foreign key
// or by a join table's rows, for the predicates that count them.
extension MemoryStore {
  /// Each source key's destination rows through `r` (live rows only), rebuilt only when the
  /// destination changed since. O(destination rows), or O(join rows) through a join table, to
  /// build; O(1) when cached.
  func elementRows(_ r: ToManyRelationship) -> [Int64: [Int32]] {
    let destination = tables[r.destination]!
    let name = "\(r.destination).\(r.name).\(r.link)"
    if let cached = elementCache[name], cached.version == destination.version { return cached.rows }
    let rows = Self.buildElementRows(r, destination, joinRows: joinRows)
    elementCache[name] = (destination.version, rows)
    return rows
  }

  /// Each source key's destination rows through `r`. O(destination rows or join rows).
  static func buildElementRows(
    _ r: ToManyRelationship, _ destination: MemoryTable, joinRows: [JoinTable: [(source: Int64, destination: Int64)]]
  ) -> [Int64: [Int32]] {
    var out: [Int64: [Int32]] = [:]
    switch r.link {
    case .foreignKey(let column):
      guard let i = destination.entity.attributes.firstIndex(where: { $0.column == column }) else { return [:] }
      let keys = destination.columns[i]
      for row in destination.liveRows where !keys.isNull(row) {
        out[keys.integers[row], default: []].append(Int32(row))
      }
      // An ordered relationship's elements by its order column, as the SQL stores read them.
      if let order = r.orderColumn, let o = destination.entity.attributes.firstIndex(where: { $0.column == order }) {
        let position = destination.columns[o]
        for key in out.keys {
          out[key]!.sort { a, b in
            let c = Value.compare(position.value(Int(a)), position.value(Int(b)))
            return c != 0 ? c < 0 : destination.ids[Int(a)] < destination.ids[Int(b)]
          }
        }
      }
    case .joinTable(let join):
      for (source, target) in joinRows[join] ?? [] {
        guard let row = destination.rowOfID[target] else { continue }
        out[source, default: []].append(Int32(row))
      }
    }
    return out
  }

  public func fetchElements(of relationship: ToManyRelationship, keys: [Int64]) throws -> [Int64: [FetchedObject]] {
    counters.queries += 1
    guard let destination = tables[relationship.destination] else {
      throw FetchError.unknownEntity(relationship.destination, known: tables.keys.sorted())
    }
    let elements = elementRows(relationship)
    let layout = RowLayout(
      keys: destination.entity.attributes.map(\.name), types: destination.entity.attributes.map(\.type))
    var out: [Int64: [FetchedObject]] = [:]
    for key in keys {
      guard let rows = elements[key], out[key] == nil else { continue }
      out[key] = rows.map { row in
        FetchedObject(
          id: destination.ids[Int(row)], values: destination.columns.map { $0.value(Int(row)) }, layout: layout)
      }
      counters.rowsMaterialized += rows.count
    }
    return out
  }

  /// A row test of `c`: how many of the row's elements count, compared as `c` says. Built in
  /// O(destination rows); each test O(the row's elements).
  func compileCollection(
    _ c: BoundCollection, _ t: MemoryTable, compile: (BoundPredicate, MemoryTable) -> RowTest
  ) -> RowTest {
    let destination = tables[c.relationship.destination]!
    let elements = elementRows(c.relationship)
    let isRow: RowTest = c.rows.map { compile($0, destination) } ?? { _ in true }
    let test: RowTest = c.test.map { compile($0, destination) } ?? { _ in nil }
    let key = t.entity.linkKey(column: c.relationship.sourceColumn)
    let read: (Int) -> Int64? = { row in
      switch key {
      case .id?: return t.ids[row]
      case .attribute(let i)?: return t.columns[i].isNull(row) ? nil : t.columns[i].integers[row]
      case nil: return nil
      }
    }
    return { row throws(FetchError) in
      var n: Int64 = 0
      for e in read(row).flatMap({ elements[$0] }) ?? [] {
        let d = Int(e)
        if c.counts(isRow: try isRow(d) == true, test: c.test == nil ? nil : try test(d)) { n += 1 }
      }
      return c.passes(n)
    }
  }
}
