import Foundation

/// report.md and its charts, computed from result rows only: no figure is typed by hand.
public struct Report {
  let rows: [ResultRow]

  public init(rows: [ResultRow]) { self.rows = rows }

  struct Key: Hashable {
    var dataset: String
    var rows: Int
    var store: String
    var index: String
  }

  func find(_ k: Key, mode: String, batch: Int, scenario: String, metric: String) -> ResultRow? {
    rows.first {
      $0.dataset == k.dataset && $0.rows == k.rows && $0.store == k.store && $0.index == k.index
        && $0.mode == mode && $0.batch_size == batch && $0.scenario == scenario && $0.metric == metric
        && $0.status == "ok"
    }
  }

  var storeKeys: [Key] {
    var seen: [Key] = []
    for r in rows where !r.store.hasSuffix("-raw") && r.scenario != "load" {
      let k = Key(dataset: r.dataset, rows: r.rows, store: r.store, index: r.index)
      if !seen.contains(k) { seen.append(k) }
    }
    return seen
  }

  var batchSizes: [Int] { Array(Set(rows.filter { $0.mode == "batched" }.map(\.batch_size))).sorted() }
  var scenarios: [String] {
    var out: [String] = []
    for r in rows where !r.store.hasSuffix("-raw") && r.scenario != "load" && !out.contains(r.scenario) { out.append(r.scenario) }
    return out
  }

  static func storeName(_ k: Key) -> String {
    let base = ["memory": "in-memory store", "sqlite": "SQLite", "postgres": "PostgreSQL"][k.store] ?? k.store
    return k.index == "none" ? base : "\(base), index on \(k.index)"
  }

  static func slug(_ k: Key, _ what: String) -> String {
    "\(k.dataset)-\(k.rows)-\(k.store)\(k.index == "none" ? "" : "-idx-\(k.index)")-\(what).svg"
  }

  // MARK: markdown

  public func markdown() -> String {
    guard let first = rows.first else { return "# FetchBench results\n\nNo results.\n" }
    if isDiff { return diffMarkdown() }
    var md = "# FetchBench results\n\n"
    let reps = rows.first { $0.metric == "time_ms" }?.repetitions ?? 0
    md += "Run \(Markdown.code(first.run_id)) at commit \(Markdown.code(first.git_commit)) on \(first.cores) cores, "
    md += "\(first.memory_bytes / (1 << 30)) GiB, \(Markdown.escape(first.os)), \(Markdown.escape(first.swift_version)).\n\n"
    md += "Every case ran in a fresh process. Times are the **median of \(reps) repetitions** after a warm-up, "
    md += "with [min–max]; batched means `fetchBatchSize` N with at most 4 batches kept. "
    md += "`heap live` is jemalloc's `stats.allocated` after the scenario minus before it, the controller still held; "
    md += "`heap peak` is the high-water mark of the measuring thread during the scenario; both from the last repetition. "
    md += "Queries and rows materialized are exact counts. All figures come from `results.csv`; "
    md += "`fetchbench report DIR` renders this page again.\n\n"

    let keys = storeKeys
    var datasets: [(String, Int)] = []
    for k in keys where !datasets.contains(where: { $0 == (k.dataset, k.rows) }) { datasets.append((k.dataset, k.rows)) }
    for (dataset, n) in datasets {
      let sort = dataset == "banks" ? "`details.closeDate` descending" : "`spudDate` descending"
      md += "## \(dataset), \(n.grouped) rows, sorted by \(sort)\n\n"
      md += sideBySide(dataset: dataset, rows: n)
      for k in keys where k.dataset == dataset && k.rows == n {
        for batch in batchSizes { md += table(k, batch: batch) }
      }
      md += floorSection(dataset: dataset, rows: n)
      md += postgresFloorSection(dataset: dataset, rows: n)
    }
    md += scalingSection()
    let failed = rows.filter { $0.status == "failed" }
    if !failed.isEmpty {
      md += "## Failed cases\n\n| case | error |\n|---|---|\n"
      for f in failed {
        md += "| \(Markdown.escape("\(f.dataset)-\(f.rows) \(f.store) \(f.mode) \(f.scenario)")) | \(Markdown.escape(f.error)) |\n"
      }
      md += "\n"
    }
    return md
  }

