import Catalog
import Foundation
import ResultModel
import TextFormatting

// How each figure grows with the row count, when a run measured more than one: a table per
// store with the growth from the smallest to the largest size and the fitted exponent, where
// opening the list stops fitting in one frame or in 100 ms, where its heap passes the memory
// budget, and the log-log charts with those lines drawn.
extension Report {
  /// What a list may cost to open before a user waits.
  package static let waitMs = 100.0

  /// `one frame (16.7 ms)`, or at 120 Hz `one frame (8.3 ms)`.
  package static func frameWords(_ ms: Double) -> String { String(format: "one frame (%.1f ms)", ms) }

  /// A figure followed across row counts.
  package struct ScalingSeries {
    package var label: String
    package var mode: FetchMode
    package var scenario: Scenario
  }

  /// The first screens, one per strategy: what the crossings and the heap chart follow.
  package static let openingSeries = FetchMode.allCases.map {
    ScalingSeries(label: "\($0.rawValue) first screen", mode: $0, scenario: .firstScreen)
  }

  package static let scalingSeries =
    [
      ScalingSeries(label: "full performFetch", mode: .full, scenario: .performFetch),
      ScalingSeries(label: "batched performFetch", mode: .batched, scenario: .performFetch),
    ] + openingSeries + [ScalingSeries(label: "batched scroll-through", mode: .batched, scenario: .scrollThrough)]

  /// The row counts measured, ascending.
  package var sizes: [Int] { Array(Set(rows.filter { $0.isOK }.map(\.rows))).sorted() }

  /// Each (dataset, store, index) measured at two sizes or more, with its key at size 0.
  package var scalingKeys: [Key] {
    var seen: [Key] = []
    for k in storeKeys {
      let line = Key(dataset: k.dataset, rows: 0, store: k.store, index: k.index)
      if !seen.contains(line)
        && storeKeys.filter({ $0.dataset == k.dataset && $0.store == k.store && $0.index == k.index }).count > 1
      {
        seen.append(line)
      }
    }
    return seen
  }

  /// `series`' (rows, metric) points for `line`, the sizes where it was measured.
  package func points(_ line: Key, _ series: ScalingSeries, _ metric: Metric) -> [(x: Double, y: Double)] {
    sizes.compactMap { n in
      let k = Key(dataset: line.dataset, rows: n, store: line.store, index: line.index)
      return find(k, series.mode, batch: batch(series.mode), series.scenario, metric: metric).map {
        (Double(n), $0.value)
      }
    }
  }

