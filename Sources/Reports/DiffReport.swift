import Catalog
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

/// report.md for `fetchbench diff`, from result rows only.
extension Report {
  /// Rows of the diff benchmark (`fetchbench diff`) get its page; rows of `run` the fetch page.
  package var isDiff: Bool { rows.contains { $0.mode == Self.diffMode } }
  /// The `mode` column of the diff benchmark's rows.
  package static let diffMode = CaseWork.diff(k: nil, sections: false).mode

  /// One table of the diff page: a store at a row count, with or without sections.
  package struct DiffTable: Equatable {
    package var store: StoreKind
    package var rows: Int
    package var sections: Bool

    package init?(_ r: ResultRow) {
      guard r.mode == Report.diffMode, case .diff(let workload) = r.scenario, let store = r.store.kind else {
        return nil
      }
      (self.store, rows, sections) = (store, r.rows, workload.sections)
    }
  }

  /// The tables, in the order of the rows.
  package var diffTables: [DiffTable] {
    var out: [DiffTable] = []
    for r in rows {
      if let t = DiffTable(r), !out.contains(t) { out.append(t) }
    }
    return out
  }

  /// The transactions `table` measured, in the order of the rows.
  package func workloads(_ table: DiffTable) -> [DiffWorkload] {
    var out: [DiffWorkload] = []
    for r in rows where DiffTable(r) == table {
      if case .diff(let w) = r.scenario, !out.contains(w) { out.append(w) }
    }
    return out
  }

  package func diffRow(_ table: DiffTable, _ workload: DiffWorkload, _ metric: Metric) -> ResultRow? {
    rows.first { DiffTable($0) == table && $0.scenario == .diff(workload) && $0.metric == metric && $0.isOK }
  }

  package func precise(_ r: ResultRow?) -> String {
    guard let r else { return "—" }
    let f = r.value < 1 ? "%.3f" : (r.value < 100 ? "%.2f" : "%.0f")
    return String(format: "\(f) [\(f)–\(f)]", r.value, r.min, r.max)
  }

  /// What the Core Data columns are, under the page's introduction.
  package static let coreDataRulesNote =
    """
    **Under Core Data's change rules** a second controller of the same list applies each transaction as \
    NSFetchedResultsController 
    """
      + """
      does: a move for every changed object whose sort or section key changed (even where its place did not), an \
      update otherwise, and 
      """
      + """
      changes to related objects not observed. Its change sets replay under UIKit's rules too; `stale rows` counts the \
      rows it then shows 
      """
      + """
      out of place against a fresh fetch (those a refetch would move, insert or delete), accumulated since the list \
      was opened (the most seen in the run): a bank 
      """
    + "whose `details.closeDate` changed stays where it was until the app fetches again.\n\n"