  func table(_ k: Key, batch: Int) -> String {
    var md = "### \(Self.storeName(k)): full fetch against batched (\(batch))\n\n"
    md +=
      "| scenario | full ms | batched ms | batched/full | full heap live | batched heap live | heap ratio | full heap peak | batched heap peak | queries full / batched | rows materialized full / batched |\n"
    md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    for s in scenarios {
      let ft = find(k, mode: "full", batch: 0, scenario: s, metric: "time_ms")
      let bt = find(k, mode: "batched", batch: batch, scenario: s, metric: "time_ms")
      guard ft != nil || bt != nil else { continue }
      func v(_ mode: String, _ b: Int, _ m: String) -> Double? { find(k, mode: mode, batch: b, scenario: s, metric: m)?.value }
      let fh = v("full", 0, "heap_live_bytes")
      let bh = v("batched", batch, "heap_live_bytes")
      md += "| \(s) | \(ms(ft)) | \(ms(bt)) | \(ratio(bt?.value, ft?.value)) | \(bytes(fh)) | \(bytes(bh)) | \(ratio(bh, fh)) "
      md += "| \(bytes(v("full", 0, "heap_peak_bytes"))) | \(bytes(v("batched", batch, "heap_peak_bytes"))) "
      md += "| \(count(v("full", 0, "queries"))) / \(count(v("batched", batch, "queries"))) "
      md += "| \(count(v("full", 0, "rows_materialized"))) / \(count(v("batched", batch, "rows_materialized"))) |\n"
    }
    md += "\n" + sentence(k, batch: batch) + "\n\n"
    md += "![time](charts/\(Self.slug(k, "time-b\(batch)"))) ![heap](charts/\(Self.slug(k, "heap-b\(batch)")))\n\n"
    return md
  }

  /// One sentence that says what the table means, computed from the first screen.
  func sentence(_ k: Key, batch: Int) -> String {
    let s = "first_screen"
    guard let ft = find(k, mode: "full", batch: 0, scenario: s, metric: "time_ms")?.value,
      let bt = find(k, mode: "batched", batch: batch, scenario: s, metric: "time_ms")?.value,
      let fh = find(k, mode: "full", batch: 0, scenario: s, metric: "heap_live_bytes")?.value,
      let bh = find(k, mode: "batched", batch: batch, scenario: s, metric: "heap_live_bytes")?.value,
      bt > 0, bh > 0
    else { return "" }
    let speed = ft >= bt ? String(format: "%.1f× faster", ft / bt) : String(format: "%.1f× slower", bt / ft)
    let memory = fh >= bh ? String(format: "holds 1/%.0f of the memory", fh / bh) : String(format: "holds %.1f× the memory", bh / fh)
    var text = "On the \(Self.storeName(k)), the batched first screen is **\(speed)** than a full fetch and \(memory)"
    if let fs = find(k, mode: "full", batch: 0, scenario: "scroll_through", metric: "time_ms")?.value,
      let bs = find(k, mode: "batched", batch: batch, scenario: "scroll_through", metric: "time_ms")?.value, fs > 0
    {
      text += String(format: "; scrolling through every row costs %.2f× the full fetch's time", bs / fs)
    }
    text += "."
    // Mapping is timed on its own (rows faulted first); the batched run's figure is used
    // because both modes map the same 20 materialized rows.
    if let direct = find(k, mode: "batched", batch: batch, scenario: "first_screen_mapped", metric: "map_us"),
      let codable = find(k, mode: "batched", batch: batch, scenario: "first_screen_mapped_codable", metric: "map_us"),
      direct.value > 0
    {
      text += String(
        format:
          " Mapping the first screen's 20 rows to typed models takes %.1f µs with the direct initializer and %.1f µs through Codable (%.1f×; medians of %d, ranges %.1f–%.1f and %.1f–%.1f µs).",
        direct.value, codable.value, codable.value / direct.value, direct.repetitions, direct.min, direct.max, codable.min, codable.max)
    }
    return text
  }

