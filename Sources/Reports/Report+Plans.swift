import Catalog
import Foundation
import ResultModel
import Vocabulary

// Core Data's statements against FetchBench's tuned ones, per pair in one process.
extension Report {
  /// Each `sqlite-coredata` case beside the same case issuing the tuned statements on the same
  /// file, timed alternately in the case's process: the ratio is the median of the per-pair
  /// ratios, so both saw the same machine at the same moment.
  package func planComparison(dataset: DatasetKind, rows n: Int) -> String {
    let k = Key(dataset: dataset, rows: n, store: .sqliteCoreData, index: .none)
    var lines: [String] = []
    for batch in [0] + tableBatchSizes {
      let mode: FetchMode = batch == 0 ? .full : .batched
      for sc in scenarios {
        guard let ratio = find(k, mode: .fetch(mode), batch: batch, scenario: sc, metric: .coreDataOverTuned),
          let coreData = find(k, mode: .fetch(mode), batch: batch, scenario: sc, metric: .time),
          let tuned = find(k, mode: .fetch(mode), batch: batch, scenario: sc, metric: .tunedPlan)
        else { continue }
        let how = batch == 0 ? "full" : "batched (\(batch))"
        lines.append(
          "| \(sc.csv) | \(how) | \(Self.ms(coreData)) | \(Self.ms(tuned)) | "
            + String(format: "**%.2f×** [%.2f–%.2f]", ratio.value, ratio.min, ratio.max) + " |")
      }
    }
    guard !lines.isEmpty else { return "" }
    let reps = find(k, mode: .fetch(.full), batch: 0, scenario: scenarios[0], metric: .time)?.repetitions
    var md = "### What Core Data issues against the same list with better statements (SQLite, one process)\n\n"
    md +=
      """
      Each case issuing Core Data's statements ran alternately with the same case issuing FetchBench's tuned \
      statements, 
      """
    md +=
      """
      on a second connection to the same file, in one process\(reps.map { ", \($0) pairs" } ?? ""): medians \
      [min–max] in ms, 
      """
    md += "and the median of the per-pair ratios. Above 1×, Core Data's statements cost more.\n\n"
    md +=
      MarkdownTable(
        .left("scenario"), .left("strategy"), .right("Core Data's statements"), .right("tuned statements"),
        .right("Core Data / tuned")
      ).header
    return md + lines.joined(separator: "\n") + "\n\n"
  }

  package static func ms(_ r: ResultRow) -> String {
    let f = r.value < 10 ? "%.2f" : "%.1f"
    return String(format: "\(f) [\(f)–\(f)]", r.value, r.min, r.max)
  }
}
