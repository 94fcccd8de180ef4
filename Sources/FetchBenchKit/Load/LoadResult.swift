import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

/// One second of a load run.
package struct LoadSecond: Codable, Sendable, Equatable {
  package var second: Int
  package var commits = 0
  package var failedCommits = 0
  package var changeSets = 0
  package var coalesced = 0
  package var deliveryP50Ms = 0.0
  package var deliveryP99Ms = 0.0
  package var deliveryMaxMs = 0.0
  package var changeSetP99Ms = 0.0
  package var faults = 0
  package var faultP99Ms = 0.0
  package var heapBytes = 0
  package var rssBytes = 0
}

/// Percentiles of one latency distribution, in milliseconds (HdrHistogram, 3 significant digits).
package struct Percentiles: Codable, Sendable, Equatable {
  package var count: UInt64 = 0
  package var p50 = 0.0
  package var p90 = 0.0
  package var p99 = 0.0
  package var p999 = 0.0
  package var max = 0.0

  init(_ h: Histogram<UInt64>) {
    count = h.totalCount
    guard count > 0 else { return }
    func ms(_ us: UInt64) -> Double { Double(us) / 1_000 }
    p50 = ms(h.valueAtPercentile(50))
    p90 = ms(h.valueAtPercentile(90))
    p99 = ms(h.valueAtPercentile(99))
    p999 = ms(h.valueAtPercentile(99.9))
    max = ms(h.max)
  }
  package init() {}
}

/// What a load run measured and whether its results were right.
package struct LoadResult: Codable, Sendable {
  package var config: LoadConfig
  package var seconds = 0.0
  package var targetCommits = 0.0
  package var commits = 0
  package var failedCommits = 0
  package var delivery = Percentiles()
  package var changeSet = Percentiles()
  package var faultLatency = Percentiles()
  package var faults = 0
  package var changeSets = 0
  /// Seconds the observers spent computing change sets (`apply`), all of them together.
  package var changeSetSeconds = 0.0
  /// Transactions merged into another's change set by an observer that fell behind.
  package var coalescedTransactions = 0
  package var reconnects = 0
  /// Scroller reads whose batch held a row deleted by a transaction not yet delivered.
  package var staleReads = 0
  package var invalidChangeSets = 0
  package var missedTransactions = 0
  package var repeatedTransactions = 0
  package var mirrorsMatch = true
  package var rolledBackRowsVisible = 0
  /// Under Core Data's change rules: the rows the observers' lists show out of place at the
  /// end, against a fresh fetch (all observers together).
  package var staleRows = 0
  package var heapGrowthBytes: Int?
  package var peakRSSBytes = 0
  /// The store's durability settings, as it reports them.
  package var durability = ""
  /// Per save attempted through the store (not `rawWrites`), the statements its writes issued
  /// (reads of old values and the key allocation's included; BEGIN, COMMIT and the change log
  /// not) and the transactions it committed; nil for raw writes.
  package var statementsPerSave: Double?
  package var commitsPerSave: Double?
  /// CPU seconds the process spent (user and system, all threads) while the writers wrote.
  package var cpuSeconds = 0.0
  package var timeline: [LoadSecond] = []
  /// What went wrong; empty when every check passed.
  package var failures: [String] = []

  package var commitsPerSecond: Double { seconds > 0 ? Double(commits) / seconds : 0 }
  /// Transactions attempted per second, committed or rolled back: what the target rate paces.
  package var attemptsPerSecond: Double { seconds > 0 ? Double(commits + failedCommits) / seconds : 0 }
  package var ok: Bool { failures.isEmpty }
  /// Cores the process kept busy while the writers wrote, on average.
  package var coresBusy: Double { seconds > 0 ? cpuSeconds / seconds : 0 }
}