  /// Every store in one table: the time of each scenario full and batched, and for
  /// PostgreSQL what went over the wire.
  func sideBySide(dataset: String, rows n: Int) -> String {
    let stores = ["memory", "sqlite", "postgres"].filter { st in
      storeKeys.contains { $0.dataset == dataset && $0.rows == n && $0.store == st }
    }
    guard stores.count > 1, let batch = batchSizes.first else { return "" }
    let hasPostgres = stores.contains("postgres")
    var md = "### The stores side by side (no index; batch \(batch); median ms)\n\n| scenario |"
    for st in stores {
      let name = Self.storeName(Key(dataset: dataset, rows: n, store: st, index: "none"))
      md += " \(name) full | \(name) batched |"
    }
    if hasPostgres { md += " PostgreSQL round trips full / batched | PostgreSQL bytes received full / batched |" }
    md += "\n|---|" + String(repeating: "---:|", count: stores.count * 2 + (hasPostgres ? 2 : 0)) + "\n"
    for sc in scenarios {
      md += "| \(sc) |"
      for st in stores {
        let k = Key(dataset: dataset, rows: n, store: st, index: "none")
        let f = find(k, mode: "full", batch: 0, scenario: sc, metric: "time_ms")
        let b = find(k, mode: "batched", batch: batch, scenario: sc, metric: "time_ms")
        md += " \(f.map { String(format: "%.1f", $0.value) } ?? "—") | \(b.map { String(format: "%.1f", $0.value) } ?? "—") |"
      }
      if hasPostgres {
        let k = Key(dataset: dataset, rows: n, store: "postgres", index: "none")
        func v(_ mode: String, _ b: Int, _ m: String) -> Double? { find(k, mode: mode, batch: b, scenario: sc, metric: m)?.value }
        md += " \(count(v("full", 0, "round_trips"))) / \(count(v("batched", batch, "round_trips"))) |"
        md += " \(bytes(v("full", 0, "bytes_received"))) / \(bytes(v("batched", batch, "bytes_received"))) |"
      }
      md += "\n"
    }
    if let load = rows.first(where: { $0.dataset == dataset && $0.rows == n && $0.scenario == "load" && $0.status == "ok" }) {
      md += String(
        format:
          "\nLoading the dataset into PostgreSQL (COPY of every table, then indexes and ANALYZE) took **%.2f s** (one load; target well under 5 s).\n",
        load.value)
    }
    return md + "\n"
  }

  func postgresFloorSection(dataset: String, rows n: Int) -> String {
    let floors = rows.filter { $0.dataset == dataset && $0.rows == n && $0.store == "postgres-raw" && $0.status == "ok" }
    guard !floors.isEmpty else { return "" }
    var md = "### PostgreSQL against the floor (the same statements timed by the server, and fetched by psql)\n\n"
    md += "EXPLAIN ANALYZE gives the server's planning + execution time (no network, no client); psql's `\\timing` gives libpq "
    md += "fetching the rows with nothing on top. The store fetches the sorted IDs as one `bigint[]` value "
    md += "(`SELECT ARRAY(…)`, one row instead of one per ID); the target compares it with psql fetching the IDs as rows, the plain way, "
    md +=
      "and psql running the store's own statement is shown too. A scroll-through's psql floor is the ID query plus every batch statement. "
    md += "Heap peaks of PostgreSQL cases count the measuring thread only: rows are decoded on postgres-nio's event-loop thread.\n\n"
    md += "| index | batch | what | engine ms | server ms | psql ms | engine/psql | target |\n|---|---:|---|---:|---:|---:|---:|---:|\n"
    var notes: [String] = []
    for index in Array(Set(floors.map(\.index))).sorted() {
      for batch in batchSizes {
        let k = Key(dataset: dataset, rows: n, store: "postgres", index: index)
        func floor(_ m: String) -> ResultRow? { floors.first { $0.index == index && $0.batch_size == batch && $0.metric == m } }
        func f(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "—" }
        let ids = floor("floor_ids_ms")?.value
        let scroll = floor("floor_scroll_ms")?.value
        let lines: [(String, ResultRow?, Double?, Double?, String)] = [
          (
            "batched performFetch vs the ID query", find(k, mode: "batched", batch: batch, scenario: "perform_fetch", metric: "time_ms"),
            floor("floor_server_ids_ms")?.value, ids, "≤ 1.3"
          ),
          (
            "batched performFetch vs the store's own statement, SELECT ARRAY(the ID query)",
            find(k, mode: "batched", batch: batch, scenario: "perform_fetch", metric: "time_ms"), nil,
            floor("floor_ids_array_ms")?.value, "—"
          ),
          (
            "batched scroll-through vs the ID query + every batch statement",
            find(k, mode: "batched", batch: batch, scenario: "scroll_through", metric: "time_ms"), nil,
            ids.flatMap { i in scroll.map { i + $0 } }, "—"
          ),
          (
            "full performFetch vs all rows", find(k, mode: "full", batch: 0, scenario: "perform_fetch", metric: "time_ms"),
            floor("floor_server_full_ms")?.value, floor("floor_full_ms")?.value, "—"
          ),
        ]
        for (what, engine, server, psql, target) in lines {
          md +=
            "| \(index) | \(batch) | \(what) | \(ms(engine)) | \(f(server)) | \(f(psql)) | \(ratio(engine?.value, psql)) | \(target) |\n"
        }
        if let rt = floor("round_trip_us"), let fixed = floor("batch_fault_fixed_us"), let row = floor("row_cost_us"),
          let crossover = floor("round_trip_batch_size"), let server = floor("floor_server_batch_ms")
        {
          notes.append(
            String(
              format:
                "index %@: one round trip (`SELECT 1` through the store's connection) takes %.0f µs (median of %d, %.0f–%.0f); a batch fault's fixed cost is %.0f µs and each row %.2f µs more (least squares over a scroll through %@ rows at batch sizes %@), so a scroll-through is dominated by round trips below a batch size of **%.0f rows**; the server itself spends %.3f ms on a %d-row batch statement.",
              index, rt.value, rt.repetitions, rt.min, rt.max, fixed.value, row.value, PostgresFloor.sweepRows.grouped,
              PostgresFloor.sweepBatchSizes.map(String.init).joined(separator: ", "), crossover.value, server.value, batch))
          let sweep = PostgresFloor.sweepBatchSizes.compactMap { b in
            floor("sweep_b\(b)_us_per_row").map { String(format: "%d: %.2f µs", b, $0.value) }
          }
          notes.append("index \(index): time per row by batch size: " + sweep.joined(separator: ", "))
        }
      }
    }
    md += "\n" + notes.map { "- \($0)\n" }.joined() + "\n"
    return md
  }

