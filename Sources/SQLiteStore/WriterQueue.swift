import Foundation

/// One writer at a time per file within this process, as GRDB's `DatabasePool` runs its
/// writes on one serial queue: SQLite takes one writer anyway, and connections that contend
/// for its lock instead wait in the busy handler, which sleeps in steps of milliseconds
/// (1, 2, 5, 10, … ms) and lets the lock sit free meanwhile. Writers of other processes
/// still meet at SQLite's lock.
enum WriterQueue {
  private static let guardLock = NSLock()
  nonisolated(unsafe) private static var locks: [String: NSLock] = [:]

  /// Runs `body` holding the file's writer lock. O(1) besides the wait.
  static func serially<T>(_ path: String, _ body: () throws -> T) rethrows -> T {
    let lock = guardLock.withLock {
      if let l = locks[path] { return l }
      let l = NSLock()
      locks[path] = l
      return l
    }
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }
}
