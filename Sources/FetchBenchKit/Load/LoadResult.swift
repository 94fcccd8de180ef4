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

extension LoadResult {
  /// A run of `config` that has measured nothing yet.
  package init(config: LoadConfig) { self.config = config }

  /// Reads a result as results.json records it; a figure a run recorded before it was
  /// measured takes its default (a report rendered again shows it as the run's report did).
  package init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(config: try c.decode(LoadConfig.self, forKey: .config))
    func read<T: Decodable>(_ key: CodingKeys, into value: inout T) throws {
      if let v = try c.decodeIfPresent(T.self, forKey: key) { value = v }
    }
    try read(.seconds, into: &seconds)
    try read(.targetCommits, into: &targetCommits)
    try read(.commits, into: &commits)
    try read(.failedCommits, into: &failedCommits)
    try read(.delivery, into: &delivery)
    try read(.changeSet, into: &changeSet)
    try read(.faultLatency, into: &faultLatency)
    try read(.faults, into: &faults)
    try read(.changeSets, into: &changeSets)
    try read(.changeSetSeconds, into: &changeSetSeconds)
    try read(.coalescedTransactions, into: &coalescedTransactions)
    try read(.reconnects, into: &reconnects)
    try read(.staleReads, into: &staleReads)
    try read(.invalidChangeSets, into: &invalidChangeSets)
    try read(.missedTransactions, into: &missedTransactions)
    try read(.repeatedTransactions, into: &repeatedTransactions)
    try read(.mirrorsMatch, into: &mirrorsMatch)
    try read(.rolledBackRowsVisible, into: &rolledBackRowsVisible)
    try read(.staleRows, into: &staleRows)
    heapGrowthBytes = try c.decodeIfPresent(Int.self, forKey: .heapGrowthBytes)
    try read(.peakRSSBytes, into: &peakRSSBytes)
    try read(.durability, into: &durability)
    statementsPerSave = try c.decodeIfPresent(Double.self, forKey: .statementsPerSave)
    commitsPerSave = try c.decodeIfPresent(Double.self, forKey: .commitsPerSave)
    try read(.cpuSeconds, into: &cpuSeconds)
    try read(.timeline, into: &timeline)
    try read(.failures, into: &failures)
  }
}