  package func scalingSection() -> String {
    let lines = scalingKeys
    guard !lines.isEmpty else { return "" }
    var md = "## Scaling with the row count\n\n"
    let sameProcess =
      rows.contains { $0.metric == .growth }
      ? """
       **In one process** is the largest size's case with the same case at the smallest size opened beside it and \
      run alternately with every repetition (as the limits are), the median of the per-pair ratios [min–max]; its \
      **limit**, **floor** and **scan limit** grow the same way, measured in pairs in that process: the growth the \
      same work done the simplest fast way shows on this machine, caches and page faults included. The memory store \
      and SQLite only: PostgreSQL holds one size of a dataset at a time.
      """
      : ""
    let faultsNote =
      rows.contains { $0.metric == .pageFaults }
      ? """
       **Page faults a call** is the median count of minor page faults in one repetition at the smallest and at \
      the largest size: memory fresh from the kernel, a trap and a zeroed page each (4 KiB, or 2 MiB with huge \
      pages), that the allocator could not hand back from earlier repetitions.
      """
      : ""
    md +=
      """
      Medians of each size's repetitions. **× growth** is the largest size's figure over the smallest's (rows grew \
      \(growthText(sizes))); **exponent b** fits time ∝ rows^b by least squares on the log-log points \
      (\(nLogNText(sizes))). Crossings are interpolated on the log-log line between the two measured sizes around \
      them. Each size ran in processes of its own, minutes apart, and timings from separate processes differ more \
      than those from one (by up to 40 % on the shared machines the reference results come from): a growth carries \
      that spread, which the same-process ratios of the limits section do not.\(sameProcess)\(faultsNote)\n\n
      """
    for line in lines {
      let series = Self.scalingSeries.filter { points(line, $0, .time).count > 1 }
      guard !series.isEmpty else { continue }
      md += "### \(line.dataset.displayName), \(Self.storeName(line))\n\n"
      md += MarkdownTable([.right("rows")] + series.map { .right("\($0.label) ms") }).header
      for n in sizes {
        let k = Key(dataset: line.dataset, rows: n, store: line.store, index: line.index)
        let cells = series.map { s in
          ms(find(k, s.mode, batch: batch(s.mode), s.scenario, metric: .time))
        }
        guard cells.contains(where: { $0 != "—" }) else { continue }
        md += "| \(n.grouped) | " + cells.joined(separator: " | ") + " |\n"
      }
      md +=
        "| × growth | "
        + series.map { s in
          let p = points(line, s, .time)
          guard let a = p.first, let b = p.last else { return "—" }
          return String(format: "%.1f×", b.y / a.y)
        }.joined(separator: " | ") + " |\n"
      md +=
        "| exponent b | "
        + series.map { s in Growth(points(line, s, .time)).map { String(format: "%.2f", $0.exponent) } ?? "—" }
        .joined(separator: " | ")
        + " |\n"
      md += sameProcessGrowthRows(line, series) + pageFaultRow(line, series) + "\n"
      md += crossingSentences(line)
      let (time, heap) = chartSeries(line)
      if !time.isEmpty { md += "![time against rows](charts/\(Self.slug(line, "scaling")))\n" }
      if !heap.isEmpty { md += "![live heap against rows](charts/\(Self.slug(line, "scaling-heap")))\n" }
      md += "\n"
    }
    return md
  }

  /// "Opening the list …": where the first screen passes one frame and 100 ms, and where its
  /// live heap passes the memory budget, for every strategy measured.
  package func crossingSentences(_ line: Key) -> String {
    func name(_ mode: FetchMode) -> String {
      switch mode {
      case .full: "with full fetch"
      case .batched: "batched"
      case .offset: "by offset pages"
      case .keyset: "by keyset pages"
      }
    }
    func phrases(_ metric: Metric, _ threshold: Double) -> [String] {
      Self.openingSeries.compactMap { s in
        Growth.crossing(points(line, s, metric), over: threshold).map { "\(name(s.mode)) \($0.words)" }
      }
    }
    var md = ""
    let frame = phrases(.time, frameMs)
    if !frame.isEmpty {
      md +=
        """
        - Opening the list (performFetch and the first 20 rows) takes under \(Self.frameWords(frameMs)) \
        \(frame.joined(separator: "; ")).
        """
    }
    let wait = phrases(.time, Self.waitMs)
    if !wait.isEmpty { md += "\n- Under 100 ms: \(wait.joined(separator: "; "))." }
    let heap = phrases(.heapLive, memoryBudget)
    if !heap.isEmpty {
      md +=
        "\n- The open list's live heap stays under the \(bytes(memoryBudget)) budget \(heap.joined(separator: "; "))."
    }
    return md.isEmpty ? "" : md + "\n\n"
  }

  /// The table row of each series' page faults a call, smallest size → largest; none for runs
  /// that did not count them.
  package func pageFaultRow(_ line: Key, _ series: [ScalingSeries]) -> String {
    let cells = series.map { s in
      let p = points(line, s, .pageFaults)
      guard p.count > 1, let a = p.first, let b = p.last else { return "—" }
      return "\(Int(a.y).grouped) → \(Int(b.y).grouped)"
    }
    return cells.contains { $0 != "—" } ? "| page faults a call | " + cells.joined(separator: " | ") + " |\n" : ""
  }

