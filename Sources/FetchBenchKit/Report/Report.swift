import DatasetStores
import Foundation

/// report.md and its charts, computed from result rows only: no figure is typed by hand.
public struct Report {
  /// The cases' rows but the index advice's, which measure other things under the same
  /// metric names and have a section of their own.
  let rows: [ResultRow]
  /// The index advice's rows (`IndexAdvice`).
  let advice: [ResultRow]
  /// Every row, for what covers every case (failures, cases that do not fit).
  let allRows: [ResultRow]
  /// The open list's live heap that the recommendation and the scaling lines hold to.
  let memoryBudget: Double
  /// The user's list (`run --sort/--section/--where`) as its settings row gives it (its text;
  /// the request itself when the row records it); nil for the datasets' own.
  let customRequest: (text: String, request: CustomRequest?)?
  /// The allocator's configuration the cases ran with (`MALLOC_CONF`), nil for jemalloc's
  /// defaults.
  let allocatorConfiguration: String?

  public init(rows: [ResultRow]) {
    allRows = rows
    let mode = CaseWork.indexAdvice.mode
    self.rows = rows.filter { $0.mode != mode && $0.mode != ResultRow.settings }
    advice = rows.filter { $0.mode == mode }
    memoryBudget = Self.memoryBudget(in: rows)
    allocatorConfiguration = rows.first { $0.mode == ResultRow.settings && $0.metric == Metric.allocatorConfiguration.name }?.detail
    customRequest = rows.first { $0.mode == ResultRow.settings && $0.metric == Metric.customRequest.name }.map {
      row -> (text: String, request: CustomRequest?) in
      let request = CustomRequest(recorded: row.detail)
      return (request?.description ?? row.detail, request)
    }
  }

  struct Key: Hashable {
    var dataset: String
    var rows: Int
    var store: String
    var index: String
  }

  func find(_ k: Key, mode: String, batch: Int, scenario: String, metric: Metric) -> ResultRow? {
    rows.first {
      $0.dataset == k.dataset && $0.rows == k.rows && $0.store == k.store && $0.index == k.index
        && $0.mode == mode && $0.batch_size == batch && $0.scenario == scenario && $0.metric == metric.name
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

  /// The batch and page sizes measured.
  var batchSizes: [Int] {
    let sized = Set(FetchMode.allCases.filter { $0 != .full }.map(\.rawValue))
    return Array(Set(rows.filter { sized.contains($0.mode) }.map(\.batch_size))).sorted()
  }
  var scenarios: [String] {
    var out: [String] = []
    for r in rows where !r.store.hasSuffix("-raw") && r.scenario != "load" && !out.contains(r.scenario) { out.append(r.scenario) }
    return out
  }

  static func storeName(_ k: Key) -> String {
    let base = StoreKind(rawValue: k.store)?.displayName ?? k.store
    return k.index == "none" ? base : "\(base), index on \(k.index)"
  }

  /// A chart's file name; its parts come from results.csv, so it is made one safe path
  /// component (a dataset named `../x` writes no file outside the charts folder).
  static func slug(_ k: Key, _ what: String) -> String {
    OutputFolder.safeComponent("\(k.dataset)-\(k.rows)-\(k.store)\(k.index == "none" ? "" : "-idx-\(k.index)")-\(what).svg")
  }

  func ms(_ r: ResultRow?) -> String {
    guard let r else { return "—" }
    return String(format: "%.1f [%.1f–%.1f]", r.value, r.min, r.max)
  }
  func ratio(_ a: Double?, _ b: Double?) -> String {
    // A heap figure can be zero or negative (the scenario freed more than it kept): a ratio of
    // it would read as a size, so there is none.
    guard let a, let b, a > 0, b > 0 else { return "—" }
    let r = a / b
    return r >= 0.1 ? String(format: "%.2f×", r) : String(format: "1/%.0f", b / a)
  }
  /// A per-pair ratio row as `0.43× [0.42–0.44]`; ratios under 0.1 keep two significant
  /// digits (an index can take a query to a thousandth of its time).
  func perPair(_ r: ResultRow) -> String {
    func f(_ v: Double) -> String { String(format: abs(v) >= 0.1 ? "%.2f" : "%.2g", v) }
    return "\(f(r.value))× [\(f(r.min))–\(f(r.max))]"
  }
  func count(_ v: Double?) -> String { v.map { Int($0).grouped } ?? "—" }
}
