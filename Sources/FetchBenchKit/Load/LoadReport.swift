import DatasetStores
import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import Reports
import ResultModel
import TextFormatting
import Vocabulary

/// The files of a load run: `timeline.csv` (one row per store, rate and second),
/// `summary.csv` (long form: one row per store, rate and metric), `results.json`,
/// `report.md` and SVG charts under `charts/`.
package struct LoadReport {
  var runID: String
  var machine: Machine
  var checksum: String
  var results: [LoadResult]
  var steps: [RateStep]
  var maxRates: [String: Double]
  var rawLimits: [RawLimit] = []
  var findMaxRate: Bool

  /// What a load folder holds; an unmarked `latest` folder of these alone is FetchBench's own.
  static let names: Set<String> = [
    "timeline.csv", "summary.csv", "results.json", "search.json", "run.json", "report.md", "charts",
  ]

  /// `--find-max-rate`'s own figures, beside the runs' in results.json: each store's own write
  /// limit and write path alone, every step with what it missed, the highest sustained rates.
  struct Search: Codable {
    var rawLimits: [RawLimit]
    var steps: [RateStep]
    var maxRates: [String: Double]
  }

  func write(to dir: String) throws {
    try OutputFolder.write(to: dir, command: .load) { tmp in
      try FileManager.default.createDirectory(atPath: tmp + "/charts", withIntermediateDirectories: false)
      try Data(timelineCSV().utf8).write(to: URL(fileURLWithPath: tmp + "/timeline.csv"))
      try Data(summaryCSV().utf8).write(to: URL(fileURLWithPath: tmp + "/summary.csv"))
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      try encoder.encode(results).write(to: URL(fileURLWithPath: tmp + "/results.json"))
      try encoder.encode(RunInfo(runID: runID, machine: machine, checksum: checksum))
        .write(to: URL(fileURLWithPath: tmp + "/run.json"))
      if findMaxRate {
        try encoder.encode(Search(rawLimits: rawLimits, steps: steps, maxRates: maxRates))
          .write(to: URL(fileURLWithPath: tmp + "/search.json"))
      }
      for (name, svg) in charts() {
        try Data(svg.utf8).write(to: URL(fileURLWithPath: try OutputFolder.child(tmp + "/charts", name)))
      }
      try Data(markdown().utf8).write(to: URL(fileURLWithPath: tmp + "/report.md"))
    }
  }

  static func f(_ v: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", v) }

  func timelineCSV() -> String {
    var out =
      [
        "run_id", "store", "target_rate", "second", "commits", "failed_commits", "change_sets", "coalesced",
        "delivery_p50_ms", "delivery_p99_ms", "delivery_max_ms", "change_set_p99_ms", "faults", "fault_p99_ms",
        "heap_bytes", "rss_bytes",
      ].joined(separator: ",") + "\n"
    for r in results {
      for s in r.timeline {
        let cells: [String] = [
          runID, r.config.store.rawValue, Self.f(r.config.rate, 0), "\(s.second)", "\(s.commits)", "\(s.failedCommits)",
          "\(s.changeSets)",
          "\(s.coalesced)", Self.f(s.deliveryP50Ms), Self.f(s.deliveryP99Ms), Self.f(s.deliveryMaxMs),
          Self.f(s.changeSetP99Ms),
          "\(s.faults)", Self.f(s.faultP99Ms), "\(s.heapBytes)", "\(s.rssBytes)",
        ]
        out += cells.joined(separator: ",") + "\n"
      }
    }
    return out
  }

  /// Every figure of every result, with what it is and how many samples it has.
  func summaryRows(_ r: LoadResult) -> [(metric: Metric, value: Double, samples: UInt64)] {
    var rows: [(Metric, Double, UInt64)] = [
      (.seconds, r.seconds, 1),
      (.commits, Double(r.commits), 1),
      (.commitsPerSecond, r.commitsPerSecond, 1),
      (.attemptsPerSecond, r.attemptsPerSecond, 1),
      (.targetCommitsPerSecond, r.config.rate, 1),
      (.failedCommits, Double(r.failedCommits), 1),
      (.changeSets, Double(r.changeSets), 1),
      (.coalescedTransactions, Double(r.coalescedTransactions), 1),
      (.faults, Double(r.faults), 1),
      (.faultsPerSecond, r.seconds > 0 ? Double(r.faults) / r.seconds : 0, 1),
      (.reconnects, Double(r.reconnects), 1),
      (.staleReads, Double(r.staleReads), 1),
      (.invalidChangeSets, Double(r.invalidChangeSets), 1),
      (.missedTransactions, Double(r.missedTransactions), 1),
      (.repeatedTransactions, Double(r.repeatedTransactions), 1),
      (.mirrorsMatch, r.mirrorsMatch ? 1 : 0, 1),
      (.rolledBackRowsVisible, Double(r.rolledBackRowsVisible), 1),
      (.peakRSS, Double(r.peakRSSBytes), 1),
    ]
    if r.config.changeRules == .coreData { rows.append((.staleRowsCoreData, Double(r.staleRows), 1)) }
    if let g = r.heapGrowthBytes { rows.append((.heapGrowth, Double(g), UInt64(r.timeline.count))) }
    for (name, p) in [("delivery", r.delivery), ("change_set", r.changeSet), ("fault", r.faultLatency)] {
      for (q, v) in [("p50", p.p50), ("p90", p.p90), ("p99", p.p99), ("p999", p.p999), ("max", p.max)] {
        rows.append((.latency(name, q), v, p.count))
      }
    }
    return rows
  }

  func summaryCSV() -> String {
    var out =
      [
        "run_id", "store", "target_rate", "metric", "value", "unit", "samples", "machine_cores", "swift_version",
        "git_commit", "dataset_sha256", "status", "processor",
      ].joined(separator: ",") + "\n"
    for r in results {
      for row in summaryRows(r) {
        out +=
          [
            runID, r.config.store.rawValue, Self.f(r.config.rate, 0), row.metric.name, Self.f(row.value),
            row.metric.unit.rawValue,
            "\(row.samples)",
            "\(machine.cores)",
            ResultsCSV.quote(machine.swiftVersion), machine.gitCommit, checksum,
            (r.ok ? ResultStatus.ok : .failed).rawValue, ResultsCSV.quote(machine.processor),
          ].joined(separator: ",") + "\n"
      }
    }
    return out
  }

  /// "one frame at 60 Hz (16.7 ms)", or the budget a run was given instead.
  static func frameBudgetText(_ ms: Double) -> String {
    ms == LoadRunner.frameMs ? "one frame at 60 Hz (\(f(ms, 1)) ms)" : "\(f(ms, 1)) ms (--frame-budget-ms)"
  }

  /// Short names: the load test runs on one SQLite plan, so it needs no plan in the name.
  static func storeName(_ s: StoreKind) -> String {
    s == .memory ? "in-memory" : s == .sqlite ? "SQLite" : s.displayName
  }

  func markdown() -> String {
    guard let c = results.first?.config else { return "# FetchBench load test\n\nNo results.\n" }
    var md = "# FetchBench load test\n\n"
    md +=
      """
      Run \(Markdown.code(runID)) at commit \(Markdown.code(machine.gitCommit)) (\(machine.commitSummary)) on \
      \(Markdown.escape(machine.summary)).\n\n
      """
    md += method(c) + summarySection() + checksSection(c)
    if findMaxRate { md += maxRateSection() }
    return md + timelineSection()
  }

  /// What ran and how it is measured.
  func method(_ c: LoadConfig) -> String {
    """
    **What ran.** Banks, \(c.rows.grouped) rows, sorted by `details.closeDate` descending. \(c.writers) writers commit \
    seeded \
    transactions of \(c.transactionSizeMin)–\(c.transactionSizeMax) changed objects (re-sorting updates, renames, \
    deletes, \
    inserts, moves between state sections) at a target rate shared among them, each on its own connection (on SQLite, \
    which takes one writer at a time, they hand their transactions to one writer connection on one thread, as an app's \
    serial write queue does); \
    \(Int(c.failureRate * 100))% of them fail after their writes and must roll back. \(c.observers) observers each \
    hold a \
    batched controller (batch \(c.batchSize); even-numbered ones one list, odd-numbered ones sectioned by state) on a \
    connection of their own and replay every change set on a mirror under UIKit's batch-update rules; a scroller per \
    observer reads a screen (20 rows at a random position) \(Int(c.screensPerSecond)) times a second through the same \
    controller, never at the same time as a delivery (one main thread). Each store ran in a fresh process.

    **How it is measured.** Delivery latency runs from a transaction's commit (the earliest of its writer's `commit()` \
    returning and an observer receiving it) to the end of the observer's `apply`; a transaction coalesced with others \
    counts once per transaction. Percentiles come from HdrHistogram (3 significant digits) over every transaction and \
    every observer; change-set time is `apply` alone; fault latency is a scroller's read that faulted a batch. A \
    stale read is a fault that found a row already deleted by a transaction not yet delivered (Core Data's "could not \
    fulfill a fault"; an app shows a placeholder until the change set arrives). Heap is \
    jemalloc's live bytes of the whole process, sampled each second.

    \(c.schema == .coreData ? Self.coreDataSchemaNote : "")\(c.historyTracking ? Self.historyNote : "")
    """
  }

  static let historyNote = """
    **With persistent history** (`--history-tracking`): each save also writes one `ATRANSACTION` row and one `ACHANGE` \
    row per changed object (its author named in `ATRANSACTIONSTRING`), in the save's own transaction, as a store an \
    app syncs through CloudKit does; run once with and once without it to read what history costs the sustained rate.

    """

  static let coreDataSchemaNote = """
    **In Core Data's schema** (`--schema coredata`). The writers write banks' Core Data file (`ZFAILEDBANKINFO`, \
    `ZFAILEDBANKDETAILS`) as Core Data's save writes it: an insert writes `Z_ENT` and `Z_OPT` 1, and both sides of the \
    bank–details one-to-one (`ZDETAILS`, `ZINFO`); an update sets `Z_OPT` to the next version where the row is still \
    at the \
    version read, a delete removes the row only at that version (optimistic locking); dates are seconds since 2001; \
    each save \
    with inserts raises `Z_PRIMARYKEY.Z_MAX` once per entity. The observers read the file with FetchBench's statements \
    and \
    follow its change log, as on the dataset's own file.


    """

  /// One row of figures per store and rate, then the sample counts.
  func summarySection() -> String {
    var md = "## Summary\n\n"
    md +=
      MarkdownTable(
        .left("store"), .right("target /s"), .right("attempted /s"), .right("committed /s"), .right("rolled back"),
        .left("delivery p50 / p90 / p99 / p99.9 / max (ms)"), .left("change set p50 / p99 (ms)"), .right("faults /s"),
        .left("fault p50 / p99 (ms)"), .right("stale reads"), .right("coalesced"), .right("reconnects"),
        .right("heap growth"), .right("peak RSS"), .left("checks")
      ).header
    for r in results {
      let d = r.delivery
      md +=
        """
        | \(Self.storeName(r.config.store)) | \(Int(r.config.rate)) | \(Self.f(r.attemptsPerSecond, 1)) | \
        \(Self.f(r.commitsPerSecond, 1)) | \(r.failedCommits) | \(Self.f(d.p50, 2)) / \(Self.f(d.p90, 2)) / \
        \(Self.f(d.p99, 2)) / \(Self.f(d.p999, 2)) / \(Self.f(d.max, 2)) | \(Self.f(r.changeSet.p50, 2)) / \
        \(Self.f(r.changeSet.p99, 2)) | \(Self.f(r.seconds > 0 ? Double(r.faults) / r.seconds : 0, 1)) | \
        \(Self.f(r.faultLatency.p50, 2)) / \(Self.f(r.faultLatency.p99, 2)) | \(r.staleReads) | \
        \(r.coalescedTransactions) | \(r.reconnects) | \
        \(r.heapGrowthBytes.map { bytes(Double($0)) } ?? "not judged") | \(bytes(Double(r.peakRSSBytes))) | \
        \(r.ok ? "all passed" : "**\(r.failures.count) failed**") |\n
        """
    }
    md += "\n"
    let deliveries = results.map { "\(Self.storeName($0.config.store)) \(Int($0.delivery.count).grouped)" }
    md += "Samples: delivery latencies \(deliveries.joined(separator: ", ")); "
    md += "change sets \(results.map { "\(Int($0.changeSet.count).grouped)" }.joined(separator: ", ")); "
    md += "faults \(results.map { "\(Int($0.faultLatency.count).grouped)" }.joined(separator: ", ")).\n\n"
    md += savesLine()

    return md
  }

  /// `Per save: SQLite 9.1 statements and 1.6 commits …`: what each save attempted cost its
  /// store, where it went through the store; empty otherwise.
  func savesLine() -> String {
    // One figure per store: the mean over its runs (a rate search's steps), each weighed alike.
    var stores: [StoreKind] = []
    for r in results where r.statementsPerSave != nil && !stores.contains(r.config.store) {
      stores.append(r.config.store)
    }
    let measured = stores.map { store -> String in
      let runs = results.filter { $0.config.store == store }
      func mean(_ xs: [Double]) -> Double { xs.reduce(0, +) / Double(max(1, xs.count)) }
      let (statements, commits) = (mean(runs.compactMap(\.statementsPerSave)), mean(runs.compactMap(\.commitsPerSave)))
      return "\(Self.storeName(store)) \(Self.f(statements, 1)) statements and \(Self.f(commits, 2)) commits"
    }
    guard !measured.isEmpty else { return "" }
    return """
      Per save attempted (rolled back ones included): \(measured.joined(separator: "; ")) (statements: the writes, the \
      reads of old values and a Core Data file's key allocation; commits: a Core Data save that inserts commits its \
      keys first; on SQLite each commit appends to the WAL with one fsync under `synchronous=FULL`).\n\n
      """
  }

  /// The end-of-run checks, one row per store and rate, then any failure.
  func checksSection(_ c: LoadConfig) -> String {
    var md = "## Checks\n\n"
    md +=
      """
      At the end the writers stop, the observers catch up, and each mirror is compared with a fresh fetch on a new \
      connection (under Core Data's change rules, with its controller's list). The run's exit code is non-zero when \
      any check fails.\n\n
      """
    md +=
      MarkdownTable(
        .left("store"), .left("mirrors = fresh fetch"), .right("invalid change sets"), .right("missed"),
        .right("applied twice"), .right("rows of failed transactions visible"),
        .left("heap growth ≤ \(bytes(Double(c.heapBoundBytes)))")
      ).header
    for r in results {
      let heap = r.heapGrowthBytes.map {
        $0 <= r.config.heapBoundBytes ? "yes (\(bytes(Double($0))))" : "**no** (\(bytes(Double($0))))"
      }
      md +=
        """
        | \(Self.storeName(r.config.store))\(findMaxRate ? " at \(Int(r.config.rate))/s" : "") | \
        \(r.mirrorsMatch ? "yes" : "**no**") | \(r.invalidChangeSets) | \(r.missedTransactions) | \
        \(r.repeatedTransactions) | \(r.rolledBackRowsVisible) | \(heap ?? "not judged (under 20 s)") |\n
        """
    }
    let failed = results.flatMap { r in
      r.failures.map { "- \(Self.storeName(r.config.store)) at \(Int(r.config.rate))/s: \(Markdown.escape($0))" }
    }
    if c.changeRules == .coreData {
      md +=
        """
        \nThe observers kept Core Data's change rules (`--change-rules coredata`): each mirror is compared with its \
        controller's list, 
        """
        + "which does not follow changes to related objects. At the end those lists showed "
        + results.map { "\($0.staleRows.grouped) row(s) out of place on \(Self.storeName($0.config.store))" }.joined(
          separator: ", ")
        + " against a fresh fetch: what a user would see until the app fetches again.\n"
    }
    if !failed.isEmpty { md += "\nFailures:\n\n" + failed.joined(separator: "\n") + "\n" }
    md +=
      """
      \nHeap growth compares the mean live heap over the run's last fifth with its mean over 10–30% of the run (runs \
      of 20 s or more).\n\n
      """

    return md
  }

  /// The rate search: each store's highest sustained rate beside its own write limit, what
  /// bounded it, then every step.
  func maxRateSection() -> String {
    let budget = Self.frameBudgetText(results.first?.config.frameBudgetMs ?? LoadRunner.frameMs)
    let seconds = Int(results.first?.config.duration ?? 0)
    var md = "## Highest sustained rate\n\n"
    md +=
      """
      Each store's own write limit comes first: the same seeded transactions committed through the store's client \
      alone, one after another for \(seconds) s in a fresh process, with no observers (`WriteSQL`: one statement per \
      row by primary key and the change-log row; no reads of old values, no change recording). SQLite: its C API on \
      one connection (SQLite takes one writer at a time), unmapped, as the load test's own connections. PostgreSQL: \
      postgres-nio on each writer's session, every statement of a transaction sent before the first is waited for. \
      In-memory: the store's own commit. Then FetchBench's own write path alone, with the run's writers as fast as \
      they go and no observers: the store's commit, which reads each written row's old values and records the change \
      for observers. Durability, as each store reported it: \
      \(rawLimits.map { "\(Self.storeName($0.store)): \($0.durability)" }.joined(separator: "; ")).\n\n
      """
    md +=
      """
      Then the rate doubles from \(Int(LoadRunner.firstRate))/s (halving down to \(Int(LoadRunner.lowestRate))/s \
      when that fails) until a step is not sustained, and bisects between the highest sustained and the lowest \
      unsustained rate until they are within \(Int((RateSearch.closeEnough - 1) * 100))% or after \
      \(RateSearch.maxBisections) bisections; \(seconds) s per step in a fresh process. A step is sustained when its \
      writers attempt at least 95% of the target (transactions that roll back count), p99 delivery stays under \
      \(budget), and every check passes.\n\n
      """
    md +=
      MarkdownTable(
        .left("store"), .right("own write limit /s"), .right("FetchBench's write path alone /s"),
        .right("highest sustained /s"), .right("fraction of the limit"), .left("the next step up missed"),
        .right("cores busy there"), .right("of which change sets")
      ).header
    for s in StoreKind.allCases where steps.contains(where: { $0.store == s }) {
      let limit = rawLimits.first { $0.store == s }
      let sustained = maxRates[s.rawValue]
      var fraction = "—"
      if let l = limit?.commitsPerSecond, let r = sustained, l > 0 { fraction = "\(Int((100 * r / l).rounded()))%" }
      let bound = steps.filter { $0.store == s && !$0.sustained }.min { $0.rate < $1.rate }
      let limitText =
        limit.map { "\(Self.f($0.commitsPerSecond, 0)) (\($0.writers) writer\($0.writers == 1 ? "" : "s"))" } ?? "—"
      md +=
        """
        | \(Self.storeName(s)) | \(limitText) | \(limit.map { Self.f($0.writePathPerSecond, 0) } ?? "—") | \
        \(sustained.map { "\(Int($0))" } ?? "none (not even \(Int(LoadRunner.lowestRate)))") | \(fraction) | \
        \(bound.map { "\(Int($0.rate))/s: \($0.missed.joined(separator: "; "))" } ?? "— (the highest rate tried)") | \
        \(bound.map { Self.f($0.coresBusy, 2) } ?? "—") | \(bound.map { Self.f($0.changeSetCores, 2) } ?? "—") |\n
        """
    }
    md +=
      """
      \nCores busy: the process's user and system CPU time over the step's wall time, all threads (writers, \
      observers, scrollers; a PostgreSQL server's own processes are not counted); this machine has \(machine.cores). \
      Of which change sets: the observers' time in the controller's `apply`, over the wall time.\n\n
      """
    md +=
      MarkdownTable(
        .left("store"), .right("target /s"), .right("attempted /s"), .right("delivery p99 (ms)"),
        .right("change sets /s"), .right("change set p50 (ms)"), .right("cores busy"), .right("of which change sets"),
        .left("checks"), .left("sustained")
      ).header
    for s in steps {
      md +=
        """
        | \(Self.storeName(s.store)) | \(Int(s.rate)) | \(Self.f(s.achieved, 1)) | \(Self.f(s.deliveryP99Ms, 2)) | \
        \(Self.f(s.changeSetsPerSecond, 0)) | \(Self.f(s.changeSetP50Ms, 2)) | \(Self.f(s.coresBusy, 2)) | \
        \(Self.f(s.changeSetCores, 2)) | \(s.ok ? "passed" : "failed") | \
        \(s.sustained ? "yes" : "no: " + s.missed.joined(separator: "; ")) |\n
        """
    }
    md += "\n"
    return md
  }

  /// The per-second charts of each run.
  func timelineSection() -> String {
    var md = "## Over time\n\n"
    for r in results where !r.timeline.isEmpty {
      let slug = Self.slug(r)
      md += "### \(Self.storeName(r.config.store)), target \(Int(r.config.rate))/s\n\n"
      md +=
        """
        ![commits](charts/\(slug)-commits.svg) ![delivery](charts/\(slug)-delivery.svg) \
        ![heap](charts/\(slug)-heap.svg)\n\n
        """
    }
    md += "Per-second figures: `timeline.csv`; every summary figure with its sample count: `summary.csv`.\n"
    return md
  }
}
