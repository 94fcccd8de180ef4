import Vocabulary

/// Why `run --recommend` gives no answer, each with what to do instead.
package enum RecommendationError: CodedError, Equatable {
  case emptyList(predicate: String?, report: String)
  case nothingFits(report: String)

  package var code: String {
    switch self {
    case .emptyList: "recommend.empty-list"
    case .nothingFits: "recommend.nothing-fits"
    }
  }

  package var description: String {
    switch self {
    case .emptyList(let predicate, let report):
      """
      no recommendation: the list is empty (no row matches\(predicate.map { " --where \"\($0)\"" } ?? "")), so every \
      strategy opens it at once; give a predicate that matches rows (see \(report))
      """
    case .nothingFits(let report):
      "no recommendation: no strategy's open list fits the memory budget (see \(report))"
    }
  }

  package static let examples: [Self] = [
    .emptyList(predicate: "state == 'XX'", report: "results/runs/a/report.md"),
    .emptyList(predicate: nil, report: "r.md"),
    .nothingFits(report: "results/runs/a/report.md"),
  ]
}