  package func diffMarkdown() -> String {
    let reps = rows.first { $0.metric == .incremental }?.repetitions ?? 0
    var md = "# FetchBench diff results\n\n"
    md += Markdown.provenance(rows)
    let kind = rows.first { $0.dataset != nil }?.dataset ?? .banks
    let store =
      CoreDataNames.isGeneratedFile(kind)
      ? "the dataset in Core Data's schema (`generate --schema coredata`)" : "your database"
    md +=
      kind == .banks
      ? """
      Banks sorted by `details.closeDate` descending, a batched controller (batch 20) tracking changes. Each \
      repetition commits one seeded 
      """
      : """
      \(kind.definition.listEntity) of \(store) sorted by \(kind.definition.sortDescription), a batched controller \
      (batch 20) tracking changes, on a private copy of the file. Each repetition commits one seeded 
      """
    md +=
      kind == .banks
      ? """
      transaction of k changed objects (a third re-sorted, a sixth each renamed, deleted, inserted, moved to another \
      state) or a 10% edit 
      """
      : """
      transaction of k changed objects (six in ten updated, one or two attributes set to values other rows hold; two \
      deleted; two inserted as copies of other rows) or a 10% edit 
      """
    md +=
      (kind == .banks ? "(10% deleted, 10% inserted, 2% re-sorted)" : "(a tenth of the rows changed in the same mix)")
      + ", then times: **incremental** (`FetchedResultsController.apply`: the change set from the changed "
    md +=
      """
      objects only, the list updated in place); **our diff** (the whole-list diff of the same two snapshots, minimal \
      moves); the **stdlib**'s 
      """
    md +=
      """
      `difference(from:).inferringMoves()` on the IDs (abandoned past its budget); **refetch + diff** end to end (a \
      new ID fetch and our diff: 
      """
    md +=
      """
      the GRDB ValueObservation way). Times are medians of \(reps) repetitions after a warm-up, [min–max]; every \
      change set was replayed 
      """
    md +=
      """
      under UIKit's rules (`BatchUpdateValidator`) and equalled a fresh fetch. `moves` counts rows relocated (moves, \
      and moves written as 
      """
    md +=
      "delete + insert where both paths coincide); `minimal` is what our whole-list diff needs for the same step."
    if rows.contains(where: { $0.metric == .saveStatements }) {
      md +=
        """
         **save** counts what the step's save issued through the store: its statements, and its commits (each an \
        fsync under `synchronous=FULL`; on a Core Data file a save that inserts commits twice, its keys first).
        """
    }
    md += "\n\n"
    // Runs before Core Data's change rules were measured have none of their figures.
    let coreDataRules = rows.contains { $0.metric == .staleRowsCoreData }
    if coreDataRules {
      md += Self.coreDataRulesNote
    }
    for table in diffTables {
      md +=
        """
        ## \(table.store.displayName), \(table.rows.grouped) rows, \
        \(table.sections ? "sections by \(grouping)" : "one section")\n\n
        """
      md += diffTable(table, coreDataRules: coreDataRules) + "\n" + diffSummary(table)
      md += "\n\n![times](charts/\(Self.diffSlug(table)))\n\n"
    }
    md += MemoryFit.section(rows) { "\($0.store.csv) \($0.scenario.csv)" }
    md += Markdown.caseOutcomes(rows) { "\($0.rows) \($0.store.csv) \($0.scenario.csv)" }
    return md
  }

  /// One table of the diff page: a row per transaction, the Core Data columns when measured.
  package func diffTable(_ table: DiffTable, coreDataRules: Bool) -> String {
    // Runs before a save's statements were counted have no such column.
    let saves = workloads(table).contains { diffRow(table, $0, .saveStatements) != nil }
    let columns: [MarkdownTable.Column] =
      [.left("transaction")]
      + [
        "incremental ms", "our diff ms", "stdlib ms", "refetch + diff ms", "heap peak (incremental)",
        "peak RSS (process)",
        "queries", "deletes / inserts / moves / reloads", "moves minimal", "section changes",
      ].map { .right($0) }
      + (saves ? [.right("save: statements / commits")] : [])
      + (coreDataRules ? [.right("Core Data's rules: moves / reloads"), .right("stale rows (most)")] : [])
    var md = MarkdownTable(columns).header
    let seen = workloads(table)
    for s in seen {
      func v(_ m: Metric) -> ResultRow? { diffRow(table, s, m) }
      let stdlib =
        v(.stdlibDiff).map { precise($0) }
        ?? (v(.stdlibDiffSkipped).map { String(format: "skipped (> %.0f s)", $0.value) } ?? "—")
      md +=
        "| \(s.label) | \(precise(v(.incremental))) | \(precise(v(.diff))) | \(stdlib) | \(precise(v(.refetchDiff))) "
      // On a server, a query is a round trip; the bytes are the rows it returned.
      let wire = v(.roundTrips).map { " (\(count($0.value)) round trips, \(bytes(v(.bytesReceived)?.value)))" } ?? ""
      md += "| \(bytes(v(.heapPeak)?.value)) | \(bytes(v(.peakRSS)?.value)) | \(count(v(.queries)?.value))\(wire) "
      md +=
        """
        | \(count(v(.deletes)?.value)) / \(count(v(.inserts)?.value)) / \(count(v(.moves)?.value)) / \
        \(count(v(.reloads)?.value)) 
        """
      md += "| \(count(v(.movesMinimal)?.value)) | \(count(v(.sectionChanges)?.value)) |"
      if saves { md += " \(count(v(.saveStatements)?.value)) / \(count(v(.saveCommits)?.value)) |" }
      if coreDataRules {
        md +=
          """
           \(count(v(.movesCoreData)?.value)) / \(count(v(.reloadsCoreData)?.value)) | \
          \(count(v(.staleRowsCoreData)?.max)) |
          """
      }
      md += "\n"
    }
    return md
  }

