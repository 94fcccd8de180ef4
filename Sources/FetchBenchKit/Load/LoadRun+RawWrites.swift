import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import PostgresStore
import SQLQueries
import SQLiteStore

extension LoadRun {
  /// The store's client alone, one per writer: SQLite's C API on a connection of its own
  /// (`SQLiteRawWriter`), postgres-nio on each writer's session (`rawCommit`), and the
  /// in-memory store's own commit, which has no client beneath it.
  func setUpRawWriters() throws {
    switch writers {
    case .sqlite(let store):
      let (save, inFile) = (try store.coreDataSave(), self.inFile)
      rawWriters = try (0..<config.writers).map { _ in
        let writer = try SQLiteRawWriter(
          path: store.path, model: store.model, save: save, historyTracking: store.historyTracking)
        return { ops in
          let written = inFile(ops)
          try writer.commit(written, payload: WriteSQL.payload(written))
        }
      }
    case .postgres(let stores):
      rawWriters = stores.map { pg in { ops in try pg.rawCommit(ops, payload: WriteSQL.payload(ops)) } }
    case .memory(let stores):
      rawWriters = stores.map { store in { ops in _ = try store.commit(ops) } }
    case .none: rawWriters = []
    }
  }

  /// Writer w commits the same seeded transactions as `writer` (none of them failing), one
  /// after the other with no schedule, until the run's end: the store's own limit.
  func rawWriter(_ w: Int, end: UInt64) {
    var state = writerStates[w]
    var rng = SeededRandom(seed: config.seed &* 7_919 &+ UInt64(w))
    while Clock.wallNanos < end, !stopWriting.get() {
      do {
        try rawWriters[w](state.mixed(transactionSize(&rng)))
        stats.committed()
      } catch {
        errorsLock.withLock { writerErrors.append("writer \(w): \(error)") }
        stopWriting.set(true)
        return
      }
    }
  }
}
