import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

/// A transaction (or several, coalesced) waiting for an observer.
struct PendingUnit {
  var first: Int
  var transaction: StoreTransaction
  var count: Int

  /// Merges units that follow each other into one. O(total size).
  static func coalescing(_ units: [PendingUnit]) -> PendingUnit {
    if units.count == 1 { return units[0] }
    return PendingUnit(
      first: units[0].first, transaction: StoreTransaction.coalescing(units.map(\.transaction)),
      count: units.reduce(0) { $0 + $1.count })
  }
}

/// The in-memory store's delivery: transactions pushed inside the commit, taken by the
/// observer's thread. Past `cap` waiting units they are merged, so a slow observer's inbox
/// stays bounded.
final class Inbox: @unchecked Sendable {
  private let condition = NSCondition()
  private var units: [PendingUnit] = []
  let cap = 64

  func push(_ t: StoreTransaction) {
    condition.lock()
    units.append(PendingUnit(first: t.sequence, transaction: t, count: 1))
    if units.count > cap { units = [PendingUnit.coalescing(units)] }
    condition.signal()
    condition.unlock()
  }

  func take(timeout: Double) -> [PendingUnit] {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date(timeIntervalSinceNow: timeout)
    while units.isEmpty && condition.wait(until: deadline) {}
    let out = units
    units = []
    return out
  }
}

/// A store shared by threads (the in-memory store): every call holds one lock. Each view
