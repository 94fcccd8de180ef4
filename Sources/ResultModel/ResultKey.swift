import Catalog
import TextFormatting
import Vocabulary

/// What one figure of results.csv is about: the columns that, with the metric, identify it.
/// Typed here; the column texts (`sqlite-raw`, `index_advice`, `diff_k100_sectioned`) exist
/// only in each type's `csv` and `init(csv:)`, the codec's two directions.
package struct ResultKey: Hashable, Sendable {
  /// nil for a row that records a setting of the run.
  package var dataset: DatasetKind?
  package var rows: Int
  package var store: ResultStore
  package var mode: ResultMode
  /// The batch size of batched cases and floors; 0 where there is none.
  package var batchSize: Int
  /// The index added for the figure, if any.
  package var index: IndexTag
  package var scenario: ResultScenario

  package init(
    dataset: DatasetKind?, rows: Int, store: ResultStore, mode: ResultMode, batchSize: Int,
    index: IndexTag = .none,
    scenario: ResultScenario
  ) {
    (self.dataset, self.rows, self.store, self.mode) = (dataset, rows, store, mode)
    (self.batchSize, self.index, self.scenario) = (batchSize, index, scenario)
  }

  /// The key's columns as compare and the exports name a figure's case:
  /// `banks/244292/sqlite/batched/20/none/first_screen` (`-` for a row of no dataset). O(1).
  package var parts: [String] {
    [dataset?.rawValue ?? "-", String(rows), store.csv, mode.csv, String(batchSize), index.csv, scenario.csv]
  }

  /// The key of a row that records a setting of the run (the memory budget, the user's list).
  package static let settings = ResultKey(
    dataset: nil, rows: 0, store: .none, mode: .settings, batchSize: 0, scenario: .settings)
}

/// Where a figure was measured: through the engine on a store, or with the store's own
/// statements alone (a floor: `sqlite-raw`).
package enum ResultStore: Hashable, Sendable {
  case engine(StoreKind)
  case raw(StoreKind)
  /// A setting of the run, measured nowhere.
  case none

  /// The store whatever way it was used; nil for a setting.
  package var kind: StoreKind? {
    switch self {
    case .engine(let k), .raw(let k): k
    case .none: nil
    }
  }

  package var csv: String {
    switch self {
    case .engine(let k): k.rawValue
    case .raw(let k): k.rawValue + "-raw"
    case .none: ""
    }
  }

  package init?(csv: String) {
    if csv.isEmpty {
      self = .none
    } else if let k = StoreKind(rawValue: csv) {
      self = .engine(k)
    } else if csv.hasSuffix("-raw"), let k = StoreKind(rawValue: String(csv.dropLast(4))) {
      self = .raw(k)
    } else {
      return nil
    }
  }
}

/// How the figure's list was read, or what other work it measures.
package enum ResultMode: Hashable, Sendable {
  case fetch(FetchMode)
  /// The store's own statements with nothing on top (`ResultStore.raw`).
  case floor
  /// PostgreSQL's COPY load of a dataset.
  case copy
  case indexAdvice
  /// Change tracking (`fetchbench diff`).
  case incremental
  /// The gate's own cases (`fetchbench check`).
  case gate
  case settings

  /// The fetch mode of a list's case; nil for other work.
  package var fetchMode: FetchMode? {
    if case .fetch(let m) = self { m } else { nil }
  }

  package var csv: String {
    switch self {
    case .fetch(let m): m.rawValue
    case .floor: "floor"
    case .copy: "copy"
    case .indexAdvice: "index_advice"
    case .incremental: "incremental"
    case .gate: "gate"
    case .settings: "settings"
    }
  }

  package init?(csv: String) {
    if let m = FetchMode(rawValue: csv) {
      self = .fetch(m)
      return
    }
    let others: [ResultMode] = [.floor, .copy, .indexAdvice, .incremental, .gate, .settings]
    guard let m = others.first(where: { $0.csv == csv }) else { return nil }
    self = m
  }
}

