import Foundation

/// report.md for `fetchbench diff`, from result rows only.
extension Report {
  /// Rows of the diff benchmark (`fetchbench diff`) get its page; rows of `run` the fetch page.
  var isDiff: Bool { rows.contains { $0.mode == Self.diffMode } }
  /// The `mode` column of the diff benchmark's rows.
  static let diffMode = CaseWork.diff(k: nil, sections: false).mode

  func diffRow(_ store: String, _ n: Int, _ scenario: String, _ metric: Metric) -> ResultRow? {
    rows.first { $0.store == store && $0.rows == n && $0.scenario == scenario && $0.metric == metric.name && $0.status == "ok" }
  }

  func precise(_ r: ResultRow?) -> String {
    guard let r else { return "—" }
    let f = r.value < 1 ? "%.3f" : (r.value < 100 ? "%.2f" : "%.0f")
    return String(format: "\(f) [\(f)–\(f)]", r.value, r.min, r.max)
  }

  static func diffLabel(_ scenario: String) -> String {
    var s = scenario.replacingOccurrences(of: "_by_state", with: "")
    s = s == "diff_edit10" ? "10% edit" : "k = " + (Int(s.dropFirst("diff_k".count))?.grouped ?? s)
    return s
  }

  func diffMarkdown() -> String {
    let reps = rows.first { $0.metric == Metric.incremental.name }?.repetitions ?? 0
    var md = "# FetchBench diff results\n\n"
    md += Markdown.provenance(rows)
    md +=
      "Banks sorted by `details.closeDate` descending, a batched controller (batch 20) tracking changes. Each repetition commits one seeded "
    md +=
      "transaction of k changed objects (a third re-sorted, a sixth each renamed, deleted, inserted, moved to another state) or a 10% edit "
    md +=
      "(10% deleted, 10% inserted, 2% re-sorted), then times: **incremental** (`FetchedResultsController.apply`: the change set from the changed "
    md +=
      "objects only, the list updated in place); **our diff** (the whole-list diff of the same two snapshots, minimal moves); the **stdlib**'s "
    md +=
      "`difference(from:).inferringMoves()` on the IDs (abandoned past its budget); **refetch + diff** end to end (a new ID fetch and our diff: "
    md +=
      "the GRDB ValueObservation way). Times are medians of \(reps) repetitions after a warm-up, [min–max]; every change set was replayed "
    md +=
      "under UIKit's rules (`BatchUpdateValidator`) and equalled a fresh fetch. `moves` counts rows relocated (moves, and moves written as "
    md += "delete + insert where both paths coincide); `minimal` is what our whole-list diff needs for the same step.\n\n"
    var keys: [(String, Int, Bool)] = []
    for r in rows where r.mode == Self.diffMode {
      let k = (r.store, r.rows, r.scenario.hasSuffix("_by_state"))
      if !keys.contains(where: { $0 == k }) { keys.append(k) }
    }
    for (store, n, sections) in keys {
      let name = ["memory": "in-memory store", "sqlite": "SQLite", "postgres": "PostgreSQL"][store] ?? store
      md += "## \(name), \(n.grouped) rows, \(sections ? "sections by state" : "one section")\n\n"
      md +=
        "| transaction | incremental ms | our diff ms | stdlib ms | refetch + diff ms | heap peak (incremental) | peak RSS (process) | queries | deletes / inserts / moves / reloads | moves minimal | section changes |\n"
      md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
      let scenarios = rows.filter {
        $0.store == store && $0.rows == n && $0.mode == Self.diffMode && $0.scenario.hasSuffix("_by_state") == sections
      }.map(\.scenario)
      var seen: [String] = []
      for s in scenarios where !seen.contains(s) { seen.append(s) }
      for s in seen {
        func v(_ m: Metric) -> ResultRow? { diffRow(store, n, s, m) }
        let stdlib =
          v(.stdlibDiff).map { precise($0) }
          ?? (v(.stdlibDiffSkipped).map { String(format: "skipped (> %.0f s)", $0.value) } ?? "—")
        md +=
          "| \(Self.diffLabel(s)) | \(precise(v(.incremental))) | \(precise(v(.diff))) | \(stdlib) | \(precise(v(.refetchDiff))) "
        // On a server, a query is a round trip; the bytes are the rows it returned.
        let wire = v(.roundTrips).map { " (\(count($0.value)) round trips, \(bytes(v(.bytesReceived)?.value)))" } ?? ""
        md += "| \(bytes(v(.heapPeak)?.value)) | \(bytes(v(.peakRSS)?.value)) | \(count(v(.queries)?.value))\(wire) "
        md +=
          "| \(count(v(.deletes)?.value)) / \(count(v(.inserts)?.value)) / \(count(v(.moves)?.value)) / \(count(v(.reloads)?.value)) "
        md += "| \(count(v(.movesMinimal)?.value)) | \(count(v(.sectionChanges)?.value)) |\n"
      }
      md += "\n"
      if let k100 = seen.first(where: { $0.hasPrefix("diff_k100") && !$0.hasPrefix("diff_k1000") }),
        let inc = diffRow(store, n, k100, .incremental), let ref = diffRow(store, n, k100, .refetchDiff)
      {
        md += String(
          format:
            "For 100 changed objects, incremental tracking takes %.3f ms (target ≤ 1 ms), %.0f× less than refetching and diffing (%.1f ms).",
          inc.value, ref.value / max(inc.value, 1e-9), ref.value)
      }
      if let edit = seen.first(where: { $0.hasPrefix("diff_edit10") }), let d = diffRow(store, n, edit, .diff) {
        let moves = diffRow(store, n, edit, .movesMinimal)?.value ?? 0
        md += String(
          format: " For the 10%% edit our whole-list diff takes %.1f ms (target ≤ 25 ms) with %@ moves, the minimal number.", d.value,
          Int(moves).grouped)
      }
      md += "\n\n![times](charts/\(Self.diffSlug(store, n, sections)))\n\n"
    }
    md += MemoryFit.section(rows) { "\($0.store) \($0.scenario)" }
    md += Markdown.caseOutcomes(rows) { "\($0.rows) \($0.store) \($0.scenario)" }
    return md
  }

