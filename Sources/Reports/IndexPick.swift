import Catalog
import Foundation
import ResultModel
import Vocabulary

/// The index to add for one operation of a list (the ID query, the sectioned ID query, the
/// first page), read from the index advice's rows: the candidate whose per-pair ratio to the
/// unindexed file has the lowest median, advised when that median is at most `threshold`.
package struct IndexPick: Sendable, Equatable {
  package var dataset: DatasetKind
  package var rows: Int
  package var store: ResultStore
  /// The operation (`ResultScenario.forAdvice`).
  package var scenario: ResultScenario
  /// The best candidate's tag, advised or not.
  package var tag: IndexTag
  package var index: IndexSpec?
  /// Its time and the unindexed file's, in the work's unit, with their rows for ranges.
  package var indexed: ResultRow
  package var unindexed: ResultRow
  /// The per-pair ratio to the unindexed file: median [min–max].
  package var ratio: ResultRow
  /// Whether the ratio's median is at most the threshold.
  package var advised: Bool
  /// The Core Data fetch index (`Z_Item_byTitle`) the list's ID query uses with no index
  /// added, as its query plan names it; nil when it uses none.
  package var modelIndex: String? = nil

  /// The statement to copy, in the store's own SQL.
  package var createStatement: String? { index?.createStatement(postgres: store == .engine(.postgres)) }

  package static let timeMetrics: Set<Metric> = [.time, .timeUs]

  /// An index counts when it saves at least 10 % per pair.
  package static let threshold = 0.9

  /// One pick per (dataset, rows, store, scenario) that the advice measured, in row order.
  /// O(rows).
  package static func all(_ rows: [ResultRow]) -> [IndexPick] {
    let advice = rows.filter { $0.mode == .indexAdvice && $0.isOK }
    var order: [ResultKey] = []
    var groups: [ResultKey: [ResultRow]] = [:]
    for r in advice {
      // One operation of one list, whatever the index.
      var key = r.key
      key.index = .none
      if groups[key] == nil { order.append(key) }
      groups[key, default: []].append(r)
    }
    return order.compactMap { key in
      let g = groups[key]!
      // Equal ratios (results recorded with three decimals hold 0.001 for any ratio that
      // small) go to the faster median time.
      func ms(_ index: IndexTag) -> Double {
        guard let r = g.first(where: { $0.index == index && Self.timeMetrics.contains($0.metric) }) else {
          return .infinity
        }
        return r.metric == .timeUs ? r.value / 1_000 : r.value
      }
      guard
        let best = g.filter({ $0.metric == .overUnindexed }).min(by: {
          ($0.value, ms($0.index)) < ($1.value, ms($1.index))
        }),
        let time = g.first(where: { $0.index == best.index && Self.timeMetrics.contains($0.metric) }),
        let none = g.first(where: { $0.index == .none && $0.metric == time.metric }),
        let dataset = best.dataset
      else { return nil }
      var pick = IndexPick(
        dataset: dataset, rows: best.rows, store: best.store, scenario: best.scenario, tag: best.index,
        index: best.index.spec(in: dataset), indexed: time, unindexed: none,
        ratio: best, advised: best.value <= threshold)
      var idQuery = key
      idQuery.scenario = .forAdvice(.performFetch)
      let plan = groups[idQuery]?.first { $0.index == .none && $0.metric == .queryPlan }?.detail
      pick.modelIndex = plan.flatMap(Self.fetchIndex(in:))
      return pick
    }
  }

  /// The Core Data fetch index a SQLite query plan uses (`SCAN t0 USING INDEX
  /// Z_Item_byTitle`); nil when it uses none. O(plan).
  package static func fetchIndex(in plan: String) -> String? { fetchIndexes(in: plan).first }

  /// Every Core Data fetch index a query plan names, in its order. O(plan).
  package static func fetchIndexes(in plan: String) -> [String] {
    plan.split(whereSeparator: { " ;()".contains($0) }).filter(CoreDataNames.isFetchIndex).map(String.init)
  }
}
