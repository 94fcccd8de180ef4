import Datasets
import FetchedResults
import Foundation
import Histogram
import Reports
import SQLiteStore

extension LoadRun {
  /// Checks the run after its writers stopped: every observer applied every transaction once
  /// with valid change sets, every mirror equals a fresh fetch, nothing of a failed
  /// transaction is visible, the heap stayed within its bound. Failures go to `result`.
  /// O(observers × rows).
  func verify(_ result: inout LoadResult, finalSequence: Int) throws {
    var failures = errorsLock.withLock { writerErrors }
    guard collectObservers(&result, &failures, finalSequence: finalSequence) else {
      result.failures = failures
      return
    }
    if result.invalidChangeSets > 0 {
      failures.append("\(result.invalidChangeSets) change set(s) broke UIKit's batch-update rules")
    }
    if result.missedTransactions > 0 { failures.append("\(result.missedTransactions) transaction(s) missed") }
    if result.repeatedTransactions > 0 {
      failures.append("\(result.repeatedTransactions) transaction(s) applied twice")
    }
    let fresh = try freshStore()
    try compareMirrors(&result, &failures, with: fresh)
    // Nothing of a failed transaction is visible.
    var marker = FetchRequest(entityName: "FailedBankInfo")
    marker.predicate = .text("name", .beginsWith, Self.rollbackMarker)
    result.rolledBackRowsVisible = try fresh.count(marker.resolve(in: fresh.model))
    if result.rolledBackRowsVisible > 0 {
      failures.append("\(result.rolledBackRowsVisible) row(s) of failed transactions are visible")
    }
    checkHeap(&result, &failures)
    if result.commits == 0 { failures.append("no transaction was committed") }
    result.failures = failures
  }

  /// Each observer's counts added to `result`; false when one is stuck (its lock held), and
  /// nothing more can be checked.
  func collectObservers(_ result: inout LoadResult, _ failures: inout [String], finalSequence: Int) -> Bool {
    var stuck = false
    for o in observers {
      guard o.lock.lock(before: Date(timeIntervalSinceNow: 5)) else {
        failures.append("observer \(o.index) is stuck (its lock is held)")
        result.mirrorsMatch = false
        stuck = true
        continue
      }
      defer { o.lock.unlock() }
      failures += o.errors
      result.invalidChangeSets += o.invalid
      result.missedTransactions += o.missed
      result.repeatedTransactions += o.repeated
      if o.lastApplied < finalSequence {
        failures.append(
          """
          observer \(o.index) applied transactions up to \(o.lastApplied) of \(finalSequence) within \
          \(Int(config.drainTimeout)) s
          """
        )
      }
    }
    return !stuck
  }

  /// Every mirror equals a fresh fetch on a new connection; under Core Data's rules, its own
  /// controller's list, whose rows out of place against the fresh fetch are counted.
  func compareMirrors(_ result: inout LoadResult, _ failures: inout [String], with fresh: any Store) throws {
    for o in observers {
      let controller = FetchedResultsController(fetchRequest: request(forObserver: o.index), store: fresh)
      try controller.performFetch()
      let now = controller.snapshot()
      let (mirror, tracked) = o.lock.withLock { (o.mirror, o.controller.snapshot()) }
      if config.changeRules == .coreData {
        result.staleRows += ListDiff.staleRows(tracked, against: now)
        if !mirror.sameRows(as: tracked) {
          result.mirrorsMatch = false
          failures.append(
            """
            observer \(o.index)'s mirror differs from its controller's list (\(mirror.count) and \(tracked.count) \
            rows)
            """
          )
        }
      } else if !mirror.sameRows(as: now) || !tracked.sameRows(as: now) {
        result.mirrorsMatch = false
        failures.append(
          """
          observer \(o.index)'s mirror (\(mirror.count) rows, \(mirror.sections.count) sections) differs from a \
          fresh fetch (\(now.count) rows, \(now.sections.count) sections)
          """
        )
      }
    }
  }

  /// The heap of the early part of the run (10–30 % of its seconds) against its last fifth.
  func checkHeap(_ result: inout LoadResult, _ failures: inout [String]) {
    let heap = result.timeline.map { Double($0.heapBytes) }
    guard heap.count >= 20 else { return }
    func mean(_ s: ArraySlice<Double>) -> Double { s.reduce(0, +) / Double(s.count) }
    let early = mean(heap[(heap.count / 10)..<(heap.count * 3 / 10)])
    let late = mean(heap[(heap.count * 4 / 5)...])
    let growth = Int(late - early)
    result.heapGrowthBytes = growth
    if growth > config.heapBoundBytes {
      failures.append("the live heap grew by \(bytes(Double(growth))) (bound \(bytes(Double(config.heapBoundBytes))))")
    }
  }
}
