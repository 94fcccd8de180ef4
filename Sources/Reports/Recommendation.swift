import Catalog
import FetchedResults
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

/// What to use for a list on one store at one row count, computed from a run's rows alone:
/// the strategy, its batch or page size, and the index, with the figures that decide it.
///
/// The rule, in order (`Ranking`): the open list's live heap must stay within the memory
/// budget; of the strategies that fit, those that open (performFetch and the first screen)
/// within one frame come first; among those, row-level change sets (full fetch, batched
/// faulting) beat a page refresh, since keeping the list in sync is half the question; then
/// the fastest to open. The batch size comes from the line fitted to the fling's time against
/// the batch sizes measured (`BatchFit`: a fixed cost per batch plus a cost per row): the
/// smallest size whose fixed cost is at most a tenth of a batch's, among those that open
/// within a frame; without a fit, the fastest fling. The index is the index advice's best
/// candidate for the strategy's opening query (the ID query, or the first page for paged
/// lists) if it saves at least 10 % per pair (`IndexPick`), or in runs before the advice the
/// indexed variant that opens the list fastest, if it saves as much. The reasons are written
/// from the ranking afterwards (`explanation`).
package struct Recommendation: Sendable, Equatable {
  package var dataset: DatasetKind
  package var rows: Int
  /// The rows of the list itself, where a full fetch measured them (a predicate's list is
  /// smaller than its table).
  package var listRows: Int? = nil
  package var store: StoreKind
  package var mode: FetchMode
  package var batchSize: Int
  /// The index to add, if any.
  package var index: IndexTag
  /// The figures behind the choice, as sentences.
  package var reasons: [String]
  /// The figures behind the choice, as numbers.
  package var figures: Figures

  /// One figure set per way of reading the list.
  package struct Candidate {
    package var mode: FetchMode
    package var batch: Int
    package var index: IndexTag
    package var openMs: Double
    package var heap: Double
    package var flingMs: Double?
    /// The rows the fling reads: the first 1,000, or every row for a scroll-through.
    package var flingRows: Int
    /// Whether the fling is a scroll-through, which reads every row of the list.
    package var flingReadsEveryRow = false
    /// For a way of reading the list with an index the run did not read it with: the index
    /// advice's pick whose per-pair ratio `openMs` carries (`indexed`).
    package var advice: IndexPick? = nil

    /// The rows the fling reads, in words: `the first 1,000 rows`, or `all 244,292 rows` for a
    /// scroll-through. O(1).
    package var flingSpan: String {
      flingReadsEveryRow ? "all \(flingRows.grouped) rows" : "the first \(flingRows.grouped) rows"
    }
  }

  /// A recommendation per (dataset, rows, store) measured with a first screen. O(rows).
  /// The memory budget and the frame are the run's settings.
  package static func all(_ results: RunResults) -> [Recommendation] {
    let rows = results.figures
    let budget = Budget(memoryBytes: results.settings.memoryBudget, frameMs: results.settings.frameMs)
    // One list per dataset, rows and store, whatever the index.
    struct List: Hashable {
      var dataset: DatasetKind
      var rows: Int
      var store: StoreKind
    }
    var groups: [List: [ResultRow]] = [:]
    var order: [List] = []
    for r in rows where r.isOK && r.mode.fetchMode != nil {
      guard let k = Report.key(of: r) else { continue }
      let list = List(dataset: k.dataset, rows: k.rows, store: k.store)
      if groups[list] == nil { order.append(list) }
      groups[list, default: []].append(r)
    }
    let picks = IndexPick.all(rows)
    let declared = results.settings.database?.fetchIndexes ?? []
    return order.compactMap { list in
      let advice = picks.filter {
        $0.dataset == list.dataset && $0.rows == list.rows && $0.store == .engine(list.store)
      }
      let plans = rows.filter {
        $0.mode == .indexAdvice && $0.metric == .queryPlan && $0.index == .none
          && $0.dataset == list.dataset && $0.rows == list.rows && $0.store == .engine(list.store)
      }
      let cells = results.settings.request?.cells ?? list.dataset.definition.cellKeyPaths
      return recommend(
        groups[list]!, advice: advice, budget: budget, unusedFetchIndexes: unused(declared, plans.map(\.detail)),
        cellRelationships: Cells.relationships(of: cells))
    }
  }

  /// The recommendations of rows as results.csv holds them, settings among them. O(rows).
  package static func all(_ rows: [ResultRow]) -> [Recommendation] { all(RunResults(recorded: rows)) }

  /// What a list may hold and take to open: the live heap, and one frame.
  package struct Budget {
    package var memoryBytes: Double
    package var frameMs: Double
  }

  package static func recommend(
    _ rows: [ResultRow], advice: [IndexPick] = [], budget: Budget, unusedFetchIndexes: [String] = [],
    cellRelationships: [String] = []
  ) -> Recommendation? {
    guard let first = rows.first, let list = Report.key(of: first) else { return nil }
    let measured = Self.candidates(rows)
    let candidates = measured + Self.indexed(measured, advice)
    guard let ranking = Ranking(candidates, budget: budget) else { return nil }
    let chosen = ranking.chosen
    var reasons = ranking.explanation(others: candidates)
    var advised = chosen.index
    var adviceRatio: Double?
    if advised == .none, let (tag, reason) = Self.indexAdvice(for: chosen.mode, advice) {
      advised = tag
      reasons.append(reason)
      if tag != .none { adviceRatio = Self.openingPick(chosen.mode, advice)?.ratio.value }
    }
    if let sentence = unusedFetchIndexSentence(unusedFetchIndexes) { reasons.append(sentence) }
    if let sentence = prefetchSentence(rows, mode: chosen.mode, batch: chosen.batch, relationships: cellRelationships) {
      reasons.append(sentence)
    }
    // A full fetch's first screen materializes the whole list: with a predicate, fewer rows
    // than the table holds.
    let listRows = rows.first { r in
      r.mode == .fetch(.full) && r.scenario == .scenario(.firstScreen) && r.metric == .rowsMaterialized
        && r.index == .none
    }.map { Int($0.value) }
    return Recommendation(
      dataset: list.dataset, rows: list.rows, listRows: listRows, store: list.store, mode: chosen.mode,
      batchSize: chosen.batch,
      index: advised, reasons: reasons, figures: ranking.figures(indexRatio: adviceRatio))
  }

  /// One candidate per (mode, batch size, index) with a first screen and its live heap. O(rows).
  package static func candidates(_ rows: [ResultRow]) -> [Candidate] {
    var found: [ResultKey: [Metric: Double]] = [:]
    for r in rows where found[r.key]?[r.metric] == nil { found[r.key, default: [:]][r.metric] = r.value }
    var candidates: [Candidate] = []
    for r in rows where r.scenario == .scenario(.firstScreen) && r.metric == .time {
      guard let mode = r.mode.fetchMode else { continue }
      func value(_ scenario: Scenario, _ metric: Metric) -> Double? {
        var key = r.key
        key.scenario = .scenario(scenario)
        return found[key]?[metric]
      }
      guard !candidates.contains(where: { $0.mode == mode && $0.batch == r.batchSize && $0.index == r.index }),
        let heap = value(.firstScreen, .heapLive)
      else { continue }
      let fling = value(.scrollFirst1000, .time)
      candidates.append(
        Candidate(
          mode: mode, batch: r.batchSize, index: r.index, openMs: r.value, heap: heap,
          flingMs: fling ?? value(.scrollThrough, .time),
          // A whole scroll reads the list, fewer rows than the table with a predicate.
          flingRows: fling != nil
            ? Scenario.flingRows : value(.scrollThrough, .rowsMaterialized).map { Int($0) } ?? r.rows,
          flingReadsEveryRow: fling == nil))
    }
    return candidates
  }

  /// Each way of reading the list measured without an index, again with the index the advice
  /// found best for its first screen (batched faulting's, or the first page of offset and
  /// keyset) at its batch size, when that index saves at least 10 % per pair: the opening
  /// time measured without it times the advice's per-pair ratio; the heap and the fling the
  /// unindexed ones'. Full fetch is left as measured. O(candidates × advice).
  package static func indexed(_ candidates: [Candidate], _ advice: [IndexPick]) -> [Candidate] {
    candidates.compactMap { c in
      // Batched faulting opens with its ID query and one batch, whatever the batch size: the
      // advice's ratio at its size stands for the other sizes swept. A page is the size's own.
      guard c.index == .none, c.mode != .full,
        let pick = openingPick(c.mode, advice, matching: { c.mode == .batched || $0.ratio.batchSize == c.batch }),
        pick.advised
      else { return nil }
      var d = c
      (d.index, d.openMs, d.advice) = (pick.tag, c.openMs * pick.ratio.value, pick)
      return d
    }
  }

  /// What the advice times of a list read by `mode` when it opens: batched faulting's first
  /// screen, the first page of offset and keyset, full fetch's ID query (its nearest).
  package static func opening(_ mode: FetchMode) -> IndexAdvice.Work {
    switch mode {
    case .full: .performFetch
    case .batched: .firstScreen
    case .offset, .keyset: .firstPage
    }
  }

  /// The advice's pick for the opening of a list read by `mode` among those `matching`:
  /// batched faulting's first screen, or in runs from before the advice timed it, its ID
  /// query, so that an older run weighs batched faulting with its index as it weighs the pages
  /// with theirs; the first page of offset and keyset. O(advice).
  static func openingPick(_ mode: FetchMode, _ advice: [IndexPick], matching: (IndexPick) -> Bool = { _ in true })
    -> IndexPick?
  {
    let works = mode == .batched ? [IndexAdvice.Work.firstScreen, .performFetch] : [opening(mode)]
    for work in works {
      if let pick = advice.first(where: { $0.scenario == .forAdvice(work) && matching($0) }) { return pick }
    }
    return nil
  }

  /// What the advice timed for `pick`: `its ID query`, `its first screen`, `its first page`.
  static func opened(by pick: IndexPick) -> String {
    switch pick.scenario {
    case .forAdvice(.performFetch): "its ID query"
    case .forAdvice(.firstScreen): "its first screen"
    default: "its first page"
    }
  }

  /// `Add the index (CREATE INDEX …): its first screen takes 454 µs instead of 32.8 ms (0.01×
  /// per pair, the index advice).`
  package static func addSentence(_ pick: IndexPick, statement: String, what: String) -> String {
    // A Core Data store's indexes are declared in its model, not created by SQL.
    let coreData = pick.index.flatMap(pick.dataset.coreDataFetchIndex)
    return modelIndexSentence(pick)
      + """
      Add the index (\(statement)\(coreData.map { "; in Core Data, \($0)" } ?? "")): \(what) takes \
      \(duration(pick.indexed, range: false)) instead of \(duration(pick.unindexed, range: false))
      """
      + " (\(ratioNumber(pick.ratio.value))× per pair, the index advice)."
  }

  /// The index the advice picks for the opening query of a list read by `mode` (nil: none
  /// saves enough), and the sentence that says what it gives; nil when the advice measured
  /// none.
  package static func indexAdvice(for mode: FetchMode, _ advice: [IndexPick]) -> (tag: IndexTag, reason: String)? {
    guard let pick = openingPick(mode, advice) else { return nil }
    let what = opened(by: pick)
    if pick.advised, let statement = pick.createStatement {
      return (pick.tag, addSentence(pick, statement: statement, what: what))
    }
    return (
      .none,
      modelIndexSentence(pick)
        + String(
          format: "No index: the best candidate, %@, changes %@ by %@× per pair.",
          pick.index?.description ?? pick.tag.csv,
          what,
          ratioNumber(pick.ratio.value))
    )
  }
}

