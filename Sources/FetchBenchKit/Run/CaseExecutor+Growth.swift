import DatasetStores
import FetchedResults
import HarnessSupport
import ResultModel

// A case's growth from a smaller row count, measured as its limits are: the same case on the
// same dataset at that row count, opened beside the case's store in the case's process and
// run alternately with it, so the growth is a ratio per pair rather than two medians taken
// minutes apart in separate processes (which differ more on a shared machine).
extension CaseExecutor {
  /// The same case at `smaller` rows, and each of `references`' limits and floors there with
  /// its growth: the reference at the case's rows over itself at `smaller`, per pair. Opens
  /// the smaller store: O(smaller) to load it in memory.
  static func growthReferences(
    _ spec: CaseSpec, from smaller: Int, scenario: Scenario, mode: FetchMode, over references: [Reference]
  )
    throws -> [Reference]
  {
    var small = spec
    (small.rows, small.growthFrom) = (smaller, nil)
    let store = try small.location.open(small.store)
    let batchSize = mode.batchSize(small.batchSize)
    let custom = try small.customRequest(scenario, batchSize: batchSize)
    let detail = "from \(smaller) rows"
    // Timed as the case is (`Scenario.measure`), its result dropped outside the timed region.
    var out = [
      Reference(time: .smallerSize, ratio: .growth, numerator: nil, detail: detail) {
        try scenario.measure(
          small.dataset, mode: mode, batchSize: batchSize, store: store, request: custom, cells: small.cells()
        ).sample
          .wallNanos
      }
    ]
    let limit = try limit(small, scenario: scenario, mode: mode, request: custom, store: store)
    for reference in try limits(small, scenario: scenario, mode: mode, limit: limit) {
      guard let time = reference.time, let ratio = Metric.growth(of: time),
        let large = references.firstIndex(where: { $0.time == time })
      else { continue }
      out.append(Reference(time: nil, ratio: ratio, numerator: large, detail: detail, measure: reference.measure))
    }
    return out
  }
}
