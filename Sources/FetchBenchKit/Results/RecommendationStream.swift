import Catalog
import DatasetStores
import Datasets
import Reports
import ResultModel
import Vocabulary

/// Each list's recommendation as soon as its last case is measured (`run --recommend`): the
/// first answer comes after the first list's cases instead of after the whole run. A list is
/// a dataset, row count and store; its cases are the strategies' and the index advice's.
package final class RecommendationStream {
  private struct List: Hashable {
    var dataset: DatasetKind
    var rows: Int
    var store: StoreKind
  }
  private var given: Set<List> = []

  package init() {}

  /// The recommendations of the lists that `remaining` has no case of any more, not given
  /// before, from the rows as the run's files will hold them (`ResultFiles.rounded`), so each
  /// reads as recommendation.json will; a list whose first screen read no row (an empty list,
  /// which has no answer) is left for the run's end. O(rows + remaining cases).
  package func finished(_ measured: RunResults, remaining: ArraySlice<CaseSpec>) throws -> [Recommendation] {
    let rows = try ResultFiles.rounded(measured.figures)
    let pending = Set(remaining.map { List(dataset: $0.dataset, rows: $0.rows, store: $0.store) })
    let empty = Set(
      rows.filter { $0.scenario == .scenario(.firstScreen) && $0.metric == .rowsMaterialized && $0.value == 0 }
        .compactMap { r in
          Report.key(of: r).map { List(dataset: $0.dataset, rows: $0.rows, store: $0.store) }
        })
    return Recommendation.all(RunResults(settings: measured.settings, figures: rows)).filter { p in
      let list = List(dataset: p.dataset, rows: p.rows, store: p.store)
      guard !pending.contains(list), !empty.contains(list), !given.contains(list) else { return false }
      given.insert(list)
      return true
    }
  }

  /// Of `picks`, those not given yet, in their order. O(picks).
  package func rest(_ picks: [Recommendation]) -> [Recommendation] {
    picks.filter { !given.contains(List(dataset: $0.dataset, rows: $0.rows, store: $0.store)) }
  }
}
