import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

// The change log: transactions of every connection to the file, in commit order.
extension SQLiteStore {

  /// The change log's table, as on PostgreSQL.
  public static let changeLog = ChangeLogSQL.table

  /// Turns on the change log for this connection: from now on every commit also appends its
  /// transaction (`TransactionCodec` text) to the table `fetchbench_changes` (created when
  /// missing), numbered under the write lock, so numbers are gapless and in commit order.
  /// Observers of every store with the log on, on any connection to the file, receive every
  /// logged transaction in order through `pollChanges()`. Observers see transactions
  /// committed after this call. Needs a writable file.
  ///
  /// SQLite has no notification channel: within this process a commit wakes the stores
  /// waiting in `waitForChanges(timeout:)` on the same file; commits of other processes are
  /// seen when the wait times out.
  public func enableChangeLog() throws {
    do {
      try queue.inDatabase { db in
        try db.makeStatement(
          sql: """
            CREATE TABLE IF NOT EXISTS \(Self.changeLog) (seq INTEGER PRIMARY KEY, committed_at REAL NOT NULL, \
            payload TEXT NOT NULL)
            """
        ).execute()
        cursor = ChangeLogCursor(after: Int(try Int64.fetchOne(db, sql: ChangeLogSQL.head) ?? 0))
      }
    } catch let error as DatabaseError {
      throw SQLiteStoreError.query(path, error.message ?? "\(error)", error.sql ?? "")
    }
    let generation = ChangeBell.generation(path)
    bellLock.withLock { bellGeneration = generation }
    changeLogEnabled = true
  }

  /// Turns memory-mapped reads off on this connection (SQLite's default). A mapped
  /// connection unmaps and maps the file again at the first read after another connection's
  /// commit, and faults its pages in anew: cheap for a file that changes rarely, dear for one
  /// that commits hundreds of times a second.
  public func unmapFile() throws {
    try queue.inDatabase { db in try db.execute(sql: "PRAGMA mmap_size = 0") }
  }

  /// This connection's durability settings as SQLite reports them:
  /// `journal_mode=wal, synchronous=FULL`. Two queries.
  public func durabilitySettings() throws -> String {
    try queue.inDatabase { db in
      let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
      let level = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
      let names = ["OFF", "NORMAL", "FULL", "EXTRA"]
      return "journal_mode=\(journal), synchronous=\(names.indices.contains(level) ? names[level] : "\(level)")"
    }
  }

  /// Delivers the change log's transactions after `deliveredSequence` to the observers, in
  /// order, one query. Returns how many were delivered. O(transactions delivered).
  @discardableResult
  public func pollChanges() throws -> Int {
    guard changeLogEnabled else { return 0 }
    let rows = try read { db in
      counters.queries += 1
      return try Row.fetchAll(db.cachedStatement(sql: ChangeLogSQL.poll(.sqlite)), arguments: [cursor.delivered]).map {
        (Int($0[0] as Int64), $0[1] as String)
      }
    }
    for (seq, payload) in rows {
      let transaction: StoreTransaction
      do { transaction = try cursor.next(sequence: seq, payload: payload) } catch let gap as ChangeLogCursor.Gap {
        throw SQLiteStoreError.query(path, gap.description, "")
      }
      observers.notify(transaction)
    }
    return rows.count
  }

  /// Blocks the calling thread until a commit of this process rings the file's bell or
  /// `timeout` seconds pass, then polls the log. Returns the number of transactions
  /// delivered. Call it from a thread of your own, never from Swift concurrency's pool.
  @discardableResult
  public func waitForChanges(timeout: Double) throws -> Int {
    awaitNotification(timeout: timeout)
    return try pollChanges()
  }

  /// Blocks until a commit of this process rings the file's bell or `timeout` seconds pass,
  /// without reading the log. Only the waiting thread may call it (it keeps the bell
  /// generation seen), but other threads may use the store meanwhile.
  public func awaitNotification(timeout: Double) {
    let seen = bellLock.withLock { bellGeneration }
    let now = ChangeBell.wait(path, after: seen, timeout: timeout)
    bellLock.withLock { bellGeneration = now }
  }

}

/// Wakes the stores of this process that wait for commits to a file: a generation counter per
/// path and a broadcast, so every waiter wakes (a counting signal would wake one).
enum ChangeBell {
  static let condition = NSCondition()
  nonisolated(unsafe) private static var generations: [String: Int] = [:]

  static func ring(_ path: String) {
    condition.lock()
    generations[path, default: 0] += 1
    condition.broadcast()
    condition.unlock()
  }

  static func generation(_ path: String) -> Int {
    condition.lock()
    defer { condition.unlock() }
    return generations[path, default: 0]
  }

  /// Waits until the path's generation differs from `seen` or `timeout` passes; returns the
  /// generation now.
  static func wait(_ path: String, after seen: Int, timeout: Double) -> Int {
    let deadline = Date(timeIntervalSinceNow: timeout)
    condition.lock()
    defer { condition.unlock() }
    while generations[path, default: 0] == seen && condition.wait(until: deadline) {}
    return generations[path, default: 0]
  }
}
