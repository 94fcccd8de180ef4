// Materializing rows in the in-memory store: one plan per query (each value's column, and for
// prefetched to-one attributes how to find the destination row), then a loop per row that
// reads the columns directly: no closure per value.
extension MemoryStore {
  /// Where each value of a row layout comes from.
  struct RowPlan {
    var own: [MemoryColumn]
    /// Per prefetched relationship: the destination's columns, and a source row's
    /// destination row (-1: none).
    var prefetched: [(columns: [MemoryColumn], destination: (Int) -> Int)]

    /// The values of `row`, in the layout's order. O(values).
    @inline(__always) func values(_ row: Int) -> [Value] {
      var out: [Value] = []
      out.reserveCapacity(own.count + prefetched.reduce(0) { $0 + $1.columns.count })
      for c in own { out.append(c.value(row)) }
      for p in prefetched {
        let d = p.destination(row)
        for c in p.columns { out.append(d < 0 ? .null : c.value(d)) }
      }
      return out
    }
  }

  /// The plan for `request`'s row layout: the entity's attributes, then each prefetched
  /// relationship's. `bulk` (every row is read) builds a join column not yet cached, O(rows);
  /// otherwise joins look rows up one by one, O(1) each, so a batch fault after a write costs
  /// its rows, not the table.
  func rowPlan(_ request: ResolvedRequest, bulk: Bool) -> RowPlan {
    let t = table(request)
    var plan = RowPlan(own: t.columns, prefetched: [])
    for rel in request.prefetch {
      plan.prefetched.append((tables[rel.destination]!.columns, destinationRow(rel, t, bulk: bulk)))
    }
    return plan
  }

  /// A source row's destination row through the to-one `rel` (-1: none): from the join column
  /// when it is current (or `bulk` asks to build it), else by the destination's unique index.
  func destinationRow(_ rel: Relationship, _ t: MemoryTable, bulk: Bool) -> (Int) -> Int {
    if bulk || currentJoin(rel, t) != nil {
      let join = joinRows(rel, t)
      return { Int(join[$0]) }
    }
    let dest = tables[rel.destination]!
    let index = dest.uniqueIndex(onColumn: rel.destinationColumn)
    if rel.sourceColumn == t.entity.primaryKey {
      let ids = t.ids
      return { index[ids[$0]] ?? -1 }
    }
    guard let i = t.entity.attributes.firstIndex(where: { $0.column == rel.sourceColumn }) else { return { _ in -1 } }
    let column = t.columns[i]
    return { column.isNull($0) ? -1 : index[column.integers[$0]] ?? -1 }
  }

  /// The layout and row plan for a batch fault of `request`, reused while the request and the
  /// tables it reads are unchanged. O(1) when cached.
  func batchRowPlan(_ request: ResolvedRequest) -> (RowLayout, RowPlan) {
    let versions = [table(request).version] + request.prefetch.map { tables[$0.destination]!.version }
    if let c = batchPlan, c.request == request.request, c.versions == versions { return (c.layout, c.plan) }
    let layout = request.rowLayout
    let plan = rowPlan(request, bulk: false)
    batchPlan = (request.request, versions, layout, plan)
    return (layout, plan)
  }
}
