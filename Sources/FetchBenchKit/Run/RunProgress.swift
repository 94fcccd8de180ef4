import Foundation
import HarnessSupport
import ResultModel
import Vocabulary

/// What every row of one run carries besides its figure: the run's ID, the machine, and
/// the checksum of each dataset measured.
struct RowStamp {
  var runID: String
  var machine: Machine
  var checksums: [DatasetSize: String]

  func row(
    _ key: ResultKey, _ metric: Metric, _ s: Summary, status: ResultStatus = .ok, error: String = "",
    detail: String = ""
  )
    -> ResultRow
  {
    let checksum = key.dataset.flatMap { checksums[DatasetSize($0, rows: key.rows)] } ?? ""
    return ResultRow(
      runID: runID, key: key, metric: metric, summary: s, status: status, error: error, machine: machine,
      datasetSHA256: checksum,
      detail: detail)
  }
}

/// A run's cases as they end: their rows (kept in the journal as each ends), the failures and
/// the cases that did not fit, and the estimate of the time left.
struct RunProgress {
  let cases: [CaseSpec]
  let kept: [Int: [ResultRow]]
  let journal: RunJournal
  let stamp: RowStamp
  let log: (String) -> Void
  var rows: [ResultRow] = []
  var failures: [(label: String, error: String)] = []
  var unfit: [(label: String, error: String)] = []
  /// Cases run by this process, and cases whose rows the journal holds.
  var ran = 0
  var recorded: Int
  let start = Clock.wallNanos
  // What is left is estimated from the time per row so far: in a sweep over row counts a
  // case's time grows with its rows, and the small sizes run first.
  var rowsLeft: Double
  var rowsRun = 0.0

  init(
    cases: [CaseSpec], kept: [Int: [ResultRow]], journal: RunJournal, stamp: RowStamp, log: @escaping (String) -> Void
  ) {
    (self.cases, self.kept, self.journal, self.stamp, self.log) = (cases, kept, journal, stamp, log)
    recorded = kept.count
    rowsLeft = cases.indices.filter { kept[$0] == nil }.reduce(0.0) { $0 + Double(cases[$1].rows) }
  }

  /// Takes case `k`'s rows from an earlier sitting; false when it has to run.
  mutating func keep(_ k: Int) -> Bool {
    guard let earlier = kept[k] else { return false }
    rows += earlier
    unfit += earlier.filter { $0.status == .doesNotFit }.prefix(1).map { (cases[k].label, $0.error) }
    return true
  }

  /// Records case `k`'s outcome after `seconds`: its rows kept in the journal (a failure is
  /// not: a resumed run tries it again), and one progress line with the time left.
  mutating func record(_ k: Int, _ result: Runner.ChildResult, seconds: Double) throws {
    let spec = cases[k]
    ran += 1
    let elapsed = Double(Clock.wallNanos - start) / 1e9
    (rowsRun, rowsLeft) = (rowsRun + Double(spec.rows), rowsLeft - Double(spec.rows))
    let left = elapsed / rowsRun * rowsLeft
    let prefix = "[\(k + 1)/\(cases.count)] \(spec.label)"
    switch result {
    case .success(let r):
      let measured = r.measurements.map { m in
        var key = spec.key
        if let index = m.index { key.index = index }
        if let scenario = m.scenario { key.scenario = scenario }
        var row = stamp.row(key, m.metric, m.summary, detail: m.detail ?? "")
        if m.summary.count > 1 { row.processes = r.processes ?? 1 }
        return row
      }
      try keepRows(k, measured)
      let time =
        r.measurements.first { $0.metric.unit == .ms }.map { String(format: "%.1f ms", $0.summary.median) } ?? ""
      log(String(format: "%@  %@  (%.1f s, ~%@ left)", prefix, time, seconds, Runner.duration(left)))
    case .failure(let message):
      failures.append((spec.label, message))
      rows.append(stamp.row(spec.key, .failed, Summary([0]), status: .failed, error: message))
      log("\(prefix)  FAILED: \(message)")
    case .doesNotFit(let resident, let message):
      unfit.append((spec.label, message))
      try keepRows(
        k, [stamp.row(spec.key, .doesNotFit, Summary([Double(resident)]), status: .doesNotFit, error: message)])
      log("\(prefix)  DOES NOT FIT: \(message)")
    }
  }

  private mutating func keepRows(_ k: Int, _ measured: [ResultRow]) throws {
    try journal.record(k, measured)
    recorded += 1
    rows += measured
  }

  /// The run's outcome; `stopped` when `--max-minutes` ended it before its last case.
  func outcome(_ dir: String, stopped: Bool) -> RunOutcome {
    RunOutcome(
      directory: dir, rows: rows, failures: failures, unfit: unfit,
      stopped: stopped ? (recorded, cases.count, journal.directory) : nil)
  }
}
