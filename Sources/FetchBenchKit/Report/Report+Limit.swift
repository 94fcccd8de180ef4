import DatasetStores
import Foundation

// The in-memory store against its physical limit.
extension Report {
  /// The in-memory cases' time over the limit measured alternately in their process.
  func limitSection(dataset: String, rows n: Int) -> String {
    let ratios = rows.filter {
      $0.dataset == dataset && $0.rows == n && $0.store == StoreKind.memory.rawValue && $0.metric == Metric.engineOverLimit.name
    }
    guard !ratios.isEmpty else { return "" }
    var md = "### in-memory store against its limit\n\n"
    md +=
      "The limit is the same request's sort keys already extracted into flat typed arrays (numbers as doubles, strings as "
      + "ranks, in the table's order), sorted by the standard library with one comparator, and for full fetch each row's "
      + "values then copied out in that order: the work the pattern cannot avoid. It runs alternately with each repetition "
      + "of the case in the case's process; `engine / limit` is the median of the per-pair ratios [min–max]. "
      + "Targets: batched performFetch ≤ 1.5, full ≤ 2.\n\n"
    md += "| scenario | mode | engine ms | limit ms | engine / limit |\n|---|---|---:|---:|---:|\n"
    for r in ratios {
      let k = Key(dataset: dataset, rows: n, store: r.store, index: r.index)
      let engine = find(k, mode: r.mode, batch: r.batch_size, scenario: r.scenario, metric: .time)
      let limit = find(k, mode: r.mode, batch: r.batch_size, scenario: r.scenario, metric: .limit)
      let mode = r.mode == FetchMode.batched.rawValue ? "batched (\(r.batch_size))" : r.mode
      md +=
        "| \(r.scenario) | \(mode) | \(ms(engine)) | \(ms(limit)) | "
        + String(format: "%.2f× [%.2f–%.2f]", r.value, r.min, r.max) + " |\n"
    }
    return md + "\n"
  }
}
