import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

/// What `fetchbench load` runs on one store.
public struct LoadConfig: Codable, Sendable, Equatable {
  public var store: StoreKind = .sqlite
  public var rows = DatasetKind.defaultRows
  public var seed: UInt64 = 1
  public var datasetsDirectory = "datasets"
  public var writers = 4
  /// Target commits per second, all writers together.
  public var rate = 500.0
  /// Changed objects per transaction, drawn uniformly from this range.
  public var transactionSizeMin = 1
  public var transactionSizeMax = 50
  public var observers = 2
  /// Seconds of writing; the run also stops after `maxTransactions` commits, if set.
  public var duration = 60.0
  public var maxTransactions: Int?
  public var batchSize = 20
  /// The share of writer transactions that fail after their writes (an update of a row that
  /// does not exist) and must roll back, leaving nothing for observers to see.
  public var failureRate = 0.01
  /// Extra milliseconds an observer spends after each change set, as a slow consumer would;
  /// such an observer falls behind and coalesces.
  public var observerDelayMs = 0.0
  /// Observers apply nothing until the writers stop, as an app in the background does, then
  /// catch up: every transaction of the run waits, so coalescing happens at any machine speed.
  public var suspendObservers = false
  /// The p99 delivery latency a rate must stay under to count as sustained
  /// (`--find-max-rate`): one frame at 60 Hz unless set.
  public var frameBudgetMs = LoadRunner.frameMs
  /// PostgreSQL: seconds into the run at which the server ends every observer's session
  /// (`pg_terminate_backend`); the observer reconnects and catches up. nil: not dropped.
  public var dropConnectionAt: Double?
  /// Screens (20 rows at a random position) each scroller reads per second.
  public var screensPerSecond = 30.0
  /// Bytes the live heap may grow between the early part of the run and its end.
  public var heapBoundBytes = 64 << 20
  /// Seconds the observers get to catch up once the writers stop.
  public var drainTimeout = 60.0

  public init() {}

  var location: DatasetLocation { DatasetLocation(kind: .banks, rows: rows, seed: seed, directory: datasetsDirectory) }
}
