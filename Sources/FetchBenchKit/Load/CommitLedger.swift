import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

/// Keeps each transaction's commit time by sequence number (a ring, bounded).
final class CommitLedger: @unchecked Sendable {
  private let lock = NSLock()
  private var entries: [(seq: Int, nanos: UInt64)]
  private let mask: Int

  init(capacityPowerOfTwo: Int = 1 << 20) {
    entries = Array(repeating: (-1, 0), count: capacityPowerOfTwo)
    mask = capacityPowerOfTwo - 1
  }

  /// Keeps the earliest time reported for `seq`.
  func record(_ seq: Int, _ nanos: UInt64) {
    lock.withLock {
      let i = seq & mask
      if entries[i].seq != seq || nanos < entries[i].nanos { entries[i] = (seq, nanos) }
    }
  }

  func time(_ seq: Int) -> UInt64? {
    lock.withLock { entries[seq & mask].seq == seq ? entries[seq & mask].nanos : nil }
  }
}
