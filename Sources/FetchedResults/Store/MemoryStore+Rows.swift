// Materializing rows in the in-memory store: one plan per query (each value's column, and for
// prefetched to-one attributes the join's row column), then a loop per row that reads the
// columns directly: no closure and no dictionary lookup per value.
extension MemoryStore {
  /// Where each value of a row layout comes from.
  struct RowPlan {
    var columns: [MemoryColumn]
    /// Per value: nil for the entity's own columns, else the destination row per source row.
    var joins: [[Int32]?]

    /// The values of `row`, in the layout's order. O(values).
    @inline(__always) func values(_ row: Int) -> [Value] {
      var out: [Value] = []
      out.reserveCapacity(columns.count)
      for k in columns.indices {
        if let join = joins[k] {
          let d = Int(join[row])
          out.append(d < 0 ? .null : columns[k].value(d))
        } else {
          out.append(columns[k].value(row))
        }
      }
      return out
    }
  }

  /// The plan for `request`'s row layout: the entity's attributes, then each prefetched
  /// relationship's. O(attributes), plus building a join column not yet cached.
  func rowPlan(_ request: ResolvedRequest) -> RowPlan {
    let t = table(request)
    var plan = RowPlan(columns: t.columns, joins: Array(repeating: nil, count: t.columns.count))
    for rel in request.prefetch {
      let dest = tables[rel.destination]!
      let join = joinRows(rel, t)
      plan.columns += dest.columns
      plan.joins += Array(repeating: join, count: dest.columns.count)
    }
    return plan
  }
}
