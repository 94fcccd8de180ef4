import FetchedResults
import Foundation

/// One thread committing on one connection, as an app funnels its saves through one serial
/// queue (GRDB's `DatabasePool` writer, a background context): each writer hands over its
/// transaction and waits for the outcome, and the thread commits them back to back. SQLite
/// takes one writer at a time, and writers on connections of their own would meet at its lock,
/// which sits idle while the next one wakes.
final class SerialWriter: @unchecked Sendable {
  private let store: any Store
  private let condition = NSCondition()
  private var pending: [Request] = []
  private var stopped = false
  private let finished = DispatchSemaphore(value: 0)

  private final class Request: @unchecked Sendable {
    let operations: [WriteOperation]
    var result: Result<StoreTransaction, any Error>?
    let done = DispatchSemaphore(value: 0)
    init(_ operations: [WriteOperation]) { self.operations = operations }
  }

  /// Starts the thread; `stop()` ends it.
  init(_ store: any Store) {
    self.store = store
    let thread = Thread { [self] in run() }
    thread.name = "serial-writer"
    thread.start()
  }

  /// Commits `operations` on the writer's connection, after the transactions handed over
  /// before it, and returns or throws what the store's commit did.
  func commit(_ operations: [WriteOperation]) throws -> StoreTransaction {
    let request = Request(operations)
    condition.withLock {
      pending.append(request)
      condition.signal()
    }
    request.done.wait()
    return try request.result!.get()
  }

  /// Ends the thread once the transactions handed over are committed.
  func stop() {
    condition.withLock {
      stopped = true
      condition.signal()
    }
    finished.wait()
  }

  private func run() {
    while let batch = next() {
      for request in batch {
        request.result = Result { try store.commit(request.operations) }
        request.done.signal()
      }
    }
    finished.signal()
  }

  /// Every transaction waiting, in the order handed over; nil once stopped with none left.
  private func next() -> [Request]? {
    condition.withLock {
      while pending.isEmpty && !stopped { condition.wait() }
      if pending.isEmpty { return nil }
      defer { pending.removeAll(keepingCapacity: true) }
      return pending
    }
  }
}
