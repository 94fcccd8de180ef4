import Vocabulary

/// A fault inside a measurement: an invariant a case checks did not hold, or a tool it drives
/// did not answer as it must. None is the user's to fix; each says what failed, so that the
/// case's failure names it.
package enum MeasurementFault: CodedError, Equatable {
  case changeSetDoesNotReplay
  case coreDataChangeSetDoesNotReplay
  case trackedResultsDiffer
  case sectionCacheUsedAfterSave
  case sectionCacheNotUsed
  case indexChangedIDs(tag: String, sectioned: Bool)
  case indexAdviceNotOnSQL
  case notPaged(scenario: String)
  case floorWithPredicate
  case cannotOpen(path: String)
  case cannotPrepare(sql: String, message: String)
  case connectionSettings(settings: String, message: String)
  case noExecutionTime(sql: String)
  case noPlan(json: String)
  case psqlFailed(standardError: String)
  case psqlTimings(timings: Int, statements: Int)
  case jemallocUnavailable
  case injectedFailure(label: String)

  package var code: String {
    switch self {
    case .changeSetDoesNotReplay: "fault.change-set-does-not-replay"
    case .coreDataChangeSetDoesNotReplay: "fault.core-data-change-set-does-not-replay"
    case .trackedResultsDiffer: "fault.tracked-results-differ"
    case .sectionCacheUsedAfterSave: "fault.section-cache-used-after-save"
    case .sectionCacheNotUsed: "fault.section-cache-not-used"
    case .indexChangedIDs: "fault.index-changed-ids"
    case .indexAdviceNotOnSQL: "fault.index-advice-not-on-sql"
    case .notPaged: "fault.not-paged"
    case .floorWithPredicate: "fault.floor-with-predicate"
    case .cannotOpen: "fault.cannot-open"
    case .cannotPrepare: "fault.cannot-prepare"
    case .connectionSettings: "fault.connection-settings"
    case .noExecutionTime: "fault.no-execution-time"
    case .noPlan: "fault.no-plan"
    case .psqlFailed: "fault.psql-failed"
    case .psqlTimings: "fault.psql-timings"
    case .jemallocUnavailable: "fault.jemalloc-unavailable"
    case .injectedFailure: "fault.injected"
    }
  }

  package var description: String {
    switch self {
    case .changeSetDoesNotReplay: "the change set does not replay to the controller's results"
    case .coreDataChangeSetDoesNotReplay:
      "a change set under Core Data's rules does not replay to its controller's results"
    case .trackedResultsDiffer: "tracked results differ from a fresh fetch"
    case .sectionCacheUsedAfterSave: "the section cache was used after a save"
    case .sectionCacheNotUsed: "the section cache was not used on a second open"
    case .indexChangedIDs(let tag, let sectioned):
      "with the index \(tag), the \(sectioned ? "sectioned " : "")list's IDs differ from the unindexed ones"
    case .indexAdviceNotOnSQL: "index advice runs on the SQL stores' own statements"
    case .notPaged(let scenario): "\(scenario) is not measured page by page"
    case .floorWithPredicate: "the floor runs requests without predicates"
    case .cannotOpen(let path): "cannot open \(path)"
    case .cannotPrepare(let sql, let message): "cannot prepare \(sql): \(message)"
    case .connectionSettings(let settings, let message): "floor: \(settings): \(message)"
    case .noExecutionTime(let sql): "EXPLAIN ANALYZE gave no execution time for \(sql)"
    case .noPlan(let json): "EXPLAIN gave no plan: \(json)"
    case .psqlFailed(let standardError): "psql failed: \(standardError)"
    case .psqlTimings(let timings, let statements): "psql reported \(timings) timings for \(statements) statements"
    case .jemallocUnavailable:
      "jemalloc statistics are unavailable: the binary must link libjemalloc (scripts/bootstrap installs it)"
    case .injectedFailure(let label): "injected failure in \(label) (a test's fault, matched by its label)"
    }
  }

  package static let examples: [Self] = [
    .changeSetDoesNotReplay, .coreDataChangeSetDoesNotReplay, .trackedResultsDiffer, .sectionCacheUsedAfterSave,
    .sectionCacheNotUsed, .indexChangedIDs(tag: "banks(state)", sectioned: false),
    .indexChangedIDs(tag: "banks(state)", sectioned: true), .indexAdviceNotOnSQL, .notPaged(scenario: "scroll_through"),
    .floorWithPredicate, .cannotOpen(path: "datasets/banks-2000.sqlite"),
    .cannotPrepare(sql: "SELECT id FROM banks", message: "no such table: banks"),
    .connectionSettings(settings: "PRAGMA cache_size = -65536", message: "database is locked"),
    .noExecutionTime(sql: "SELECT 1"), .noPlan(json: "[]"), .psqlFailed(standardError: "connection refused"),
    .psqlTimings(timings: 1, statements: 2), .jemallocUnavailable, .injectedFailure(label: "banks sqlite batched"),
  ]
}
