import Catalog
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

// report.md: the page, a table and a sentence per store.
extension Report {

  package func markdown() -> String {
    guard !rows.isEmpty else { return "# FetchBench results\n\nNo results.\n" }
    if isDiff { return diffMarkdown() }
    var md = "# FetchBench results\n\n"
    let reps = rows.first { $0.metric == .time }?.repetitions ?? 0
    md += Markdown.provenance(rows)
    md += "Every case ran in a fresh process. Times are the **median of \(reps) repetitions** after a warm-up, "
    md += "with [min–max]; batched means `fetchBatchSize` N with at most 4 batches kept. "
    md += "`heap live` is jemalloc's `stats.allocated` after the scenario minus before it, the controller still held; "
    md +=
      "`heap peak` is the high-water mark of the measuring thread during the scenario; both from the last repetition. "
    md += "Queries and rows materialized are exact counts. All figures come from `results.csv`; "
    md += "`fetchbench report DIR` renders this page again.\n\n"
    if let conf = allocatorConfiguration {
      md +=
        """
        Every process ran with jemalloc configured by \(Markdown.code("MALLOC_CONF=" + conf)) from the environment, \
        not its defaults: huge pages or another reuse of large blocks move the figures at millions of rows, so \
        compare them only with runs of the same setting.\n\n
        """
    }

    let keys = storeKeys
    var datasets: [(DatasetKind, Int)] = []
    for k in keys where !datasets.contains(where: { $0 == (k.dataset, k.rows) }) {
      datasets.append((k.dataset, k.rows))
    }
    for (dataset, n) in datasets {
      if let request = customRequest {
        // A predicate's list is not the table: say how many rows it holds.
        let listed =
          listCount(dataset: dataset, rows: n).flatMap { $0 == n ? nil : " (\($0.grouped) rows in it)" } ?? ""
        md += "## \(dataset.displayName), \(n.grouped) rows, your list: \(Markdown.code(request.text))\(listed)\n\n"
      } else {
        md += "## \(dataset.displayName), \(n.grouped) rows, sorted by \(dataset.definition.sortDescription)\n\n"
      }
      if let database {
        // A server's schema has no file size.
        let size = database.bytes > 0 ? ", \(bytes(database.bytes))" : ""
        md += "\(database.lead): \(Markdown.escape(database.detail))\(size).\n\n"
        if let synthetic = database.synthetic { md += "Its rows are \(Markdown.escape(synthetic)).\n\n" }
        if database.onServer && !advice.contains(where: { $0.dataset == dataset && $0.rows == n }) {
          md +=
            "No index was tried: FetchBench creates no index on your server (`--allow-index-trials` tries candidates "
            + "in a schema of its own, on a copy of the list's tables).\n\n"
        }
      }
      md += sideBySide(dataset: dataset, rows: n)
      md += planComparison(dataset: dataset, rows: n)
      for k in keys where k.dataset == dataset && k.rows == n {
        for batch in tableBatchSizes { md += table(k, batch: batch) + strategiesTable(k, batch: batch) }
      }
      md += limitSection(dataset: dataset, rows: n)
      md += floorSection(dataset: dataset, rows: n)
      md += postgresFloorSection(dataset: dataset, rows: n)
      md += indexAdviceSection(dataset: dataset, rows: n)
      md += batchSweepSection(dataset: dataset, rows: n)
      md += recommendationSection(dataset: dataset, rows: n)
    }
    md += scalingSection()
    md += MemoryFit.section(allRows) {
      """
      \($0.dataset?.rawValue ?? "") \($0.store.csv) \($0.mode.csv)\($0.batchSize > 0 ? "(\($0.batchSize))" : "") \
      \($0.scenario.csv)
      """
        + ($0.index == .none ? "" : " \($0.index)")
    }
    md += Markdown.caseOutcomes(allRows) {
      "\($0.dataset?.rawValue ?? "")-\($0.rows) \($0.store.csv) \($0.mode.csv) \($0.scenario.csv)"
    }
    return md
  }

