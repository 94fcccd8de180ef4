import Catalog
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

// The index advice: every candidate index against none, and the one to add.
extension Report {
  /// The works the table shows, with their headings and units.
  package static let adviceColumns: [(scenario: ResultScenario, heading: String)] = IndexAdvice.Work.allCases.map {
    work in
    let heading =
      switch work {
      case .performFetch: "performFetch (ID query)"
      case .sectioned: "sectioned performFetch"
      case .batchFault: "batch fault"
      case .firstPage: "first page (LIMIT)"
      case .seekMiddle: "keyset page at n/2"
      case .firstScreen: "batched first screen"
      }
    return (.forAdvice(work), heading)
  }

  /// The index advice's section: how it was measured, a table of every candidate against
  /// none, the index to add for each opening query, and the plans. Empty without advice rows.
  package func indexAdviceSection(dataset: DatasetKind, rows n: Int) -> String {
    let here = advice.filter { $0.dataset == dataset && $0.rows == n && $0.isOK }
    guard let any = here.first else { return "" }
    let store = any.store.kind ?? .sqlite
    let picks = IndexPick.all(advice).filter { $0.dataset == dataset && $0.rows == n }
    return "### Index advice, \(dataset.displayName) at \(n.grouped) rows (\(store.displayName))\n\n"
      + Self.adviceMethod(
        store, repetitions: any.repetitions, batchSize: any.batchSize, usersFile: database != nil,
        usersServer: database?.onServer == true)
      + candidatesTable(here, dataset)
      + (IndexAdvice.collatedSortNote(dataset, request: customRequest?.request).map { $0 + "\n\n" } ?? "")
      + pickSentences(picks, here) + Self.plansTable(picks, here, store)
  }

  /// `usersFile`: the list is a user's database, whose candidates are built in copies of it;
  /// `usersServer`: on a PostgreSQL server, in a schema of FetchBench's own.
  package static func adviceMethod(
    _ store: StoreKind, repetitions: Int, batchSize: Int, usersFile: Bool = false, usersServer: Bool = false
  )
    -> String
  {
    let loaded =
      usersServer
      ? """
      the list's tables are copied into a schema of FetchBench's own in your database (your schema is only read; the \
      copy is dropped after) with every candidate
      """
      : "the dataset is loaded with every candidate"
    let files =
      usersFile
      ? """
      in a temporary copy of your database of its own (your tables as declared, with the rows of the list's table \
      and the tables its relationships reach; your file is only read)
      """
      : "in a dataset file of its own (the same rows)"
    return
      """
      Each candidate index is timed against none in one process: on SQLite each lives \(files) and the case opens \
      every file. It times the operations on each variant in turn, no index included, in every one of its \
      \(repetitions) repetitions after a 
      """
        + """
        warm-up, so each `× none` is the median of per-pair ratios [min–max] in one process. Every variant returns \
        the unindexed 
        """
          + """
          IDs in the same order (checked before timing). The candidates come from the requests: the sort key alone; \
          for 
          """
          + """
          a to-one sort key, the join column and the sort key; the list's whole order (each key in its direction, then \
          the 
          """
          + """
          primary key) when it lives in one table; the section key with the sort keys of its table. A batch fault is \
          the \
          mean 
          """
        + "of ten spread over the list; the pages hold \(batchSize) rows."
        + (store == .postgres
          ? " On PostgreSQL \(loaded), and each variant runs inside a transaction that drops the "
            + "others and is rolled back after it: the same table and statistics, one index set at a time.\n\n"
          : "\n\n")
  }

