import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

/// One second of a load run.
public struct LoadSecond: Codable, Sendable, Equatable {
  public var second: Int
  public var commits = 0
  public var failedCommits = 0
  public var changeSets = 0
  public var coalesced = 0
  public var deliveryP50Ms = 0.0
  public var deliveryP99Ms = 0.0
  public var deliveryMaxMs = 0.0
  public var changeSetP99Ms = 0.0
  public var faults = 0
  public var faultP99Ms = 0.0
  public var heapBytes = 0
  public var rssBytes = 0
}

/// Percentiles of one latency distribution, in milliseconds (HdrHistogram, 3 significant digits).
public struct Percentiles: Codable, Sendable, Equatable {
  public var count: UInt64 = 0
  public var p50 = 0.0
  public var p90 = 0.0
  public var p99 = 0.0
  public var p999 = 0.0
  public var max = 0.0

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
  public init() {}
}

/// What a load run measured and whether its results were right.
public struct LoadResult: Codable, Sendable {
  public var config: LoadConfig
  public var seconds = 0.0
  public var targetCommits = 0.0
  public var commits = 0
  public var failedCommits = 0
  public var delivery = Percentiles()
  public var changeSet = Percentiles()
  public var faultLatency = Percentiles()
  public var faults = 0
  public var changeSets = 0
  /// Transactions merged into another's change set by an observer that fell behind.
  public var coalescedTransactions = 0
  public var reconnects = 0
  /// Scroller reads whose batch held a row deleted by a transaction not yet delivered.
  public var staleReads = 0
  public var invalidChangeSets = 0
  public var missedTransactions = 0
  public var repeatedTransactions = 0
  public var mirrorsMatch = true
  public var rolledBackRowsVisible = 0
  public var heapGrowthBytes: Int?
  public var peakRSSBytes = 0
  public var timeline: [LoadSecond] = []
  /// What went wrong; empty when every check passed.
  public var failures: [String] = []

  public var commitsPerSecond: Double { seconds > 0 ? Double(commits) / seconds : 0 }
  /// Transactions attempted per second, committed or rolled back: what the target rate paces.
  public var attemptsPerSecond: Double { seconds > 0 ? Double(commits + failedCommits) / seconds : 0 }
  public var ok: Bool { failures.isEmpty }
}
