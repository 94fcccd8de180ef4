import ResultModel
import Vocabulary

/// What a case is expected to cost before it runs: a relative cost that balances shards, and
/// the seconds it takes, which the run's first line adds up.
extension CaseSpec {
  /// A rough relative cost for balancing shards: rows × runs of the work (repetitions and
  /// warm-ups), a full fetch and the index advice weighing more for the rows they read and
  /// the variants they build. Not a prediction of time: only its proportions matter.
  var expectedCost: Double {
    let weight: Double
    switch work {
    case .scenario(_, .full): weight = 3
    case .scenario: weight = 1
    case .floor: weight = 1
    case .diff: weight = 2
    case .gate: weight = 1
    case .indexAdvice: weight = 5
    }
    return Double(rows) * runs * weight
  }

  /// The seconds the case is expected to take, child process and all, on a machine of this
  /// project's kind (2 cores): `CaseCost.seconds` of its weighted row work. An estimate for the
  /// run's first line, which the progress lines replace with what the finished cases took.
  /// Per process: a case measured in several runs each.
  var expectedSeconds: Double { CaseCost.seconds(Double(rows) * runs * workWeight * storeWeight) }

  var runs: Double { Double(repetitions + warmups) }

  /// Rows a run of the work reads, relative to a batched first screen in memory: every row's
  /// keys and values for a full fetch, a fault for every row when scrolling through, one
  /// page's sort for offset and keyset, a third more for the section counts.
  var workWeight: Double {
    switch work {
    case .scenario(let scenario, let mode):
      let rowsRead: Double =
        switch mode {
        case .full: 3
        case .batched: scenario == .scrollThrough ? 3 : 1
        case .offset, .keyset: 0.5
        }
      return scenario.isSectioned ? rowsRead * 1.5 : rowsRead
    case .floor: return 3
    case .diff: return 2
    case .gate: return 1
    case .indexAdvice: return 5
    }
  }

  /// A store's cost per row against the in-memory store's: SQLite decodes every row it
  /// reads, Core Data's statements join for the sort key, a server adds its round trips.
  var storeWeight: Double {
    switch store {
    case .memory: 1
    case .sqlite: 3
    case .sqliteCoreData, .postgres: 4
    }
  }
}

/// Seconds from a case's weighted row work. The two constants are a line fit to the 37 cases
/// of `run --quick` on this project's machine kind (a child process's start and the dataset's
/// opening, then the work per weighted row), re-fit when the cases' work changes.
enum CaseCost {
  static let startSeconds = 0.3
  static let secondsPerWeightedRow = 0.84e-6

  static func seconds(_ weightedRows: Double) -> Double { startSeconds + weightedRows * secondsPerWeightedRow }
}