  /// A row per candidate (no index first): why it is a candidate, and per operation its time
  /// and its per-pair ratio to none.
  package func candidatesTable(_ here: [ResultRow], _ dataset: DatasetKind) -> String {
    var tags: [IndexTag] = []
    for r in here where !tags.contains(r.index) { tags.append(r.index) }
    let candidates =
      settings.database?.indexCandidates ?? (try? IndexAdvice.candidates(dataset, request: customRequest?.request))
      ?? []
    let columns = Self.adviceColumns.filter { c in here.contains { $0.scenario == c.scenario } }
    var md = MarkdownTable(
      [.left("index"), .left("why")] + columns.flatMap { [.right($0.heading), .right("× none")] }
    ).header
    for tag in tags {
      let spec = tag.spec(in: dataset)
      let why = spec.flatMap { s in candidates.first { $0.index == s }?.kind.rawValue } ?? "—"
      md += "| \(spec.map { Markdown.code($0.description) } ?? "none") | \(why) |"
      for c in columns {
        let rows = here.filter { $0.index == tag && $0.scenario == c.scenario }
        let time = rows.first { IndexPick.timeMetrics.contains($0.metric) }
        let ratio = rows.first { $0.metric == .overUnindexed }
        md += " \(time.map { duration($0) } ?? "—") | \(ratio.map(perPair) ?? "—") |"
      }
      md += "\n"
    }
    return md + "\n"
  }

  /// A sentence per opening query (the ID query, the sectioned one, the first page): the index
  /// to add with what it gives, or why none.
  package func pickSentences(_ picks: [IndexPick], _ here: [ResultRow]) -> String {
    var md = ""
    let shown: [ResultScenario] = [.forAdvice(.performFetch), .forAdvice(.sectioned), .forAdvice(.firstPage)]
    for p in picks where shown.contains(p.scenario) {
      let what = Self.adviceColumns.first { $0.scenario == p.scenario }?.heading ?? p.scenario.csv
      if p.advised, let statement = p.createStatement {
        md +=
          "- **\(what): add \(Markdown.code(statement + ";")).** "
          + "\(duration(p.unindexed, range: false)) → \(duration(p.indexed, range: false)) "
          + "(\(perPair(p.ratio)) per pair)."
        if p.scenario == .forAdvice(.performFetch),
          let scan = here.first(where: {
            $0.index == p.tag && $0.scenario == p.scenario && $0.metric == .engineOverScanLimit
          })
        {
          md += String(
            format: " With it the ID query takes %.2f× [%.2f–%.2f] SQLite's scan limit.",
            scan.value, scan.min, scan.max)
        }
      } else {
        // At 1× or above no candidate helps at all; below it, none saves the 10 % that counts.
        md += String(
          format: "- **%@: no index.** The best candidate, %@, gives %.2f× [%.2f–%.2f]: %@.", what,
          p.index.map { Markdown.code($0.description) } ?? p.tag.csv, p.ratio.value, p.ratio.min, p.ratio.max,
          p.ratio.value >= 1 ? "no candidate makes it faster" : "less than the 10 % that counts")
      }
      md += "\n"
    }
    return md + "\n"
  }

  /// The plans of the list's ID query and the sectioned one, without an index and with the
  /// best candidate; empty when the advice measured neither.
  package static func plansTable(_ picks: [IndexPick], _ here: [ResultRow], _ store: StoreKind) -> String {
    let planned = picks.filter {
      [ResultScenario.forAdvice(.performFetch), .forAdvice(.sectioned)].contains($0.scenario)
    }
    guard !planned.isEmpty else { return "" }
    var md =
      store == .postgres
      ? "PostgreSQL's plans (`EXPLAIN`), without an index and with the best candidate:\n\n"
      : "SQLite's plans (`EXPLAIN QUERY PLAN`), without an index and with the best candidate:\n\n"
    md += MarkdownTable(.left("statement"), .left("index"), .left("plan")).header
    for p in planned {
      for tag in [IndexTag.none, p.tag] {
        guard let plan = here.first(where: { $0.index == tag && $0.scenario == p.scenario && $0.metric == .queryPlan })
        else { continue }
        let name = tag == .none ? tag.csv : p.index.map { Markdown.code($0.description) } ?? tag.csv
        md += "| \(p.scenario.csv) | \(name) | \(Markdown.code(plan.detail)) |\n"
      }
    }
    return md + "\n"
  }
}
