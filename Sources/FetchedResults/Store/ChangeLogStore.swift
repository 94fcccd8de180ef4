/// A store that hears of commits made through other connections, in this process or another,
/// by a change log it reads (GRDB's reader/writer split, applied to observation): the store's
/// `observers` receive each transaction once, in sequence order, when `pollChanges` reads it.
public protocol ChangeLogStore: Store {
  /// The sequence number of the last transaction delivered to `observers`.
  var deliveredSequence: Int { get }

  /// Delivers the change log's transactions after `deliveredSequence` to `observers`, in
  /// order, in one query. Returns how many were delivered. O(transactions delivered).
  @discardableResult
  func pollChanges() throws -> Int

  /// Returns when another connection may have committed, or after `timeout` seconds: what
  /// an observer waits on between polls.
  func awaitNotification(timeout: Double)
}
