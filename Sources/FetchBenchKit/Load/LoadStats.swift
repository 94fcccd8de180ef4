import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

/// Figures every thread adds to, under one lock; the sampler turns them into seconds.
final class LoadStats: @unchecked Sendable {
  private let lock = NSLock()
  static func histogram() -> Histogram<UInt64> {
    Histogram(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
  }

  private(set) var delivery = histogram()
  private(set) var changeSet = histogram()
  private(set) var fault = histogram()
  private var secDelivery = histogram()
  private var secChangeSet = histogram()
  private var secFault = histogram()
  private var sec = LoadSecond(second: 0)
  var commits = 0
  var failedCommits = 0
  var changeSets = 0
  /// Nanoseconds the observers spent in `apply`, all change sets together.
  var changeSetNanos: UInt64 = 0
  var coalesced = 0
  var faults = 0
  var reconnects = 0
  var staleReads = 0
  /// Applied sequence ranges waiting for their commit times: (first, last, applied at).
  private var applied: [(Int, Int, UInt64)] = []

  func withLock<T>(_ body: (LoadStats) -> T) -> T { lock.withLock { body(self) } }

  static func micros(_ nanos: UInt64) -> UInt64 { min(nanos / 1_000, 600_000_000) }

  func committed() {
    lock.withLock {
      commits += 1
      sec.commits += 1
    }
  }
  func failed() {
    lock.withLock {
      failedCommits += 1
      sec.failedCommits += 1
    }
  }
  func reconnected() { lock.withLock { reconnects += 1 } }
  func staleRead() { lock.withLock { staleReads += 1 } }

  func changeSetApplied(first: Int, last: Int, transactions: Int, nanos: UInt64, at: UInt64) {
    lock.withLock {
      changeSets += 1
      changeSetNanos += nanos
      sec.changeSets += 1
      coalesced += transactions - 1
      sec.coalesced += transactions - 1
      _ = changeSet.record(Self.micros(nanos))
      _ = secChangeSet.record(Self.micros(nanos))
      applied.append((first, last, at))
    }
  }

  func faulted(nanos: UInt64) {
    lock.withLock {
      faults += 1
      sec.faults += 1
      _ = fault.record(Self.micros(nanos))
      _ = secFault.record(Self.micros(nanos))
    }
  }

  /// Turns applied ranges older than `before` (all, when nil) into delivery latencies.
  func matchDeliveries(_ ledger: CommitLedger, before: UInt64?) {
    lock.withLock {
      var keep: [(Int, Int, UInt64)] = []
      for (first, last, at) in applied {
        if let before, at >= before {
          keep.append((first, last, at))
          continue
        }
        for seq in first...last {
          guard let t = ledger.time(seq) else { continue }
          let us = Self.micros(at > t ? at - t : 0)
          _ = delivery.record(us)
          _ = secDelivery.record(us)
        }
      }
      applied = keep
    }
  }

  /// Closes the current second and starts the next.
  func closeSecond(_ index: Int, heap: Int, rss: Int) -> LoadSecond {
    lock.withLock {
      var s = sec
      s.second = index
      s.deliveryP50Ms = Double(secDelivery.totalCount > 0 ? secDelivery.valueAtPercentile(50) : 0) / 1_000
      s.deliveryP99Ms = Double(secDelivery.totalCount > 0 ? secDelivery.valueAtPercentile(99) : 0) / 1_000
      s.deliveryMaxMs = Double(secDelivery.totalCount > 0 ? secDelivery.max : 0) / 1_000
      s.changeSetP99Ms = Double(secChangeSet.totalCount > 0 ? secChangeSet.valueAtPercentile(99) : 0) / 1_000
      s.faultP99Ms = Double(secFault.totalCount > 0 ? secFault.valueAtPercentile(99) : 0) / 1_000
      s.heapBytes = heap
      s.rssBytes = rss
      sec = LoadSecond(second: index + 1)
      secDelivery.reset()
      secChangeSet.reset()
      secFault.reset()
      return s
    }
  }
}
