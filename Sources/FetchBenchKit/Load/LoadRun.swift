import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import Histogram
import PostgresStore
import SQLiteStore
import TextFormatting
import Vocabulary

/// One run on one store: its connections, threads and figures.
final class LoadRun: @unchecked Sendable {
  let config: LoadConfig
  let log: @Sendable (String) -> Void
  let kind: StoreKind
  let request: FetchRequest
  let sectionedRequest: FetchRequest
  /// The dataset's kind as the observers read it: banks, or banks over its Core Data file.
  let listKind: DatasetKind
  /// With Core Data's schema: the writers' transactions in its file's terms.
  let coreDataWrites: CoreDataFile.Writes?
  /// The writers' transactions as the file takes them (in Core Data's terms on its file).
  let inFile: @Sendable ([WriteOperation]) -> [WriteOperation]
  var writers = WriterStores.none
  var observers: [LoadObserver] = []
  var inboxes: [Inbox] = []
  let ledger = CommitLedger()
  let stats = LoadStats()
  var cleanup: [() -> Void] = []
  var admin: PostgresAdmin?
  var memoryBase: MemoryStore?
  var freshStore: (() throws -> any Store)!
  let stopWriting = LockedBox(false)
  let stopObserving = LockedBox(false)
  /// Set when every writer has stopped: suspended observers resume.
  let writersStopped = LockedBox(false)
  let tickets = LockedBox(0)
  let lastCommitted = LockedBox(0)
  var writerStates: [BankWorkload] = []
  /// SQLite's one writer connection, which every writer hands its transactions to.
  var serialWriter: SerialWriter?
  /// With `rawWrites`: each writer's commit through the store's client alone.
  var rawWriters: [([WriteOperation]) throws -> Void] = []
  var startSequence = 0
  static let rollbackMarker = "ROLLED BACK "

  init(_ config: LoadConfig, log: @escaping @Sendable (String) -> Void) throws {
    self.config = config
    self.log = log
    kind = config.store
    if config.schema == .coreData {
      try CoreDataFile.generateIfMissing(config.location)
      listKind = try CoreDataFile.open(config.location).kind
      coreDataWrites = CoreDataFile.Writes(.banks, into: listKind.definition.model)
    } else {
      (listKind, coreDataWrites) = (.banks, nil)
    }
    let writes = coreDataWrites
    inFile = { operations in writes?.operations(operations) ?? operations }
    request = DatasetModels.defaultRequest(for: listKind, batchSize: config.batchSize)
    sectionedRequest = DatasetModels.sectionedRequest(for: listKind, batchSize: config.batchSize)
    do {
      try setUp()
    } catch {
      close()
      throw error
    }
  }

  /// Odd observers show sections by state, even ones one list: both kinds of change set.
  func request(forObserver i: Int) -> FetchRequest { i % 2 == 1 ? sectionedRequest : request }

  func setUp() throws {
    let t0 = Clock.wallNanos
    switch kind {
    case .sqliteCoreData:
      throw LoadError.notOnCoreDataStatements
    case .memory: try setUpMemory()
    case .sqlite: try setUpSQLite(listKind.definition.model)
    case .postgres: try setUpPostgres(DatasetModels.banks)
    }
    // Writers own disjoint banks and disjoint new IDs: no two transactions touch one row.
    let banks = try BankWorkload.banks(
      of: writers.stores[0], infoKey: coreDataWrites?.attributeName("infoID", of: "FailedBankDetails") ?? "infoID")
    var parts = [[Int64: Int64]](repeating: [:], count: config.writers)
    for (info, details) in banks { parts[Int(info % Int64(config.writers))][info] = details }
    writerStates = (0..<config.writers).map { w in
      BankWorkload(
        banks: parts[w], seed: config.seed &* 1_000 &+ UInt64(w), firstID: 50_000_000 + Int64(w),
        idStep: Int64(config.writers))
    }
    lastCommitted.set(startSequence)
    if config.rawWrites { try setUpRawWriters() }
    log(
      String(
        format: "load %@: %d writers, %d observers (batch %d) on %@ rows ready in %.1f s", kind.rawValue,
        config.writers, config.observers,
        config.batchSize, config.rows.grouped, Double(Clock.wallNanos - t0) / 1e9))
  }

