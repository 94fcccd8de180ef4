import Catalog

/// Every numeric option's accepted range, in one place: `options()` checks each (usage, exit
/// 64) before any work, and each option's help states its range from here. The bounds keep
/// every product the harness forms of them (bytes, nanoseconds, transactions × writers) far
/// from overflow.
package enum OptionRange {
  package static let batchSize = 1...100_000
  package static let fetchBatchSize = 0...100_000
  package static let repetitions = 1...10_000
  package static let checkRepetitions = 3...10_000
  package static let processes = 1...100
  package static let updateRuns = 1...100
  /// Rows to print, fetchLimit and fetchOffset: a limit beyond the row count is no limit.
  package static let count = 0...Int.max
  package static let transactionSize = 1...DatasetKind.maxRows
  package static let transactions = 1...1_000_000_000
  package static let writers = 1...64
  package static let observers = 1...32
  /// Commits a second.
  package static let rate = 0.01...10_000_000.0
  /// Seconds: a week at most.
  package static let duration = 1.0...604_800.0
  package static let stepDuration = 1.0...86_400.0
  package static let screensPerSecond = 0.01...10_000.0
  package static let heapBoundMiB = 1...1_048_576
  package static let observerDelayMs = 0.0...60_000.0
  package static let frameBudgetMs = 0.1...3_600_000.0
  package static let memoryBudgetMiB = 0.001...1_048_576.0
  package static let maxMinutes = 0.0...525_600.0
  package static let caseMinutes = 0.01...525_600.0
  package static let stdlibBudget = 1e-9...86_400.0
  /// Rows of a list a gate or `check --rows` generates.
  package static let generatedListRows = 1_000...DatasetKind.maxRows
}