/// What the figure's case did.
package enum ResultScenario: Hashable, Sendable {
  case scenario(Scenario)
  /// One operation the index advice times (`batch_fault`); the advice's performFetch and
  /// sectioned performFetch are `.scenario`.
  case advice(IndexAdvice.Work)
  case diff(DiffWorkload)
  case floor
  /// PostgreSQL's COPY load.
  case load
  case gate(CaseWork.GateWork)
  /// The index advice's case as a whole, before its figures are split by operation.
  case candidates
  case settings

  package var csv: String {
    switch self {
    case .scenario(let s): s.rawValue
    case .advice(let w): w.rawValue
    case .diff(let d): d.csv
    case .floor: "floor"
    case .load: "load"
    case .gate(let g): g.rawValue
    case .candidates: "candidates"
    case .settings: "settings"
    }
  }

  /// The scenario of a list's case; nil for other work.
  package var scenario: Scenario? {
    if case .scenario(let s) = self { s } else { nil }
  }

  package init?(csv: String) {
    if let s = Scenario(rawValue: csv) {
      self = .scenario(s)
    } else if let w = IndexAdvice.Work(rawValue: csv) {
      self = .advice(w)
    } else if let d = DiffWorkload(csv: csv) {
      self = .diff(d)
    } else if let g = CaseWork.GateWork(rawValue: csv) {
      self = .gate(g)
    } else if let s = [ResultScenario.floor, .load, .candidates, .settings].first(where: { $0.csv == csv }) {
      self = s
    } else {
      return nil
    }
  }

  /// An index advice operation is `.scenario` when it is also a scenario, so that one text
  /// has one value.
  package static func forAdvice(_ work: IndexAdvice.Work) -> ResultScenario {
    Scenario(rawValue: work.rawValue).map(ResultScenario.scenario) ?? .advice(work)
  }
}

/// One transaction shape of the diff benchmark: k changed objects, or a 10 % edit; with or
/// without sections.
package struct DiffWorkload: Hashable, Sendable {
  /// Objects changed; nil for the 10 % edit.
  package var k: Int?
  package var sections: Bool

  package init(k: Int?, sections: Bool) {
    self.k = k
    self.sections = sections
  }

  /// `diff_k100`, `diff_edit10`, with `_sectioned` for sections (whatever the list groups by).
  package var csv: String { (k.map { "diff_k\($0)" } ?? "diff_edit10") + (sections ? "_sectioned" : "") }

  /// Reads `csv`'s names, and `_by_state`, the suffix of results written before any list but
  /// the banks' could be sectioned.
  package init?(csv: String) {
    let suffix = ["_sectioned", "_by_state"].first { csv.hasSuffix($0) }
    let sections = suffix != nil
    let name = csv.dropLast(suffix?.count ?? 0)
    if name == "diff_edit10" {
      k = nil
    } else if name.hasPrefix("diff_k"), let k = Int(name.dropFirst("diff_k".count)), k > 0 {
      self.k = k
    } else {
      return nil
    }
    self.sections = sections
  }

  /// `k = 100` or `10% edit`, for tables.
  package var label: String { k.map { "k = \($0.grouped)" } ?? "10% edit" }
}

/// How a case ended.
package enum ResultStatus: String, Sendable, Codable {
  case ok, failed
  /// Stopped when its resident memory passed the ceiling.
  case doesNotFit = "does_not_fit"
}

/// A column's text in JSON too (a child reports its measurements as JSON).
protocol ResultColumn: Codable {
  var csv: String { get }
  init?(csv: String)
}

extension ResultColumn {
  package init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let value = Self(csv: text) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not one FetchBench writes"))
    }
    self = value
  }

  package func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(csv)
  }
}

extension ResultStore: ResultColumn {}
extension ResultMode: ResultColumn {}
extension ResultScenario: ResultColumn {}

extension ResultStore: CustomStringConvertible {
  package var description: String { csv }
}
extension ResultMode: CustomStringConvertible {
  package var description: String { csv }
}
extension ResultScenario: CustomStringConvertible {
  package var description: String { csv }
}