  /// The sentences under a table: 100 objects against refetching, the 10% edit, the relaunch.
  package func diffSummary(_ table: DiffTable) -> String {
    var md = ""
    let seen = workloads(table)
    if let k100 = seen.first(where: { $0.k == 100 }),
      let inc = diffRow(table, k100, .incremental), let ref = diffRow(table, k100, .refetchDiff)
    {
      let ratio = ref.value / max(inc.value, 1e-9)
      let relation =
        ratio >= 1.5
        ? String(format: "%.0f× less than", ratio)
        : ratio > 1 / 1.5 ? "about as long as" : String(format: "%.1f× longer than", 1 / ratio)
      md += String(
        format:
          """
          For 100 changed objects, incremental tracking takes %.3f ms (target ≤ 1 ms), %@ refetching and diffing \
          (%.1f ms).
          """,
        inc.value, relation, ref.value)
    }
    if let edit = seen.first(where: { $0.k == nil }), let d = diffRow(table, edit, .diff) {
      let moves = diffRow(table, edit, .movesMinimal)?.value ?? 0
      md += String(
        format:
          " For the 10%% edit our whole-list diff takes %.1f ms (target \(Targets.tenPercentEditDiffMs)) with %@ "
          + "moves, the minimal number.",
        d.value,
        Int(moves).grouped)
    }
    if let w = seen.first, let stale = diffRow(table, w, .relaunchAfterSave),
      let valid = diffRow(table, w, .relaunchCached)
    {
      md +=
        """
         A relaunch with a section cache (`cacheName`) after each save takes \(precise(stale)) ms: the save made the \
        cache stale, 
        """
      md +=
        """
        so the sections are counted again (and saved); the next relaunch, the cache valid, takes \(precise(valid)) \
        ms (\(w.label)).
        """
    }
    return md
  }

  package static func diffSlug(_ t: DiffTable) -> String {
    FileName.safeComponent("diff-\(t.rows)-\(t.store.rawValue)\(t.sections ? "-sections" : "").svg")
  }

  /// The key path the sectioned list groups by, in the dataset's words.
  package var grouping: String {
    let kind = rows.first { $0.dataset != nil }?.dataset ?? .banks
    return kind == .banks ? "state" : kind.definition.sectionKeyPath
  }

  /// A bar series of the diff charts: what it measured, and the metric that says it was
  /// skipped, so that the word for a skipped bar belongs to its series rather than to a position.
  struct DiffSeries {
    let name: String
    let color: String
    let measured: Metric
    let skipped: Metric?

    static let all = [
      DiffSeries(name: "incremental", color: "#0275d8", measured: .incremental, skipped: nil),
      DiffSeries(name: "our diff", color: "#5cb85c", measured: .diff, skipped: nil),
      DiffSeries(name: "stdlib", color: "#f0ad4e", measured: .stdlibDiff, skipped: .stdlibDiffSkipped),
      DiffSeries(name: "refetch + diff", color: "#d9534f", measured: .refetchDiff, skipped: nil),
    ]
  }

  package func diffCharts() -> [(String, String)] {
    var out: [(String, String)] = []
    for table in diffTables {
      let scenarios = workloads(table)
      let series = DiffSeries.all.map { one in
        (one.name, one.color, scenarios.map { diffRow(table, $0, one.measured)?.value })
      }
      out.append(
        (
          Self.diffSlug(table),
          SVG.bars(
            title:
              """
              diff, \(table.store.rawValue), \(table.rows.grouped) \
              rows\(table.sections ? ", sections by \(grouping)" : ""): time per transaction
              """,
            axisTitle: "median time", categories: scenarios.map(\.label), series: series, format: milliseconds,
            unmeasured: { s, c in
              let one = DiffSeries.all[s]
              guard let skipped = one.skipped, let limit = diffRow(table, scenarios[c], skipped) else { return nil }
              return "\(one.name): skipped (> \(String(format: "%.0f", limit.value)) s)"
            })
        ))
    }
    return out
  }
}