  /// Writers and observers on one in-memory store under a lock, observers fed by inboxes.
  private func setUpMemory() throws {
    let base = try config.location.openMemory()
    memoryBase = base
    let lock = NSLock()
    writers = .memory((0..<config.writers).map { _ in LockedStore(base, lock: lock) })
    inboxes = (0..<config.observers).map { _ in Inbox() }
    let inboxes = self.inboxes
    let ledger = self.ledger
    // Inside the commit, under the store's lock: the moment the transaction is visible.
    _ = base.observers.add { t in
      ledger.record(t.sequence, Clock.wallNanos)
      for inbox in inboxes { inbox.push(t) }
    }
    for i in 0..<config.observers {
      observers.append(
        try LoadObserver(
          index: i, store: LockedStore(base, lock: lock), feed: .inbox(inboxes[i]), request: request(forObserver: i),
          rules: config.changeRules, startSequence: 0))
    }
    freshStore = { LockedStore(base, lock: lock) }
  }

  /// Writers handing their transactions to one writer connection, observers on connections of
  /// their own, to a scratch copy; observers fed by the change log.
  private func setUpSQLite(_ model: Model) throws {
    let scratch =
      try coreDataWrites == nil
      ? SQLiteScratch(config.location, purpose: "load")
      : SQLiteScratch(copying: CoreDataFile.path(for: config.location), purpose: "load")
    cleanup.append { scratch.remove() }
    let path = scratch.path
    let store = try SQLiteStore(path: path, model: model)
    try store.unmapFile()
    try store.enableChangeLog()
    if config.historyTracking { try store.trackHistory() }
    writers = .sqlite(store)
    if !config.rawWrites {
      let writer = SerialWriter(store)
      serialWriter = writer
      cleanup.append { writer.stop() }
    }
    startSequence = store.deliveredSequence
    for i in 0..<config.observers {
      let s = try SQLiteStore(path: path, model: model)
      try s.unmapFile()
      try s.enableChangeLog()
      observers.append(
        try LoadObserver(
          index: i, store: s, feed: .changeLog(s), request: request(forObserver: i), rules: config.changeRules,
          startSequence: s.deliveredSequence))
    }
    freshStore = { try SQLiteStore(path: path, model: model) }
  }

  /// Writers and observers on their own sessions to a scratch database, observers fed by the
  /// change log.
  private func setUpPostgres(_ model: Model) throws {
    let scratch = try PostgresScratch(config.location, purpose: "load")
    var stores: [PostgresStore] = []
    cleanup.append {
      for s in stores { s.close() }
      scratch.drop()
    }
    for _ in 0..<config.writers {
      let s = try PostgresStore(url: scratch.url, model: model)
      stores.append(s)
    }
    writers = .postgres(stores)
    startSequence = stores[0].deliveredSequence
    for i in 0..<config.observers {
      let s = try PostgresStore(url: scratch.url, model: model)
      stores.append(s)
      observers.append(
        try LoadObserver(
          index: i, store: s, feed: .serverChangeLog(s), request: request(forObserver: i), rules: config.changeRules,
          startSequence: s.deliveredSequence))
    }
    admin = try PostgresAdmin(url: scratch.url)
    freshStore = {
      let s = try PostgresStore(url: scratch.url, model: model)
      stores.append(s)
      return s
    }
  }

  func close() {
    observers = []
    writers = .none
    admin = nil
    defer { serialWriter = nil }
    for c in cleanup.reversed() { c() }
    cleanup = []
  }

  let errorsLock = NSLock()
  var writerErrors: [String] = []
}
