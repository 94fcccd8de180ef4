/// What a case measures.
package enum CaseWork: Sendable, Codable, Equatable {
  /// A user's scenario, fetched fully or in batches.
  case scenario(Scenario, FetchMode)
  /// The same SQL as the store's, run with nothing on top (SQLite's C API, or psql and the
  /// server's own timing).
  case floor
  /// The diff benchmark: transactions of k objects (nil: the 10% edit), with or without
  /// sections by state.
  case diff(k: Int?, sections: Bool)
  /// The gate's matrix: fetch figures, or change tracking.
  case gate(GateWork)
  /// Every candidate index of the list and its sectioned form, against none (`IndexAdvice`).
  case indexAdvice

  package enum GateWork: String, Sendable, Codable {
    case fetch = "gate"
    case diff = "gate_diff"
  }

  /// results.csv's `mode` column.
  package var mode: ResultMode {
    switch self {
    case .scenario(_, let mode): .fetch(mode)
    case .floor: .floor
    case .diff: .incremental
    case .gate: .gate
    case .indexAdvice: .indexAdvice
    }
  }

  /// results.csv's `scenario` column.
  package var scenario: ResultScenario {
    switch self {
    case .scenario(let scenario, _): .scenario(scenario)
    case .floor: .floor
    case .diff(let k, let sections): .diff(DiffWorkload(k: k, sections: sections))
    case .gate(let work): .gate(work)
    case .indexAdvice: .candidates
    }
  }
}
