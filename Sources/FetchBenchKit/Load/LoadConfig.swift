import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore
import Vocabulary

/// What `fetchbench load` runs on one store.
package struct LoadConfig: Codable, Sendable, Equatable {
  package var store: StoreKind = .sqlite
  package var rows = DatasetKind.defaultRows
  package var seed: UInt64 = 1
  package var datasetsDirectory = "datasets"
  package var writers = 4
  /// Target commits per second, all writers together.
  package var rate = 500.0
  /// Changed objects per transaction, drawn uniformly from this range.
  package var transactionSizeMin = 1
  package var transactionSizeMax = 50
  package var observers = 2
  /// Seconds of writing; the run also stops after `maxTransactions` commits, if set.
  package var duration = 60.0
  package var maxTransactions: Int?
  package var batchSize = 20
  /// The share of writer transactions that fail after their writes (an update of a row that
  /// does not exist) and must roll back, leaving nothing for observers to see.
  package var failureRate = 0.01
  /// Extra milliseconds an observer spends after each change set, as a slow consumer would;
  /// such an observer falls behind and coalesces.
  package var observerDelayMs = 0.0
  /// Observers apply nothing until the writers stop, as an app in the background does, then
  /// catch up: every transaction of the run waits, so coalescing happens at any machine speed.
  package var suspendObservers = false
  /// The p99 delivery latency a rate must stay under to count as sustained
  /// (`--find-max-rate`): one frame at 60 Hz unless set.
  package var frameBudgetMs = LoadRunner.frameMs
  /// PostgreSQL: seconds into the run at which the server ends every observer's session
  /// (`pg_terminate_backend`); the observer reconnects and catches up. nil: not dropped.
  package var dropConnectionAt: Double?
  /// Screens (20 rows at a random position) each scroller reads per second.
  package var screensPerSecond = 30.0
  /// Bytes the live heap may grow between the early part of the run and its end.
  package var heapBoundBytes = 64 << 20
  /// The observers' change rules: the minimal ones (each mirror must equal a fresh fetch at
  /// the end) or Core Data's (each mirror must equal its controller's list, and the rows that
  /// list shows out of place against a fresh fetch are counted).
  package var changeRules = ChangeRules.minimal
  /// The file the writers write: the dataset's own, or its Core Data file (`CoreDataFile`),
  /// written as Core Data's save writes it (SQLite only).
  package var schema = PhysicalSchema.fetchbench
  /// With Core Data's schema: each save also writes Core Data's persistent history
  /// (`PersistentHistory`), as a store an app syncs through CloudKit does.
  package var historyTracking = false
  /// Commit the same transactions through the store's client alone (`WriteSQL`: no reads of
  /// old values, no change recording), as fast as they go, with no observers: the store's own
  /// write limit, which `--find-max-rate` measures before its steps.
  package var rawWrites = false
  /// Seconds the observers get to catch up once the writers stop.
  package var drainTimeout = 60.0

  package init() {}

  var location: DatasetLocation { DatasetLocation(kind: .banks, rows: rows, seed: seed, directory: datasetsDirectory) }
}

extension LoadConfig {
  /// Reads a configuration as results.json records it; an option a run recorded before it
  /// existed takes its default, as that run ran with it (a report rendered again reads it).
  package init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.container(keyedBy: CodingKeys.self)
    func read<T: Decodable>(_ key: CodingKeys, into value: inout T) throws {
      if let v = try c.decodeIfPresent(T.self, forKey: key) { value = v }
    }
    try read(.store, into: &store)
    try read(.rows, into: &rows)
    try read(.seed, into: &seed)
    try read(.datasetsDirectory, into: &datasetsDirectory)
    try read(.writers, into: &writers)
    try read(.rate, into: &rate)
    try read(.transactionSizeMin, into: &transactionSizeMin)
    try read(.transactionSizeMax, into: &transactionSizeMax)
    try read(.observers, into: &observers)
    try read(.duration, into: &duration)
    maxTransactions = try c.decodeIfPresent(Int.self, forKey: .maxTransactions)
    try read(.batchSize, into: &batchSize)
    try read(.failureRate, into: &failureRate)
    try read(.observerDelayMs, into: &observerDelayMs)
    try read(.suspendObservers, into: &suspendObservers)
    try read(.frameBudgetMs, into: &frameBudgetMs)
    dropConnectionAt = try c.decodeIfPresent(Double.self, forKey: .dropConnectionAt)
    try read(.screensPerSecond, into: &screensPerSecond)
    try read(.heapBoundBytes, into: &heapBoundBytes)
    try read(.changeRules, into: &changeRules)
    try read(.schema, into: &schema)
    try read(.historyTracking, into: &historyTracking)
    try read(.rawWrites, into: &rawWrites)
    try read(.drainTimeout, into: &drainTimeout)
  }
}

extension LoadConfig: ChildWork {
  package static let command = "_load"
}