  /// The table rows of the growths measured in one process (`Metric.growth` and the limits'),
  /// read at the largest size; none when the run measured none.
  package func sameProcessGrowthRows(_ line: Key, _ series: [ScalingSeries]) -> String {
    guard let largest = sizes.last else { return "" }
    let k = Key(dataset: line.dataset, rows: largest, store: line.store, index: line.index)
    var md = ""
    for (metric, label) in [
      (Metric.growth, "× growth in one process"), (.limitGrowth, "× its limit's growth"),
      (.floorGrowth, "× its floor's growth"),
      (.scanLimitGrowth, "× its scan limit's growth"),
    ] {
      let cells = series.map { s in
        find(k, s.mode, batch: batch(s.mode), s.scenario, metric: metric).map {
          String(format: "%.1f× [%.1f–%.1f]", $0.value, $0.min, $0.max)
        } ?? "—"
      }
      if cells.contains(where: { $0 != "—" }) { md += "| \(label) | " + cells.joined(separator: " | ") + " |\n" }
    }
    return md
  }

  /// The batch size a series is followed at: the run's first (none for full fetch).
  package func batch(_ mode: FetchMode) -> Int { mode.batchSize(tableBatchSizes.first ?? 20) }

  package func growthText(_ sizes: [Int]) -> String {
    guard let a = sizes.first, let b = sizes.last, a > 0 else { return "—" }
    return String(format: "%.1f×", Double(b) / Double(a))
  }

  /// What n log n grows by over the measured sizes, and its exponent on the log-log line,
  /// the growth a comparison sort cannot beat.
  package func nLogNText(_ sizes: [Int]) -> String {
    guard let a = sizes.first, let b = sizes.last, a > 1, b > a else { return "one size: no growth" }
    let growth = Double(b) * log(Double(b)) / (Double(a) * log(Double(a)))
    let exponent = log(growth) / log(Double(b) / Double(a))
    return String(format: "n log n from %@ to %@ rows is %.1f×, b ≈ %.2f", a.grouped, b.grouped, growth, exponent)
  }

  /// The series `line`'s two scaling charts draw, which the report links only when drawn: the
  /// first screens measured at two sizes or more (the chart answers which way opens the list in
  /// time; the table beside it has the rest), and their live heap (none without the former).
  /// O(rows).
  package func chartSeries(_ line: Key) -> (time: [ScalingSeries], heap: [ScalingSeries]) {
    let time = Self.openingSeries.filter { points(line, $0, .time).count > 1 }
    return (time, time.isEmpty ? [] : Self.openingSeries.filter { !points(line, $0, .heapLive).isEmpty })
  }

  /// The log-log time chart (with the one-frame and 100 ms lines) and the live heap chart
  /// (with the memory budget) of every line measured at two sizes or more.
  package func scalingCharts() -> [(String, String)] {
    var out: [(String, String)] = []
    let xs = sizes.map(Double.init)
    func values(_ line: Key, _ s: ScalingSeries, _ metric: Metric) -> [Double?] {
      let p = Dictionary(uniqueKeysWithValues: points(line, s, metric).map { ($0.x, $0.y) })
      return xs.map { p[$0] }
    }
    for line in scalingKeys {
      let (series, heapSeries) = chartSeries(line)
      guard !series.isEmpty else { continue }
      out.append(
        (
          Self.slug(line, "scaling"),
          SVG.lines(
            title: "\(line.dataset.displayName), \(Self.storeName(line)): time against rows (log-log)", xs: xs,
            series: series.map { ($0.label, values(line, $0, .time)) }, x: .log, y: .log, legendSuffix: " (ms)",
            thresholds: [(String(format: "one frame, %.1f ms", frameMs), frameMs), ("100 ms", Self.waitMs)],
            xTitle: "rows in the list's table", yTitle: "median time (ms)", markCrossings: true,
            xLabel: { Int($0).grouped })
        ))
      if !heapSeries.isEmpty {
        out.append(
          (
            Self.slug(line, "scaling-heap"),
            SVG.lines(
              title:
                """
                \(line.dataset.displayName), \(Self.storeName(line)): live heap of the open list against rows \
                (log-log, MiB)
                """,
              xs: xs,
              series: heapSeries.map { s in (s.label, values(line, s, .heapLive).map { $0.map { $0 / 1_048_576 } }) },
              x: .log, y: .log,
              legendSuffix: " (MiB)", thresholds: [("budget, \(bytes(memoryBudget))", memoryBudget / 1_048_576)],
              xTitle: "rows in the list's table", yTitle: "live heap (MiB)", markCrossings: true,
              xLabel: { Int($0).grouped })
          ))
      }
    }
    return out
  }
}