  package func table(_ k: Key, batch: Int) -> String {
    var md = "### \(Self.storeName(k)): full fetch against batched (\(batch))\n\n"
    md +=
      MarkdownTable(
        [.left("scenario")]
          + [
            "full ms", "batched ms", "batched/full", "full heap live", "batched heap live", "heap ratio",
            "full heap peak", "batched heap peak", "queries full / batched", "rows materialized full / batched",
          ].map { .right($0) }
      ).header
    for s in scenarios {
      let ft = find(k, mode: .fetch(.full), batch: 0, scenario: s, metric: .time)
      let bt = find(k, mode: .fetch(.batched), batch: batch, scenario: s, metric: .time)
      guard ft != nil || bt != nil else { continue }
      func v(_ mode: FetchMode, _ b: Int, _ m: Metric) -> Double? {
        find(k, mode: .fetch(mode), batch: b, scenario: s, metric: m)?.value
      }
      let fh = v(.full, 0, .heapLive)
      let bh = v(.batched, batch, .heapLive)
      md +=
        """
        | \(s.csv) | \(ms(ft)) | \(ms(bt)) | \(ratio(bt?.value, ft?.value)) | \(bytes(fh)) | \(bytes(bh)) | \
        \(ratio(bh, fh)) 
        """
      md += "| \(bytes(v(.full, 0, .heapPeak))) | \(bytes(v(.batched, batch, .heapPeak))) "
      md += "| \(count(v(.full, 0, .queries))) / \(count(v(.batched, batch, .queries))) "
      md += "| \(count(v(.full, 0, .rowsMaterialized))) / \(count(v(.batched, batch, .rowsMaterialized))) |\n"
    }
    md += "\n" + sentence(k, batch: batch) + "\n\n"
    md += "![time](charts/\(Self.slug(k, "time-b\(batch)"))) ![heap](charts/\(Self.slug(k, "heap-b\(batch)")))\n\n"
    return md
  }

  /// One sentence that says what the table means, computed from the first screen.
  package func sentence(_ k: Key, batch: Int) -> String {
    guard let ft = find(k, .full, batch: 0, .firstScreen, metric: .time)?.value,
      let bt = find(k, .batched, batch: batch, .firstScreen, metric: .time)?.value,
      let fh = find(k, .full, batch: 0, .firstScreen, metric: .heapLive)?.value,
      let bh = find(k, .batched, batch: batch, .firstScreen, metric: .heapLive)?.value,
      bt > 0, bh > 0
    else { return "" }
    let speed = ft >= bt ? String(format: "%.1f× faster", ft / bt) : String(format: "%.1f× slower", bt / ft)
    let memory =
      fh >= bh
      ? String(format: "holds 1/%.0f of the memory", fh / bh) : String(format: "holds %.1f× the memory", bh / fh)
    var text =
      """
      On \(k.store == .memory ? "the " : "")\(Self.storeName(k)), the batched first screen is **\(speed)** than a \
      full fetch and \(memory)
      """
    if let fs = find(k, .full, batch: 0, .scrollThrough, metric: .time)?.value,
      let bs = find(k, .batched, batch: batch, .scrollThrough, metric: .time)?.value, fs > 0
    {
      text += String(format: "; scrolling through every row costs %.2f× the full fetch's time", bs / fs)
    }
    text += "."
    // Mapping is timed on its own (rows faulted first); the batched run's figure is used
    // because both modes map the same 20 materialized rows.
    if let direct = find(k, .batched, batch: batch, .firstScreenMapped, metric: .mapping),
      let codable = find(k, .batched, batch: batch, .firstScreenMappedCodable, metric: .mapping),
      direct.value > 0
    {
      text += String(
        format:
          """
           Mapping the first screen's 20 rows to typed models takes %.1f µs with the direct initializer and %.1f µs \
          through Codable (%.1f×; medians of %d, ranges %.1f–%.1f and %.1f–%.1f µs).
          """,
        direct.value, codable.value, codable.value / direct.value, direct.repetitions, direct.min, direct.max,
        codable.min, codable.max)
    }
    return text
  }

}