extension Recommendation {
  /// The choice among the candidates, computed by the rule alone; no text.
  package struct Ranking {
    /// The strategy, index and batch size chosen.
    package var chosen: Candidate
    /// The candidates of the chosen strategy on the chosen index: one per batch size.
    package var sizes: [Candidate]
    /// The chosen strategy's fastest opening without an index.
    package var unindexed: Double?
    /// The fit of fling time against batch size, and the size from which a batch's fixed
    /// cost is under a tenth of it; nil for full fetch or without a fit.
    package var fit: BatchFit?
    package var amortized: Double?

    package let budget: Budget

    /// nil when no candidate fits in the memory budget. O(candidates).
    package init?(_ candidates: [Candidate], budget: Budget) {
      self.budget = budget
      let fitting = candidates.filter { $0.heap <= budget.memoryBytes }
      func rank(_ c: Candidate) -> (Int, Int, Double) {
        (c.openMs <= budget.frameMs ? 0 : 1, c.mode.paging == nil ? 0 : 1, c.openMs)
      }
      // The strategy, on the best index variant and batch size for it.
      guard let best = fitting.min(by: { rank($0) < rank($1) }) else { return nil }
      let sameMode = fitting.filter { $0.mode == best.mode }
      let fastest = sameMode.min { $0.openMs < $1.openMs }!
      unindexed = sameMode.filter { $0.index == .none }.map(\.openMs).min()
      // An index counts as the advice's does: when it saves at least 10 %.
      let index = (unindexed.map { fastest.openMs < $0 * IndexPick.threshold } ?? true) ? fastest.index : .none
      sizes = sameMode.filter { $0.index == index }
      let inFrame = sizes.filter { $0.openMs <= budget.frameMs }
      let eligible = inFrame.isEmpty ? sizes : inFrame
      // The batch size: from the fit of fixed cost per batch + cost per row over the sizes
      // measured, the smallest whose fixed cost is at most a tenth of a batch's; without a fit
      // (one size, or noise), the fastest fling. The fit reads the fling after the opening:
      // the ID query is paid once whatever the size, and counted in would read as a cost per row.
      fit =
        best.mode == .full
        ? nil
        : BatchFit(
          sizes.compactMap { c in Self.scrollMs(c).map { (batch: c.batch, ms: $0) } },
          rows: sizes.first?.flingRows ?? Scenario.flingRows)
      amortized = fit.map { $0.amortizedSize() }
      let fastestFling = eligible.min { ($0.flingMs ?? $0.openMs, $0.openMs) < ($1.flingMs ?? $1.openMs, $1.openMs) }
      let byFit = amortized.flatMap { a in
        eligible.filter { Double($0.batch) >= a }.min { $0.batch < $1.batch } ?? eligible.max { $0.batch < $1.batch }
      }
      chosen = byFit ?? fastestFling ?? best
    }

    /// The fling's time after the list opened: the fling less the opening, both as measured
    /// (a way weighed with an index it was not read with has its opening without it). O(1).
    package static func scrollMs(_ c: Candidate) -> Double? {
      guard let fling = c.flingMs else { return nil }
      return fling - (c.advice.map { c.openMs / $0.ratio.value } ?? c.openMs)
    }

    /// `; at 10, 14.2 ms to open and 31.0 ms through the first 1,000 rows; at 50, …`: the sizes
    /// measured next to the chosen one, so that the answer's size is read beside what it was
    /// weighed against. Empty with one size. O(sizes log sizes).
    func neighbours() -> String {
      let ordered = sizes.sorted { $0.batch < $1.batch }
      guard let i = ordered.firstIndex(where: { $0.batch == chosen.batch }) else { return "" }
      let beside = [i - 1, i + 1].filter(ordered.indices.contains).map { ordered[$0] }
      return beside.map { c in
        let fling = c.flingMs.map { " and \(milliseconds($0)) through \(c.flingSpan)" } ?? ""
        return "; at \(c.batch), \(c.advice == nil ? "" : "about ")\(milliseconds(c.openMs)) to open\(fling)"
      }.joined()
    }

    /// `, 106.0 ms through the first 1,000 rows`: the fling measured with a candidate, if any.
    package static func fling(_ c: Candidate) -> String {
      // A way weighed with an index the run did not read it with has its fling measured without.
      c.flingMs.map {
        """
        , \(milliseconds($0)) through \(c.flingSpan)\(c.advice == nil ? "" : " (without the index)")
        """
      } ?? ""
    }

    /// The figures behind the choice, as sentences: the chosen strategy, each other one at its
    /// fastest opening, the batch size, the index.
    package func explanation(others candidates: [Candidate]) -> [String] {
      var reasons: [String] = []
      let name =
        chosen.mode == .full
        ? "full fetch" : chosen.mode == .batched ? "batched faulting" : "\(chosen.mode.rawValue) paging"
      reasons.append(
        String(
          format: "%@ opens the list in %@%@ (%@ one frame, %@)%@ and holds %@ live",
          name + (chosen.advice == nil ? "" : " with the index"),
          chosen.advice == nil ? "" : "about ", milliseconds(chosen.openMs),
          chosen.openMs <= budget.frameMs ? "within" : "over", milliseconds(budget.frameMs), Self.fling(chosen),
          bytes(chosen.heap))
          + "; it gives \(chosen.mode.changeSets) after a save.")
      for mode in FetchMode.allCases where mode != chosen.mode {
        // Each other way on the chosen index, or as measured without one.
        let ways = candidates.filter { $0.mode == mode && $0.index == chosen.index }
        guard
          let other = (ways.isEmpty ? candidates.filter { $0.mode == mode && $0.index == .none } : ways)
            .min(by: {
              $0.openMs < $1.openMs
            })
        else { continue }
        let why = other.heap > budget.memoryBytes ? ", over the \(bytes(budget.memoryBytes)) budget" : ""
        let open =
          other.advice == nil ? milliseconds(other.openMs) : "about \(milliseconds(other.openMs)) with the index"
        reasons.append("\(other.mode.rawValue): \(open)\(Self.fling(other)), \(bytes(other.heap)) live\(why).")
      }
      if let fit, let amortized, let fling = chosen.flingMs {
        let measured = sizes.map(\.batch).sorted()
        // A fixed cost already under a tenth at the smallest size measured has no size to start from.
        let from =
          amortized < Double(measured.first ?? 1)
          ? "so at every size measured its fixed cost is under a tenth of a batch"
          : String(format: "so from about %.0f rows a batch its fixed cost is under a tenth", amortized)
        reasons.append(
          String(
            format:
              """
              Batch size %d: fitted over %@ (a fling through %@ rows, after the opening), a batch costs %.1f µs \
              fixed plus %.2f µs a row, %@; the fling takes %.1f ms.
              """,
            chosen.batch, measured.map(String.init).joined(separator: ", "), chosen.flingRows.grouped,
            fit.fixedMs * 1000,
            fit.perRowMs * 1000, from, fling
          ).dropLast() + neighbours() + ".")
      } else if chosen.mode != .full, sizes.count > 1, let fling = chosen.flingMs {
        reasons.append(
          String(
            format: "Batch size %d: the first 1,000 rows in %.1f ms, the fastest of %@%@",
            chosen.batch,
            fling, sizes.map(\.batch).sorted().map(String.init).joined(separator: ", "),
            chosen.openMs <= budget.frameMs ? " that still open within a frame" : " (none opens within a frame)")
            + neighbours() + ".")
      }
      if let pick = chosen.advice, let unindexed, let statement = pick.createStatement {
        let what = Recommendation.opened(by: pick)
        reasons.append(
          Recommendation.addSentence(pick, statement: statement, what: what).dropLast()
            + """
            , so the list opens in about \(milliseconds(chosen.openMs)) instead of the \(milliseconds(unindexed)) \
            measured without it.
            """
        )
      } else if chosen.index != .none, let unindexed {
        reasons.append(
          String(
            format: "The index on %@ opens it in %.1f ms instead of %.1f ms.", chosen.index.csv, chosen.openMs,
            unindexed))
      }
      return reasons
    }
  }
}

