// To-one joins for sorting through a relationship: a row's related row, kept per relationship.
extension MemoryStore {
  /// Each row of `t`'s destination row through the to-one `rel` (-1: none), rebuilt only when
  /// either table changed since. O(rows) to build, O(1) when cached.
  func joinRows(_ rel: Relationship, _ t: MemoryTable) -> [Int32] { joinColumn(rel, t).rows }

  /// A to-one join at two tables' versions: each source row's destination row (-1: none),
  /// and, once a sort has asked (`joinColumn(_:_:inverse:)`) and the join pairs every row of
  /// both tables one to one (a total one-to-one, no row deleted), each destination row's
  /// source row: a key read through such a join can be read in the destination's order and
  /// scattered, instead of gathered from the destination at random, which past the caches
  /// costs a miss per row.
  struct JoinColumn {
    var source: Int
    var destination: Int
    var rows: [Int32]
    var sources: [Int32]?
    /// Whether `sources` was looked for: a join rebuilt after a write does not pay the
    /// inverse's pass until a sort needs it.
    var inverseChecked = false
  }

  /// The join column of `rel` if neither table changed since it was built. O(1).
  func currentJoin(_ rel: Relationship, _ t: MemoryTable) -> JoinColumn? {
    guard let c = joinCache["\(t.entity.name).\(rel.name)"], c.source == t.version,
      c.destination == tables[rel.destination]!.version
    else { return nil }
    return c
  }

  /// The join column of `rel` (`JoinColumn`), with its inverse looked for when `inverse`;
  /// rebuilt only when either table changed since. O(rows) to build or to add the inverse,
  /// O(1) when cached.
  func joinColumn(_ rel: Relationship, _ t: MemoryTable, inverse: Bool = false) -> JoinColumn {
    var c: JoinColumn
    if let current = currentJoin(rel, t) {
      guard inverse, !current.inverseChecked else { return current }
      c = current
    } else {
      c = JoinColumn(
        source: t.version, destination: tables[rel.destination]!.version, rows: Self.buildJoinRows(rel, t, tables))
    }
    if inverse {
      c.sources = Self.bijectionInverse(c.rows, t, tables[rel.destination]!)
      c.inverseChecked = true
    }
    joinCache["\(t.entity.name).\(rel.name)"] = c
    return c
  }

  /// Each row of `t`'s destination row through `rel` (-1: none). O(rows).
  static func buildJoinRows(_ rel: Relationship, _ t: MemoryTable, _ tables: [String: MemoryTable]) -> [Int32] {
    let index = tables[rel.destination]!.uniqueIndex(onColumn: rel.destinationColumn)
    var rows = [Int32](repeating: -1, count: t.ids.count)
    if rel.sourceColumn == t.entity.primaryKey {
      for r in t.ids.indices { rows[r] = index[t.ids[r]].map(Int32.init) ?? -1 }
    } else if let i = t.entity.attributes.firstIndex(where: { $0.column == rel.sourceColumn }) {
      let column = t.columns[i]
      for r in t.ids.indices where !column.isNull(r) { rows[r] = index[column.integers[r]].map(Int32.init) ?? -1 }
    }
    return rows
  }

  /// Each destination row's source row when `rows` (a join from `t` to `dest`) pairs every
  /// row of both one to one with none deleted; nil otherwise. O(rows).
  static func bijectionInverse(_ rows: [Int32], _ t: MemoryTable, _ dest: MemoryTable) -> [Int32]? {
    guard t.deadCount == 0, dest.deadCount == 0, dest.ids.count == rows.count else { return nil }
    var inverse = [Int32](repeating: -1, count: rows.count)
    for (s, d) in rows.enumerated() {
      // A source row without a destination row, or two sharing one: not a bijection.
      guard d >= 0, inverse[Int(d)] < 0 else { return nil }
      inverse[Int(d)] = Int32(s)
    }
    return inverse
  }
}