  func floorSection(dataset: String, rows n: Int) -> String {
    let floors = rows.filter { $0.dataset == dataset && $0.rows == n && $0.store == "sqlite-raw" && $0.status == "ok" }
    guard !floors.isEmpty else { return "" }
    var md = "### SQLite against the floor (the same SQL through the raw SQLite C API)\n\n"
    md += "| index | batch | what | engine ms | floor ms | engine/floor | target |\n|---|---:|---|---:|---:|---:|---:|\n"
    var notes: [String] = []
    for index in Array(Set(floors.map(\.index))).sorted() {
      for batch in batchSizes {
        let k = Key(dataset: dataset, rows: n, store: "sqlite", index: index)
        func floor(_ m: String) -> Double? {
          floors.first { $0.index == index && $0.batch_size == batch && $0.metric == m }?.value
        }
        let pairs: [(String, ResultRow?, Double?, String)] = [
          (
            "batched performFetch vs the ID query", find(k, mode: "batched", batch: batch, scenario: "perform_fetch", metric: "time_ms"),
            floor("floor_ids_ms"), "≤ 1.15"
          ),
          // A scroll-through issues the ID query, then every batch query: its floor is both.
          (
            "batched scroll-through vs the ID query + every batch query",
            find(k, mode: "batched", batch: batch, scenario: "scroll_through", metric: "time_ms"),
            floor("floor_ids_ms").flatMap { ids in floor("floor_scroll_ms").map { ids + $0 } }, "≤ 1.15"
          ),
          (
            "full performFetch vs all rows", find(k, mode: "full", batch: 0, scenario: "perform_fetch", metric: "time_ms"),
            floor("floor_full_ms"), "—"
          ),
        ]
        for (what, engine, fl, target) in pairs {
          md +=
            "| \(index) | \(batch) | \(what) | \(ms(engine)) | \(fl.map { String(format: "%.1f", $0) } ?? "—") | \(ratio(engine?.value, fl)) | \(target) |\n"
        }
        if let live = find(k, mode: "batched", batch: batch, scenario: "perform_fetch", metric: "heap_live_bytes")?.value {
          notes.append(
            String(
              format: "index %@, batch %d: live heap after batched performFetch is %.1f bytes per row (target ≤ 16)", index, batch,
              live / Double(n)))
        }
      }
    }
    md += "\n" + notes.map { "- \($0)\n" }.joined() + "\n"
    return md
  }