  static func diffSlug(_ store: String, _ n: Int, _ sections: Bool) -> String {
    OutputFolder.safeComponent("diff-\(n)-\(store)\(sections ? "-by-state" : "").svg")
  }

  func diffCharts() -> [(String, String)] {
    var out: [(String, String)] = []
    var keys: [(String, Int, Bool)] = []
    for r in rows where r.mode == Self.diffMode {
      let k = (r.store, r.rows, r.scenario.hasSuffix("_by_state"))
      if !keys.contains(where: { $0 == k }) { keys.append(k) }
    }
    for (store, n, sections) in keys {
      var scenarios: [String] = []
      for r in rows
      where r.store == store && r.rows == n && r.mode == Self.diffMode && r.scenario.hasSuffix("_by_state") == sections
        && !scenarios.contains(r.scenario)
      {
        scenarios.append(r.scenario)
      }
      let series: [(String, String, [Double?])] = [
        ("incremental", "#0275d8", scenarios.map { diffRow(store, n, $0, .incremental)?.value }),
        ("our diff", "#5cb85c", scenarios.map { diffRow(store, n, $0, .diff)?.value }),
        ("stdlib", "#f0ad4e", scenarios.map { diffRow(store, n, $0, .stdlibDiff)?.value }),
        ("refetch + diff", "#d9534f", scenarios.map { diffRow(store, n, $0, .refetchDiff)?.value }),
      ]
      out.append(
        (
          Self.diffSlug(store, n, sections),
          SVG.bars(
            title: "diff, \(store), \(n.grouped) rows\(sections ? ", by state" : ""): time (ms, log scale)",
            categories: scenarios.map(Self.diffLabel), series: series, format: { String(format: "%.2f ms", $0) })
        ))
    }
    return out
  }
}
