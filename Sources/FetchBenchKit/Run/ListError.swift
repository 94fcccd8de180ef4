import Vocabulary

/// Why a list of the user's cannot be measured as asked, each with its fix.
package enum ListError: CodedError, Equatable {
  /// The list's sort, section, predicate or cell does not parse, or names what `kind`'s model
  /// does not have.
  case notOfTheModel(kind: String, detail: String)
  case scenarioNeedsCell(scenario: String)
  case indexTrialsNotAllowed(database: String)

  package var code: String {
    switch self {
    case .notOfTheModel: "list.not-of-the-model"
    case .scenarioNeedsCell: "list.scenario-needs-cell"
    case .indexTrialsNotAllowed: "list.index-trials-not-allowed"
    }
  }

  package var description: String {
    switch self {
    case .notOfTheModel(let kind, let detail): "\(kind): \(detail)"
    case .scenarioNeedsCell(let scenario): "\(scenario) needs a cell that reads through a relationship (--cell)"
    case .indexTrialsNotAllowed(let path): "index advice on \(path) needs --allow-index-trials"
    }
  }

  package static let examples: [Self] = [
    .notOfTheModel(kind: "flight", detail: "unknown key path 'origin.nme' of Flight"),
    .scenarioNeedsCell(scenario: "first_screen_cells"),
    .indexTrialsNotAllowed(database: "postgres://localhost/app"),
  ]
}