  func scalingSection() -> String {
    let sizes = Array(Set(rows.map(\.rows))).sorted()
    guard sizes.count > 1 else { return "" }
    var md = "## Scaling with the row count\n\n"
    for k in storeKeys where k.rows == sizes[0] {
      md +=
        "### \(k.dataset), \(Self.storeName(k))\n\n| rows | " + scalingSeries.map { "\($0.label) ms" }.joined(separator: " | ")
        + " |\n|---:|" + String(repeating: "---:|", count: scalingSeries.count) + "\n"
      for n in sizes {
        let kk = Key(dataset: k.dataset, rows: n, store: k.store, index: k.index)
        md +=
          "| \(n.grouped) | "
          + scalingSeries.map { s in
            ms(find(kk, mode: s.mode, batch: s.mode == "full" ? 0 : (batchSizes.first ?? 20), scenario: s.scenario, metric: "time_ms"))
          }.joined(separator: " | ") + " |\n"
      }
      md += "\n![scaling](charts/\(Self.slug(Key(dataset: k.dataset, rows: 0, store: k.store, index: k.index), "scaling")))\n\n"
    }
    return md
  }

  var scalingSeries: [(label: String, mode: String, scenario: String)] {
    [
      ("full first screen", "full", "first_screen"), ("batched first screen", "batched", "first_screen"),
      ("batched scroll", "batched", "scroll_through"),
    ]
  }

  // MARK: charts

  public func charts() -> [(String, String)] {
    if isDiff { return diffCharts() }
    var out: [(String, String)] = []
    for k in storeKeys {
      for batch in batchSizes {
        let cats = scenarios
        func series(_ metric: String) -> [(String, String, [Double?])] {
          [
            ("full", "#d9534f", cats.map { find(k, mode: "full", batch: 0, scenario: $0, metric: metric)?.value }),
            ("batched (\(batch))", "#0275d8", cats.map { find(k, mode: "batched", batch: batch, scenario: $0, metric: metric)?.value }),
          ]
        }
        out.append(
          (
            Self.slug(k, "time-b\(batch)"),
            SVG.bars(
              title: "\(k.dataset) \(k.rows.grouped), \(Self.storeName(k)): time (ms, log scale)", categories: cats,
              series: series("time_ms"), format: { String(format: "%.1f ms", $0) })
          ))
        out.append(
          (
            Self.slug(k, "heap-b\(batch)"),
            SVG.bars(
              title: "\(k.dataset) \(k.rows.grouped), \(Self.storeName(k)): heap live (log scale)", categories: cats,
              series: series("heap_live_bytes"), format: { bytes($0) })
          ))
      }
    }
    let sizes = Array(Set(rows.map(\.rows))).sorted()
    if sizes.count > 1 {
      for k in storeKeys where k.rows == sizes[0] {
        let lines = scalingSeries.map { s in
          (
            s.label,
            sizes.map { n in
              find(
                Key(dataset: k.dataset, rows: n, store: k.store, index: k.index), mode: s.mode,
                batch: s.mode == "full" ? 0 : (batchSizes.first ?? 20), scenario: s.scenario, metric: "time_ms")?.value
            }
          )
        }
        out.append(
          (
            Self.slug(Key(dataset: k.dataset, rows: 0, store: k.store, index: k.index), "scaling"),
            SVG.lines(title: "\(k.dataset), \(Self.storeName(k)): time against rows (log-log)", xs: sizes.map(Double.init), series: lines)
          ))
      }
    }
    return out
  }

  func ms(_ r: ResultRow?) -> String {
    guard let r else { return "—" }
    return String(format: "%.1f [%.1f–%.1f]", r.value, r.min, r.max)
  }
  func ratio(_ a: Double?, _ b: Double?) -> String {
    guard let a, let b, b != 0 else { return "—" }
    let r = a / b
    return r >= 0.1 ? String(format: "%.2f×", r) : String(format: "1/%.0f", b / a)
  }
  func count(_ v: Double?) -> String { v.map { Int($0).grouped } ?? "—" }
}

func bytes(_ v: Double?) -> String {
  guard let v else { return "—" }
  let a = abs(v)
  if a >= 1_073_741_824 { return String(format: "%.2f GiB", v / 1_073_741_824) }
  if a >= 1_048_576 { return String(format: "%.1f MiB", v / 1_048_576) }
  if a >= 1024 { return String(format: "%.1f KiB", v / 1024) }
  return String(format: "%.0f B", v)
}

extension Int {
  var grouped: String {
    let digits = String(magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
      out.append(c)
    }
    return self < 0 ? "-" + out : out
  }
}

/// Minimal, dependency-free SVG charts.
enum SVG {
  static func esc(_ s: String) -> String {
    s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
  }

