import Catalog
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

/// report.md and its charts, computed from result rows only: no figure is typed by hand.
package struct Report {
  /// The cases' rows but the index advice's, which measure other things under the same
  /// metric names and have a section of their own.
  package let rows: [ResultRow]
  /// The index advice's rows (`IndexAdvice`).
  package let advice: [ResultRow]
  /// Every figure, for what covers every case (failures, cases that do not fit).
  package let allRows: [ResultRow]
  /// The budgets, the user's list and database, the allocator's configuration.
  package let settings: RunSettings
  /// Each list's recommendation, as recommendation.json holds it.
  package let recommendations: [Recommendation]
  /// The rows that ended well, by key and metric: every lookup of a figure is O(1).
  package let found: [ResultKey: [Metric: ResultRow]]

  /// The report of `results`, whose recommendations are `recommendations` when the caller
  /// computed them (the run's files are written from one computation), else computed here.
  /// O(rows).
  package init(_ results: RunResults, recommendations: [Recommendation]? = nil) {
    allRows = results.figures
    settings = results.settings
    rows = allRows.filter { $0.mode != .indexAdvice }
    advice = allRows.filter { $0.mode == .indexAdvice }
    var found: [ResultKey: [Metric: ResultRow]] = [:]
    for r in rows where r.isOK && found[r.key]?[r.metric] == nil { found[r.key, default: [:]][r.metric] = r }
    self.found = found
    self.recommendations = recommendations ?? Recommendation.all(results)
  }

  /// The report of rows as results.csv holds them, settings among them. O(rows).
  package init(rows: [ResultRow]) { self.init(RunResults(recorded: rows)) }

  /// The open list's live heap that the recommendation and the scaling lines hold to.
  package var memoryBudget: Double { settings.memoryBudget }
  /// The time opening a list must stay within to count as one frame.
  package var frameMs: Double { settings.frameMs }
  /// The allocator's configuration the cases ran with (`MALLOC_CONF`), nil for jemalloc's
  /// defaults.
  package var allocatorConfiguration: String? { settings.allocatorConfiguration }
  /// The user's list (`run --sort/--section/--where`): its text, and the request itself when
  /// the run recorded it; nil for the datasets' own.
  package var customRequest: (text: String, request: ListSpec?)? {
    settings.requestDescription.map { ($0, settings.request) }
  }
  /// The database a list was measured over: its sentence's lead (the user's, or a generated
  /// dataset's file in Core Data's schema), what names it, its size.
  package var database: (lead: String, detail: String, bytes: Double, synthetic: String?, onServer: Bool)? {
    guard let detail = settings.database?.description ?? settings.databaseText else { return nil }
    let setting = settings.database
    let lead =
      setting?.list.kindName != nil
      ? "The dataset in Core Data's schema (`generate --schema coredata`), read and never written"
      : "Your database, read and never written"
    return (
      lead, detail, settings.databaseBytes, setting?.synthetic,
      setting.map { $0.list.database.isOnServer } ?? false
    )
  }

  /// A list measured through the engine on one store: what a section of the report is about.
  package struct Key: Hashable {
    package var dataset: DatasetKind
    package var rows: Int
    package var store: StoreKind
    package var index: IndexTag

    /// The key of this list's figure read `mode` in `scenario`.
    package func result(_ mode: ResultMode, batch: Int, _ scenario: ResultScenario) -> ResultKey {
      ResultKey(
        dataset: dataset, rows: rows, store: .engine(store), mode: mode, batchSize: batch, index: index,
        scenario: scenario)
    }
  }

  /// The figure `metric` of `k`'s list read `mode` with batch `batch` in `scenario`, if it
  /// ended well. O(1).
  package func find(_ k: Key, mode: ResultMode, batch: Int, scenario: ResultScenario, metric: Metric) -> ResultRow? {
    found[k.result(mode, batch: batch, scenario)]?[metric]
  }

  /// The same, for a list's case of `mode` in `scenario`.
  package func find(_ k: Key, _ mode: FetchMode, batch: Int, _ scenario: Scenario, metric: Metric) -> ResultRow? {
    find(k, mode: .fetch(mode), batch: batch, scenario: .scenario(scenario), metric: metric)
  }

  /// How many rows the list of `dataset` at `rows` holds: what a full fetch materialized on
  /// opening it (a predicate's list is smaller than its table). Nil without a full fetch. O(rows).
  package func listCount(dataset: DatasetKind, rows n: Int) -> Int? {
    let opening: [ResultScenario] = [.scenario(.performFetch), .scenario(.firstScreen), .scenario(.scrollThrough)]
    return rows.first {
      $0.dataset == dataset && $0.rows == n && $0.mode == .fetch(.full) && $0.metric == .rowsMaterialized
        && opening.contains($0.scenario)
        && $0.isOK
    }.map { Int($0.value) }
  }

  /// The list a row measures through the engine; nil for floors, loads and settings.
  package static func key(of r: ResultRow) -> Key? {
    guard case .engine(let store) = r.store, let dataset = r.dataset, r.scenario != .load else { return nil }
    return Key(dataset: dataset, rows: r.rows, store: store, index: r.index)
  }

  package var storeKeys: [Key] {
    var seen: [Key] = []
    for r in rows {
      if let k = Self.key(of: r), !seen.contains(k) { seen.append(k) }
    }
    return seen
  }

  /// The batch and page sizes measured.
  package var batchSizes: [Int] {
    Array(Set(rows.filter { $0.mode.fetchMode.map { $0 != .full } ?? false }.map(\.batchSize))).sorted()
  }

  /// The sizes the per-store tables and charts show: those measured beyond the scenarios that
  /// only decide the batch size (`run`'s sweep, shown in `batchSweepSection`), or every size
  /// when nothing else was measured. O(rows).
  package var tableBatchSizes: [Int] {
    let beyondSweep = Set(
      rows.filter { r in
        guard let mode = r.mode.fetchMode, mode != .full else { return false }
        if case .scenario(let s) = r.scenario, s.decidesBatchSize { return false }
        return true
      }.map(\.batchSize))
    let all = batchSizes
    return beyondSweep.isEmpty ? all : all.filter(beyondSweep.contains)
  }
  package var scenarios: [ResultScenario] {
    var out: [ResultScenario] = []
    for r in rows where Self.key(of: r) != nil && !out.contains(r.scenario) { out.append(r.scenario) }
    return out
  }

  package static func storeName(_ k: Key) -> String {
    k.index == .none ? k.store.displayName : "\(k.store.displayName), index on \(k.index)"
  }

  /// A chart's file name; its parts come from results.csv, so it is made one safe path
  /// component (a dataset named `../x` writes no file outside the charts folder).
  package static func slug(_ k: Key, _ what: String) -> String {
    let index = k.index == .none ? "" : "-idx-\(k.index)"
    return FileName.safeComponent("\(k.dataset.rawValue)-\(k.rows)-\(k.store.rawValue)\(index)-\(what).svg")
  }

  package func ms(_ r: ResultRow?) -> String {
    guard let r else { return "—" }
    return String(format: "%.1f [%.1f–%.1f]", r.value, r.min, r.max)
  }
  package func ratio(_ a: Double?, _ b: Double?) -> String {
    // A heap figure can be zero or negative (the scenario freed more than it kept): a ratio of
    // it would read as a size, so there is none.
    guard let a, let b, a > 0, b > 0 else { return "—" }
    let r = a / b
    return r >= 0.1 ? String(format: "%.2f×", r) : String(format: "1/%.0f", b / a)
  }
  /// A per-pair ratio row as `0.43× [0.42–0.44]`; ratios under 0.1 keep two significant
  /// digits (an index can take a query to a thousandth of its time).
  package func perPair(_ r: ResultRow) -> String {
    "\(ratioNumber(r.value))× [\(ratioNumber(r.min))–\(ratioNumber(r.max))]"
  }
  package func count(_ v: Double?) -> String { v.map { Int($0).grouped } ?? "—" }
}