extension Report {
  /// Each store's recommendation at this size, computed by `Recommendation` from the rows.
  package func recommendationSection(dataset: DatasetKind, rows n: Int) -> String {
    let picks = recommendations.filter { $0.dataset == dataset && $0.rows == n }
    guard !picks.isEmpty else { return "" }
    var md = "### Recommendation, \(dataset.displayName) at \(n.grouped) rows\n\n"
    md +=
      """
      Computed from the figures above: the open list's live heap within \(bytes(memoryBudget)); then opening within \
      \(Self.frameWords(frameMs)); then row-level change sets; then the fastest to open. The batch size is the \
      smallest from which a batch's fixed cost is under a tenth of it (a line fitted to the fling's time over the \
      batch sizes measured), or with one size or no fit the fastest fling, among those that open within a frame; an \
      index counts if it opens the list at least 10 % faster.\n\n
      """
    for p in picks {
      md += "- **\(Markdown.escape(p.headline)).** " + p.reasons.map(Markdown.escape).joined(separator: " ") + "\n"
    }
    return md + "\n"
  }
}

extension Recommendation {
  /// `SQLite: batched of 20, with an index on failed_bank_details(info_id, close_date)`.
  package var headline: String {
    let size = mode == .full ? "" : " of \(batchSize)"
    let on = index.displayName(in: dataset).map { ", with an index on \($0)" }
    return "\(store.displayName): \(mode.rawValue)\(size)\(on ?? "")"
  }

  /// The recommendation as `run --recommend` prints it: where, what, and why, on one line.
  package var text: String { "\(dataset.displayName) at \(rowsText), \(headline). " + reasons.joined(separator: " ") }

  /// `50,000 rows`, or `50,000 rows, a list of 18,455` when the list is smaller than its table.
  package var rowsText: String {
    guard let listRows, listRows != rows else { return "\(rows.grouped) rows" }
    return "\(rows.grouped) rows, a list of \(listRows.grouped)"
  }
}
