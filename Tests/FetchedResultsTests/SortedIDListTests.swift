import Datasets
import FetchedResults
import Testing

/// The ID list against a plain sorted array: random transactions (removals, re-keyed rows,
/// new rows) from an empty list up past several chunk splits and back down, with positions,
/// insertion points and the invariants (chunk starts, fences, the ID map) checked after each.
@Suite struct SortedIDListModel {
  struct Row: Equatable {
    var key: Double
    var id: Int64
  }

  /// Descending keys, ascending IDs on ties: the banks list's order.
  static func before(_ a: Row, _ b: Row) -> Bool { a.key != b.key ? a.key > b.key : a.id < b.id }

  @Test(arguments: [1 as UInt64, 2, 3])
  func randomTransactionsMatchASortedArray(seed: UInt64) throws {
    var rng = SeededRandom(seed: seed)
    let list = SortedIDList(ids: [], keys: [[]], objects: nil, ascending: [false], idAscending: true)
    var model: [Row] = []
    var nextID: Int64 = 1
    // Grow past a thousand rows (chunks split at 2 × 256), shrink to none (chunks emptied and
    // dropped), and grow again from the empty list.
    var peak = 0
    var emptied = false
    for step in 0..<200 {
      let growing = step < 80 || step >= 160
      let removeCount = model.isEmpty ? 0 : Int(rng.below(UInt64(growing ? 20 : 200)))
      var removed = Set<Int64>()
      for _ in 0..<removeCount { removed.insert(model[Int(rng.below(UInt64(model.count)))].id) }
      var inserted: [Row] = []
      // A third of the removed rows come back with a new key (a move), and new rows arrive.
      for id in removed where rng.below(3) == 0 { inserted.append(Row(key: Double(rng.below(500)), id: id)) }
      for _ in 0..<(growing ? Int(rng.below(60)) : Int(rng.below(5))) {
        inserted.append(Row(key: Double(rng.below(500)), id: nextID))
        nextID += 1
      }
      let survivors = model.filter { !removed.contains($0.id) }
      let removals = model.indices.filter { removed.contains(model[$0].id) }
      var insertions = inserted.map { row in
        (
          gap: survivors.filter { Self.before($0, row) }.count, id: row.id, key: [Value.double(row.key)],
          object: FetchedObject?.none
        )
      }
      insertions.sort { a, b in
        a.gap != b.gap
          ? a.gap < b.gap : Self.before(Row(key: a.key[0].double!, id: a.id), Row(key: b.key[0].double!, id: b.id))
      }
      list.apply(removals: removals, insertions: insertions)
      model = (survivors + inserted).sorted(by: Self.before)
      peak = max(peak, model.count)
      if model.isEmpty { emptied = true }

      #expect(list.invariantViolations() == [], "step \(step)")
      #expect(list.count == model.count)
      #expect(list.allIDs == model.map(\.id), "step \(step)")
      for _ in 0..<10 where !model.isEmpty {
        let i = Int(rng.below(UInt64(model.count)))
        #expect(list.position(of: model[i].id) == i)
        #expect(list[i] == model[i].id)
        let probe = Row(key: Double(rng.below(500)), id: Int64(rng.below(UInt64(nextID))))
        #expect(
          list.insertionPoint(key: [.double(probe.key)], id: probe.id) == model.filter { Self.before($0, probe) }.count)
      }
    }
    #expect(peak > 1_000 && emptied && model.count > 100, "peak \(peak), emptied \(emptied), end \(model.count)")
  }
}

extension Value {
  fileprivate var double: Double? { if case .double(let d) = self { d } else { nil } }
}
