import Catalog
import DatasetStores
import FetchBenchKit
import HarnessSupport
import ResultModel
import Vocabulary

let machine = Machine(cores: 2, memoryBytes: 24 << 30, os: "Debian", swiftVersion: "6.3.1", gitCommit: "abc")

/// One figure for tests of what is computed from result rows: banks at 1,000 rows on SQLite
/// unless told otherwise, a batch of 20 for every mode but full fetch, `value` ± 1 over 5
/// repetitions, failed when it carries an error.
func figure(
  _ dataset: DatasetKind = .banks, rows: Int = 1000, store: ResultStore = .engine(.sqlite), mode: ResultMode, batch: Int? = nil,
  index: String = "none", scenario: ResultScenario, metric: Metric, value: Double, min: Double? = nil,
  max: Double? = nil, repetitions: Int = 5, error: String = ""
) -> ResultRow {
  let key = ResultKey(
    dataset: dataset, rows: rows, store: store, mode: mode, batchSize: batch ?? (mode == .fetch(.full) ? 0 : 20), index: IndexTag(csv: index),
    scenario: scenario)
  var r = ResultRow(
    runID: "r1", key: key, metric: metric, summary: Summary([value]), status: error.isEmpty ? .ok : .failed, error: error,
    machine: machine, datasetSHA256: "f00")
  (r.min, r.max, r.repetitions) = (min ?? value - 1, max ?? value + 1, repetitions)
  return r
}

/// A list's figure on `store` (banks, 1,000 rows).
func row(_ store: StoreKind, _ mode: FetchMode, _ scenario: Scenario, _ metric: Metric, _ value: Double, error: String = "") -> ResultRow {
  figure(store: .engine(store), mode: .fetch(mode), scenario: .scenario(scenario), metric: metric, value: value, error: error)
}