  /// Horizontal grouped bars on a log axis.
  static func bars(title: String, categories: [String], series: [(String, String, [Double?])], format: (Double) -> String) -> String {
    let values = series.flatMap { $0.2.compactMap { $0 } }.filter { $0 > 0 }
    let lo = log10(max(values.min() ?? 1, 1e-3)) - 0.3
    let hi = log10(max(values.max() ?? 10, 1e-3)) + 0.1
    let left = 170.0
    let width = 560.0
    let barH = 14.0
    let gap = 10.0
    let groupH = Double(series.count) * barH + gap
    let height = 50 + Double(categories.count) * groupH + 30
    var s =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(left + width + 130))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"11\">\n"
    s += "<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\">\(esc(title))</text>\n"
    for (i, (name, color, _)) in series.enumerated() {
      s +=
        "<rect x=\"\(Int(left) + i * 120)\" y=\"28\" width=\"10\" height=\"10\" fill=\"\(color)\"/><text x=\"\(Int(left) + i * 120 + 14)\" y=\"37\">\(esc(name))</text>\n"
    }
    for (c, cat) in categories.enumerated() {
      let y0 = 50 + Double(c) * groupH
      s += "<text x=\"\(Int(left) - 6)\" y=\"\(Int(y0 + groupH / 2))\" text-anchor=\"end\">\(esc(cat))</text>\n"
      for (i, (_, color, vals)) in series.enumerated() {
        guard let v = vals[c], v > 0 else { continue }
        let w = max(1, (log10(v) - lo) / (hi - lo) * width)
        let y = y0 + Double(i) * barH
        s += "<rect x=\"\(Int(left))\" y=\"\(Int(y))\" width=\"\(Int(w))\" height=\"\(Int(barH - 2))\" fill=\"\(color)\"/>"
        s += "<text x=\"\(Int(left + w + 4))\" y=\"\(Int(y + barH - 4))\">\(esc(format(v)))</text>\n"
      }
    }
    return s + "</svg>\n"
  }

  /// Lines on log-log axes.
  static func lines(title: String, xs: [Double], series: [(String, [Double?])]) -> String {
    let colors = ["#d9534f", "#0275d8", "#5cb85c", "#f0ad4e"]
    let ys = series.flatMap { $0.1.compactMap { $0 } }.filter { $0 > 0 }
    let (ylo, yhi) = (log10(ys.min() ?? 1) - 0.2, log10(ys.max() ?? 10) + 0.2)
    let (xlo, xhi) = (log10(xs.first ?? 1), log10(xs.last ?? 10))
    let (l, t, w, h) = (60.0, 40.0, 560.0, 300.0)
    func px(_ x: Double) -> Int { Int(l + (log10(x) - xlo) / max(xhi - xlo, 1e-9) * w) }
    func py(_ y: Double) -> Int { Int(t + h - (log10(y) - ylo) / max(yhi - ylo, 1e-9) * h) }
    var s =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(l + w + 180))\" height=\"\(Int(t + h + 40))\" font-family=\"sans-serif\" font-size=\"11\">\n"
    s += "<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\">\(esc(title))</text>\n"
    s +=
      "<line x1=\"\(Int(l))\" y1=\"\(Int(t + h))\" x2=\"\(Int(l + w))\" y2=\"\(Int(t + h))\" stroke=\"#888\"/><line x1=\"\(Int(l))\" y1=\"\(Int(t))\" x2=\"\(Int(l))\" y2=\"\(Int(t + h))\" stroke=\"#888\"/>\n"
    for x in xs { s += "<text x=\"\(px(x))\" y=\"\(Int(t + h + 15))\" text-anchor=\"middle\">\(Int(x).grouped)</text>\n" }
    for (i, (name, vals)) in series.enumerated() {
      let color = colors[i % colors.count]
      let pts = zip(xs, vals).compactMap { x, y in y.flatMap { $0 > 0 ? "\(px(x)),\(py($0))" : nil } }
      s += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(pts.joined(separator: " "))\"/>\n"
      for (x, y) in zip(xs, vals) {
        if let y, y > 0 { s += "<text x=\"\(px(x) + 3)\" y=\"\(py(y) - 3)\" fill=\"\(color)\">\(String(format: "%.1f", y))</text>\n" }
      }
      s += "<text x=\"\(Int(l + w + 10))\" y=\"\(Int(t) + 14 * i)\" fill=\"\(color)\">\(esc(name)) (ms)</text>\n"
    }
    return s + "</svg>\n"
  }
}
