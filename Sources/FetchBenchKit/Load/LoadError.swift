import Vocabulary

/// What stops a load test from running or its folder from being read, each with its fix.
package enum LoadError: CodedError, Equatable {
  case notOnCoreDataStatements
  case childFailed(store: String, detail: String)
  case unreadable(folder: String, file: String)
  case notLoadResults(folder: String, detail: String)
  case notLoadSummary(folder: String)

  package var code: String {
    switch self {
    case .notOnCoreDataStatements: "load.not-on-core-data-statements"
    case .childFailed: "load.child-failed"
    case .unreadable: "load.unreadable"
    case .notLoadResults: "load.not-load-results"
    case .notLoadSummary: "load.not-load-summary"
    }
  }

  package var description: String {
    switch self {
    case .notOnCoreDataStatements:
      "the load test runs on memory, sqlite and postgres; Core Data's statements are measured by run, fetch and diff"
    case .childFailed(let store, let detail): "load on \(store) \(detail)"
    case .unreadable(let dir, let name): "\(dir)/\(name): cannot be read; name a folder that `fetchbench load` wrote"
    case .notLoadResults(let dir, let detail): "\(dir)/results.json is not a load test's results.json (\(detail))"
    case .notLoadSummary(let dir): "\(dir)/summary.csv is not a load test's summary.csv"
    }
  }

  package static let examples: [Self] = [
    .notOnCoreDataStatements, .childFailed(store: "sqlite", detail: "failed: exit 1"),
    .unreadable(folder: "results/load/runs/a", file: "results.json"),
    .notLoadResults(folder: "results/load/runs/a", detail: "not JSON"), .notLoadSummary(folder: "results/load/runs/a"),
  ]
}
