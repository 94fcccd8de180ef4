import Vocabulary

/// What stops a gate (`check`) from measuring or judging, each with its fix. A matrix file's
/// own errors are `MatrixError`s.
package enum GateError: CodedError, Equatable {
  case figureMissing(String)
  case counterDiffers(String, values: [Double])
  case caseFailed(label: String, message: String)
  /// A list of the matrix that cannot be measured, for `cause` (whose code it keeps when it has
  /// one).
  case listFailed(matrix: String, list: String, cause: String, causeCode: String?)
  case noListOnStores(matrix: String, stores: String)
  case notAFile(path: String, what: String, isA: String)
  case unreadable(path: String, what: String, detail: String)
  case emptyBaseline(String)
  case notABaseline(String, detail: String)
  case notReplaceable(cause: String)

  package var code: String {
    switch self {
    case .figureMissing: "gate.figure-missing"
    case .counterDiffers: "gate.counter-differs"
    case .caseFailed: "gate.case-failed"
    case .listFailed(_, _, _, let causeCode): causeCode ?? "gate.list-failed"
    case .noListOnStores: "gate.no-list-on-stores"
    case .notAFile: "gate.not-a-file"
    case .unreadable: "gate.unreadable"
    case .emptyBaseline: "gate.empty-baseline"
    case .notABaseline: "gate.not-a-baseline"
    case .notReplaceable: "gate.not-replaceable"
    }
  }

  package var description: String {
    switch self {
    case .figureMissing(let name): "figure \(name) is missing from a run"
    case .counterDiffers(let name, let values):
      "counter \(name) differs between runs (\(values)); it cannot be gated exactly"
    case .caseFailed(let label, let message): "gate case \(label) failed: \(message)"
    case .listFailed(let matrix, let list, let cause, _): "\(matrix): list '\(list)': \(cause)"
    case .noListOnStores(let matrix, let stores):
      "\(matrix): no list is measured on \(stores); name a store the lists have"
    case .notAFile(let path, let what, let kind): "\(path) is not a readable \(what): it is \(kind), not a file"
    case .unreadable(let path, let what, let detail): "\(path) is not a readable \(what): \(detail)"
    case .emptyBaseline(let path): "\(path) is not a readable baseline: the file is empty"
    case .notABaseline(let path, let detail):
      "\(path) is not a readable baseline: it is not a baseline's JSON (\(detail))"
    case .notReplaceable(let cause):
      "\(cause); --update replaces only a baseline. Name a new file with --baseline, or move this one away"
    }
  }

  /// `error` of the list `list` of the matrix at `matrix`, its code kept.
  package static func list(_ list: String, of matrix: String, failed error: any Error) -> GateError {
    .listFailed(matrix: matrix, list: list, cause: "\(error)", causeCode: (error as? any CodedError)?.code)
  }

  package static let examples: [Self] = [
    .figureMissing("banks/sqlite/batched/queries"), .counterDiffers("banks/sqlite/batched/queries", values: [3, 4]),
    .caseFailed(label: "banks sqlite batched", message: "exit 1"),
    .listFailed(matrix: "gate.json", list: "flights", cause: "no such file", causeCode: nil),
    .noListOnStores(matrix: "gate.json", stores: "postgres"),
    .notAFile(path: "baseline.json", what: "baseline", isA: "a folder"),
    .unreadable(path: "baseline.json", what: "baseline", detail: "permission denied"), .emptyBaseline("baseline.json"),
    .notABaseline("baseline.json", detail: "line 1: not JSON"),
    .notReplaceable(cause: "baseline.json is not a readable baseline: the file is empty"),
  ]
}
