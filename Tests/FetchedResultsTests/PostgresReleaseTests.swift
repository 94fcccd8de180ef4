import Catalog
import DatasetStores
import Datasets
import FetchedResults
import PostgresStore
import Synchronization
import TestSupport
import Testing

/// A PostgreSQL store whose last reference goes on its connection's event loop (a row callback
/// that captured it, released after the query) closes there without waiting, which NIO traps.
@Suite struct PostgresRelease {
  final class Holder: Sendable {
    let store = Mutex<PostgresStore?>(nil)
  }

  @Test func theLastReferenceReleasedOnItsEventLoopClosesTheStore() throws {
    try EngineFixture.shared.requirePostgres()
    let url = try postgresCopy()
    let holder = Holder()
    // Only the holder references the store; the event loop drops that reference.
    try holder.store.withLock { $0 = try PostgresStore(url: url, model: DatasetModels.banks) }
    let (run, ids) = try holder.store.withLock { s in
      (s!.runOnEventLoop, try s!.fetchIDs(try DatasetModels.defaultRequest(for: .banks).resolve(in: s!.model)))
    }
    try run { holder.store.withLock { $0 = nil } }
    #expect(holder.store.withLock { $0 == nil })
    let again = try PostgresStore(url: url, model: DatasetModels.banks)
    #expect(try again.fetchIDs(try DatasetModels.defaultRequest(for: .banks).resolve(in: again.model)) == ids)
  }
}
