#if PostgreSQL
  import FetchedResults
  import Foundation
  import Logging
  import NIOPosix
  import PostgresNIO
  import SQLQueries

  // The change log: every connection's transactions in sequence order.
  extension PostgresStore {

    /// Delivers the change log's transactions after `deliveredSequence` to the observers, in
    /// sequence order, one query. Returns how many were delivered.
    @discardableResult
    public func pollChanges() throws -> Int {
      let rows = UncheckedBox([(Int, String)]())
      counters.queries += 1
      try run(ChangeLogSQL.poll(.postgres), [.integer(Int64(cursor.delivered))]) { row in
        rows.value.append((Int(try row[0].decode(Int64.self)), try row[1].decode(String.self)))
      }
      for (seq, payload) in rows.value {
        let transaction: StoreTransaction
        do { transaction = try cursor.next(sequence: seq, payload: payload) } catch let gap as ChangeLogCursor.Gap {
          throw PostgresStoreError.query(url, gap.description, "")
        }
        observers.notify(transaction)
      }
      return rows.value.count
    }

    /// Blocks the calling thread until a commit notification arrives or `timeout` seconds
    /// pass, then polls the log. Returns the number of transactions delivered. Call it from a
    /// thread of your own, never from Swift concurrency's pool.
    @discardableResult
    public func waitForChanges(timeout: Double) throws -> Int {
      awaitNotification(timeout: timeout)
      return try pollChanges()
    }

    /// Blocks until a commit notification arrives or `timeout` seconds pass, without reading
    /// the log: safe to call while another thread uses the store (only the notification
    /// signal is touched), so a thread can wait without holding the lock that guards the store.
    public func awaitNotification(timeout: Double) { signal.wait(timeout: timeout) }
  }

  /// Counts notifications; a waiting thread wakes on the first one.
  final class NotificationSignal: @unchecked Sendable {
    let condition = NSCondition()
    var pending = 0

    func post() {
      condition.lock()
      pending += 1
      condition.signal()
      condition.unlock()
    }

    func wait(timeout: Double) {
      condition.lock()
      let deadline = Date(timeIntervalSinceNow: timeout)
      while pending == 0 && condition.wait(until: deadline) {}
      pending = 0
      condition.unlock()
    }
  }
#endif
