import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore

/// How an observer's transactions arrive: pushed into its inbox inside the commit (the
/// in-memory store), or read from the store's change log on its own connection.
enum Feed {
  case inbox(Inbox)
  /// A SQLite connection's change log.
  case changeLog(any ChangeLogStore)
  /// A PostgreSQL session's change log: a session the server ends is opened again.
  case serverChangeLog(PostgresStore)

  /// The change log the observer polls; nil for an inbox. O(1).
  var changeLog: (any ChangeLogStore)? {
    switch self {
    case .inbox: nil
    case .changeLog(let store): store
    case .serverChangeLog(let store): store
    }
  }

  /// The PostgreSQL session the change log arrives on; nil for another feed. O(1).
  var session: PostgresStore? {
    if case .serverChangeLog(let store) = self { store } else { nil }
  }
}

/// One observer: a batched controller on its own connection, the mirror a table view would
/// hold, and the lock that its observer and scroller threads share (the main thread, in an
/// app: delivery and scrolling never run at once).
final class LoadObserver: @unchecked Sendable {
  let index: Int
  let lock = NSLock()
  let store: any Store
  let controller: FetchedResultsController
  let feed: Feed
  var mirror: ListSnapshot
  var pending: [PendingUnit] = []
  var lastApplied: Int
  var invalid = 0
  var missed = 0
  var repeated = 0
  var errors: [String] = []

  init(index: Int, store: any Store, feed: Feed, request: FetchRequest, rules: ChangeRules, startSequence: Int) throws {
    self.index = index
    self.store = store
    self.feed = feed
    controller = FetchedResultsController(fetchRequest: request, store: store)
    controller.changeRules = rules
    controller.tracksChanges = true
    controller.observesStore = false
    try controller.performFetch()
    mirror = controller.snapshot()
    lastApplied = startSequence
    if case .inbox = feed { return }
    _ = store.observers.add { [unowned self] t in
      // Delivered by pollChanges on a thread that holds `lock`.
      pending.append(PendingUnit(first: t.sequence, transaction: t, count: 1))
    }
  }

  /// Reconnects a PostgreSQL observer whose session ended (the reconnect delivers what it
  /// missed from the change log). Call with `lock` held. False when the error was another.
  func recover(_ stats: LoadStats) throws -> Bool {
    guard let pg = feed.session else { return false }
    // A query cut off by the server's close can fail before the client marks the connection
    // closed: give it a moment to notice.
    for _ in 0..<50 where !pg.isDisconnected { usleep(20_000) }
    guard pg.isDisconnected else { return false }
    try pg.reconnect()
    stats.reconnected()
    return true
  }
}
