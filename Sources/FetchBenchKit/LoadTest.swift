import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

/// What `fetchbench load` runs on one store.
public struct LoadConfig: Codable, Sendable, Equatable {
  public var store: String = StoreKind.sqlite.rawValue
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

/// One second of a load run.
public struct LoadSecond: Codable, Sendable, Equatable {
  public var second: Int
  public var commits = 0
  public var failedCommits = 0
  public var changeSets = 0
  public var coalesced = 0
  public var deliveryP50Ms = 0.0
  public var deliveryP99Ms = 0.0
  public var deliveryMaxMs = 0.0
  public var changeSetP99Ms = 0.0
  public var faults = 0
  public var faultP99Ms = 0.0
  public var heapBytes = 0
  public var rssBytes = 0
}

/// Percentiles of one latency distribution, in milliseconds (HdrHistogram, 3 significant digits).
public struct Percentiles: Codable, Sendable, Equatable {
  public var count: UInt64 = 0
  public var p50 = 0.0
  public var p90 = 0.0
  public var p99 = 0.0
  public var p999 = 0.0
  public var max = 0.0

  init(_ h: Histogram<UInt64>) {
    count = h.totalCount
    guard count > 0 else { return }
    func ms(_ us: UInt64) -> Double { Double(us) / 1_000 }
    p50 = ms(h.valueAtPercentile(50))
    p90 = ms(h.valueAtPercentile(90))
    p99 = ms(h.valueAtPercentile(99))
    p999 = ms(h.valueAtPercentile(99.9))
    max = ms(h.max)
  }
  public init() {}
}

/// What a load run measured and whether its results were right.
public struct LoadResult: Codable, Sendable {
  public var config: LoadConfig
  public var seconds = 0.0
  public var targetCommits = 0.0
  public var commits = 0
  public var failedCommits = 0
  public var delivery = Percentiles()
  public var changeSet = Percentiles()
  public var faultLatency = Percentiles()
  public var faults = 0
  public var changeSets = 0
  /// Transactions merged into another's change set by an observer that fell behind.
  public var coalescedTransactions = 0
  public var reconnects = 0
  /// Scroller reads whose batch held a row deleted by a transaction not yet delivered.
  public var staleReads = 0
  public var invalidChangeSets = 0
  public var missedTransactions = 0
  public var repeatedTransactions = 0
  public var mirrorsMatch = true
  public var rolledBackRowsVisible = 0
  public var heapGrowthBytes: Int?
  public var peakRSSBytes = 0
  public var timeline: [LoadSecond] = []
  /// What went wrong; empty when every check passed.
  public var failures: [String] = []

  public var commitsPerSecond: Double { seconds > 0 ? Double(commits) / seconds : 0 }
  /// Transactions attempted per second, committed or rolled back: what the target rate paces.
  public var attemptsPerSecond: Double { seconds > 0 ? Double(commits + failedCommits) / seconds : 0 }
  public var ok: Bool { failures.isEmpty }
}

/// `fetchbench load`: writers commit seeded random transactions at a target rate while
/// observers keep batched controllers in sync (each change set replayed on a mirror under
/// UIKit's rules) and scrollers read random screens through the same controllers.
///
/// Threads, not tasks: stores are synchronous and block on I/O, and a blocked thread of the
/// cooperative pool (two threads here) would stall everything else.
///
/// Commit time, for delivery latency, is the earliest moment the harness knows of the
/// transaction: its writer's `commit()` returning, or an observer receiving it (on the
/// in-memory store observers receive it inside the commit). Latencies are matched a tick
/// after the fact, so the writer's record is never missed by a race.
public enum LoadTest {
  public static func run(_ config: LoadConfig, log: @escaping @Sendable (String) -> Void) throws -> LoadResult {
    let run = try LoadRun(config, log: log)
    defer { run.close() }
    return try run.execute()
  }
}

/// Keeps each transaction's commit time by sequence number (a ring, bounded).
final class CommitLedger: @unchecked Sendable {
  private let lock = NSLock()
  private var entries: [(seq: Int, nanos: UInt64)]
  private let mask: Int

  init(capacityPowerOfTwo: Int = 1 << 20) {
    entries = Array(repeating: (-1, 0), count: capacityPowerOfTwo)
    mask = capacityPowerOfTwo - 1
  }

  /// Keeps the earliest time reported for `seq`.
  func record(_ seq: Int, _ nanos: UInt64) {
    lock.withLock {
      let i = seq & mask
      if entries[i].seq != seq || nanos < entries[i].nanos { entries[i] = (seq, nanos) }
    }
  }

  func time(_ seq: Int) -> UInt64? {
    lock.withLock { entries[seq & mask].seq == seq ? entries[seq & mask].nanos : nil }
  }
}

/// Figures every thread adds to, under one lock; the sampler turns them into seconds.
final class LoadStats: @unchecked Sendable {
  private let lock = NSLock()
  static func histogram() -> Histogram<UInt64> { Histogram(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three) }

  private(set) var delivery = histogram()
  private(set) var changeSet = histogram()
  private(set) var fault = histogram()
  private var secDelivery = histogram()
  private var secChangeSet = histogram()
  private var secFault = histogram()
  private var sec = LoadSecond(second: 0)
  var commits = 0
  var failedCommits = 0
  var changeSets = 0
  var coalesced = 0
  var faults = 0
  var reconnects = 0
  var staleReads = 0
  /// Applied sequence ranges waiting for their commit times: (first, last, applied at).
  private var applied: [(Int, Int, UInt64)] = []

  func withLock<T>(_ body: (LoadStats) -> T) -> T { lock.withLock { body(self) } }

  static func micros(_ nanos: UInt64) -> UInt64 { min(nanos / 1_000, 600_000_000) }

  func committed() {
    lock.withLock {
      commits += 1
      sec.commits += 1
    }
  }
  func failed() {
    lock.withLock {
      failedCommits += 1
      sec.failedCommits += 1
    }
  }
  func reconnected() { lock.withLock { reconnects += 1 } }
  func staleRead() { lock.withLock { staleReads += 1 } }

  func changeSetApplied(first: Int, last: Int, transactions: Int, nanos: UInt64, at: UInt64) {
    lock.withLock {
      changeSets += 1
      sec.changeSets += 1
      coalesced += transactions - 1
      sec.coalesced += transactions - 1
      _ = changeSet.record(Self.micros(nanos))
      _ = secChangeSet.record(Self.micros(nanos))
      applied.append((first, last, at))
    }
  }

  func faulted(nanos: UInt64) {
    lock.withLock {
      faults += 1
      sec.faults += 1
      _ = fault.record(Self.micros(nanos))
      _ = secFault.record(Self.micros(nanos))
    }
  }

  /// Turns applied ranges older than `before` (all, when nil) into delivery latencies.
  func matchDeliveries(_ ledger: CommitLedger, before: UInt64?) {
    lock.withLock {
      var keep: [(Int, Int, UInt64)] = []
      for (first, last, at) in applied {
        if let before, at >= before {
          keep.append((first, last, at))
          continue
        }
        for seq in first...last {
          guard let t = ledger.time(seq) else { continue }
          let us = Self.micros(at > t ? at - t : 0)
          _ = delivery.record(us)
          _ = secDelivery.record(us)
        }
      }
      applied = keep
    }
  }

  /// Closes the current second and starts the next.
  func closeSecond(_ index: Int, heap: Int, rss: Int) -> LoadSecond {
    lock.withLock {
      var s = sec
      s.second = index
      s.deliveryP50Ms = Double(secDelivery.totalCount > 0 ? secDelivery.valueAtPercentile(50) : 0) / 1_000
      s.deliveryP99Ms = Double(secDelivery.totalCount > 0 ? secDelivery.valueAtPercentile(99) : 0) / 1_000
      s.deliveryMaxMs = Double(secDelivery.totalCount > 0 ? secDelivery.max : 0) / 1_000
      s.changeSetP99Ms = Double(secChangeSet.totalCount > 0 ? secChangeSet.valueAtPercentile(99) : 0) / 1_000
      s.faultP99Ms = Double(secFault.totalCount > 0 ? secFault.valueAtPercentile(99) : 0) / 1_000
      s.heapBytes = heap
      s.rssBytes = rss
      sec = LoadSecond(second: index + 1)
      secDelivery.reset()
      secChangeSet.reset()
      secFault.reset()
      return s
    }
  }
}

/// A transaction (or several, coalesced) waiting for an observer.
struct PendingUnit {
  var first: Int
  var transaction: StoreTransaction
  var count: Int

  /// Merges units that follow each other into one. O(total size).
  static func coalescing(_ units: [PendingUnit]) -> PendingUnit {
    if units.count == 1 { return units[0] }
    return PendingUnit(
      first: units[0].first, transaction: StoreTransaction.coalescing(units.map(\.transaction)), count: units.reduce(0) { $0 + $1.count })
  }
}

/// The in-memory store's delivery: transactions pushed inside the commit, taken by the
/// observer's thread. Past `cap` waiting units they are merged, so a slow observer's inbox
/// stays bounded.
final class Inbox: @unchecked Sendable {
  private let condition = NSCondition()
  private var units: [PendingUnit] = []
  let cap = 64

  func push(_ t: StoreTransaction) {
    condition.lock()
    units.append(PendingUnit(first: t.sequence, transaction: t, count: 1))
    if units.count > cap { units = [PendingUnit.coalescing(units)] }
    condition.signal()
    condition.unlock()
  }

  func take(timeout: Double) -> [PendingUnit] {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date(timeIntervalSinceNow: timeout)
    while units.isEmpty && condition.wait(until: deadline) {}
    let out = units
    units = []
    return out
  }
}

/// A store shared by threads (the in-memory store): every call holds one lock. Each view
/// keeps its own counters.
final class LockedStore: Store, @unchecked Sendable {
  let base: any Store
  let lock: NSLock
  private(set) var counters = StoreCounters()

  init(_ base: any Store, lock: NSLock) {
    self.base = base
    self.lock = lock
  }

  var model: Model { base.model }
  var observers: TransactionObservers { base.observers }
  func resetCounters() { counters = StoreCounters() }

  private func locked<T>(_ body: (any Store) throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    let before = base.counters
    defer {
      let after = base.counters
      counters.queries += after.queries - before.queries
      counters.rowsMaterialized += after.rowsMaterialized - before.rowsMaterialized
    }
    return try body(base)
  }

  func fetchIDs(_ r: ResolvedRequest) throws -> [Int64] { try locked { try $0.fetchIDs(r) } }
  func fetchObjects(_ r: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
    try locked { try $0.fetchObjects(r, ids: ids) }
  }
  func fetchObjects(_ r: ResolvedRequest) throws -> [FetchedObject] { try locked { try $0.fetchObjects(r) } }
  func count(_ r: ResolvedRequest) throws -> Int { try locked { try $0.count(r) } }
  func sectionCounts(_ r: ResolvedRequest) throws -> [SectionCount] { try locked { try $0.sectionCounts(r) } }
  func commit(_ operations: [WriteOperation]) throws -> StoreTransaction { try locked { try $0.commit(operations) } }
  func fetchKeyedIDs(_ r: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs { try locked { try $0.fetchKeyedIDs(r, ids: ids) } }
  func relatedIDs(_ r: ResolvedRequest, through rel: Relationship, destinationIDs: [Int64]) throws -> [Int64] {
    try locked { try $0.relatedIDs(r, through: rel, destinationIDs: destinationIDs) }
  }
}

/// How an observer's transactions arrive.
enum Feed {
  case inbox(Inbox)
  case sqlite(SQLiteStore)
  case postgres(PostgresStore)
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

  init(index: Int, store: any Store, feed: Feed, request: FetchRequest, startSequence: Int) throws {
    self.index = index
    self.store = store
    self.feed = feed
    controller = FetchedResultsController(fetchRequest: request, store: store)
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
    guard case .postgres(let pg) = feed else { return false }
    // A query cut off by the server's close can fail before the client marks the connection
    // closed: give it a moment to notice.
    for _ in 0..<50 where !pg.isDisconnected { usleep(20_000) }
    guard pg.isDisconnected else { return false }
    try pg.reconnect()
    stats.reconnected()
    return true
  }
}

/// One run on one store: its connections, threads and figures.
final class LoadRun: @unchecked Sendable {
  let config: LoadConfig
  let log: @Sendable (String) -> Void
  let kind: StoreKind
  let request: FetchRequest
  let sectionedRequest: FetchRequest
  var writerStores: [any Store] = []
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
  var startSequence = 0
  static let rollbackMarker = "ROLLED BACK "

  init(_ config: LoadConfig, log: @escaping @Sendable (String) -> Void) throws {
    self.config = config
    self.log = log
    guard let kind = StoreKind(rawValue: config.store) else {
      throw HarnessError.invalidArgument("unknown store '\(config.store)'; expected memory, sqlite or postgres")
    }
    self.kind = kind
    request = DatasetModels.defaultRequest(for: .banks, batchSize: config.batchSize)
    var sectioned = request
    sectioned.sortDescriptors.insert(SortDescriptor("state"), at: 0)
    sectioned.sectionNameKeyPath = "state"
    sectionedRequest = sectioned
    do {
      try setUp()
    } catch {
      close()
      throw error
    }
  }

  /// Odd observers show sections by state, even ones one list: both kinds of change set.
  func request(forObserver i: Int) -> FetchRequest { i % 2 == 1 ? sectionedRequest : request }

  private func setUp() throws {
    let model = DatasetModels.banks
    let t0 = Clock.wallNanos
    switch kind {
    case .memory:
      let base = try config.location.open(.memory) as! MemoryStore
      memoryBase = base
      let lock = NSLock()
      writerStores = (0..<config.writers).map { _ in LockedStore(base, lock: lock) }
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
            index: i, store: LockedStore(base, lock: lock), feed: .inbox(inboxes[i]), request: request(forObserver: i), startSequence: 0))
      }
      freshStore = { LockedStore(base, lock: lock) }
    case .sqlite:
      _ = try config.location.open(.sqlite)  // checks the file as the store does
      let dir = NSTemporaryDirectory() + "fetchbench-load-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
      cleanup.append { try? FileManager.default.removeItem(atPath: dir) }
      let path = dir + "/db.sqlite"
      try FileManager.default.copyItem(atPath: config.location.sqlitePath, toPath: path)
      for _ in 0..<config.writers {
        let s = try SQLiteStore(path: path, model: model)
        try s.enableChangeLog()
        writerStores.append(s)
      }
      startSequence = (writerStores[0] as! SQLiteStore).deliveredSequence
      for i in 0..<config.observers {
        let s = try SQLiteStore(path: path, model: model)
        try s.enableChangeLog()
        observers.append(
          try LoadObserver(index: i, store: s, feed: .sqlite(s), request: request(forObserver: i), startSequence: s.deliveredSequence))
      }
      freshStore = { try SQLiteStore(path: path, model: model) }
    case .postgres:
      let scratch = try PostgresScratch(config.location, purpose: "load")
      var stores: [PostgresStore] = []
      cleanup.append {
        for s in stores { s.close() }
        scratch.drop()
      }
      for _ in 0..<config.writers {
        let s = try PostgresStore(url: scratch.url, model: model)
        stores.append(s)
        writerStores.append(s)
      }
      startSequence = stores[0].deliveredSequence
      for i in 0..<config.observers {
        let s = try PostgresStore(url: scratch.url, model: model)
        stores.append(s)
        observers.append(
          try LoadObserver(index: i, store: s, feed: .postgres(s), request: request(forObserver: i), startSequence: s.deliveredSequence))
      }
      admin = try PostgresAdmin(url: scratch.url)
      freshStore = {
        let s = try PostgresStore(url: scratch.url, model: model)
        stores.append(s)
        return s
      }
    }
    // Writers own disjoint banks and disjoint new IDs: no two transactions touch one row.
    let banks = try BankWorkload.banks(of: writerStores[0])
    var parts = [[Int64: Int64]](repeating: [:], count: config.writers)
    for (info, details) in banks { parts[Int(info % Int64(config.writers))][info] = details }
    writerStates = (0..<config.writers).map { w in
      BankWorkload(
        banks: parts[w], seed: config.seed &* 1_000 &+ UInt64(w), firstID: 50_000_000 + Int64(w), idStep: Int64(config.writers))
    }
    lastCommitted.set(startSequence)
    log(
      String(
        format: "load %@: %d writers, %d observers (batch %d) on %@ rows ready in %.1f s", kind.rawValue, config.writers, config.observers,
        config.batchSize, config.rows.grouped, Double(Clock.wallNanos - t0) / 1e9))
  }

  func close() {
    observers = []
    writerStores = []
    admin = nil
    for c in cleanup.reversed() { c() }
    cleanup = []
  }

  // MARK: running

  func execute() throws -> LoadResult {
    var result = LoadResult(config: config)
    let start = Clock.wallNanos
    let writeEnd = start + UInt64(config.duration * 1e9)
    var threads: [Thread] = []
    let done = DispatchGroup()
    func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
      done.enter()
      let t = Thread {
        body()
        done.leave()
      }
      t.name = name
      t.stackSize = 8 << 20
      threads.append(t)
    }
    let writersDone = DispatchGroup()
    for w in 0..<config.writers {
      writersDone.enter()
      spawn("writer-\(w)") { [self] in
        writer(w, start: start, end: writeEnd)
        writersDone.leave()
      }
    }
    for o in observers {
      spawn("observer-\(o.index)") { [self] in observe(o) }
      spawn("scroller-\(o.index)") { [self] in scroll(o, start: start) }
    }
    let sampler = LockedBox<[LoadSecond]>([])
    let stopSampling = LockedBox(false)
    let samplerDone = DispatchSemaphore(value: 0)
    let secondsClosed = LockedBox(0)
    let samplerThread = Thread { [self] in
      var second = 0
      var dropped = false
      while !stopSampling.get() {
        let next = start + UInt64(second + 1) * 1_000_000_000
        sleepUntil(next, orWhile: { !stopSampling.get() })
        if stopSampling.get() { break }
        stats.matchDeliveries(ledger, before: Clock.wallNanos - 200_000_000)
        let s = stats.closeSecond(second, heap: Heap.allocated, rss: Self.currentRSS)
        sampler.mutate { $0.append(s) }
        second += 1
        secondsClosed.set(second)
        if second % 10 == 0 || second == 1 {
          log(
            String(
              format: "  %@ %3d s: %d commits/s, delivery p99 %.2f ms, change set p99 %.2f ms, %d faults/s, heap %@", kind.rawValue, second,
              s.commits, s.deliveryP99Ms, s.changeSetP99Ms, s.faults, bytes(Double(s.heapBytes))))
        }
        if let at = config.dropConnectionAt, !dropped, Double(second) >= at {
          dropped = true
          dropConnections()
        }
      }
      samplerDone.signal()
    }
    samplerThread.name = "sampler"
    Heap.resetPeak()
    for t in threads { t.start() }
    samplerThread.start()

    writersDone.wait()
    let writeSeconds = Double(Clock.wallNanos - start) / 1e9
    writersStopped.set(true)
    let finalSequence = lastCommitted.get()
    // Let the observers catch up, then stop them and the scrollers.
    let drainDeadline = Clock.wallNanos + UInt64(config.drainTimeout * 1e9)
    while Clock.wallNanos < drainDeadline && observers.contains(where: { o in o.lock.withLock { o.lastApplied < finalSequence } }) {
      usleep(2_000)
    }
    stopObserving.set(true)
    if done.wait(timeout: .now() + 30) == .timedOut {
      result.failures.append("a writer, observer or scroller thread did not finish within 30 s of the end")
    }
    stopSampling.set(true)
    samplerDone.wait()
    stats.matchDeliveries(ledger, before: nil)
    // The last, partial second (the whole run, when it was shorter than a second).
    let last = stats.closeSecond(secondsClosed.get(), heap: Heap.allocated, rss: Self.currentRSS)
    if last.commits + last.changeSets + last.faults > 0 || secondsClosed.get() == 0 { sampler.mutate { $0.append(last) } }

    result.seconds = writeSeconds
    result.targetCommits = config.maxTransactions.map { Double($0) } ?? config.rate * config.duration
    stats.withLock { s in
      result.commits = s.commits
      result.failedCommits = s.failedCommits
      result.delivery = Percentiles(s.delivery)
      result.changeSet = Percentiles(s.changeSet)
      result.faultLatency = Percentiles(s.fault)
      result.faults = s.faults
      result.changeSets = s.changeSets
      result.coalescedTransactions = s.coalesced
      result.reconnects = s.reconnects
      result.staleReads = s.staleReads
    }
    result.timeline = sampler.get()
    result.peakRSSBytes = Clock.peakRSS
    let early = result.failures
    try verify(&result, finalSequence: finalSequence)
    result.failures = early + result.failures
    return result
  }

  /// Sleeps until `deadline` (monotonic nanoseconds), waking every 50 ms to check `keepGoing`.
  func sleepUntil(_ deadline: UInt64, orWhile keepGoing: () -> Bool = { true }) {
    while keepGoing() {
      let now = Clock.wallNanos
      guard now < deadline else { return }
      usleep(UInt32(min(deadline - now, 50_000_000) / 1_000))
    }
  }

  static var currentRSS: Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  // MARK: writers

  /// Writer w of W commits at start + (w + i·W)/rate (open loop: a writer that falls behind
  /// commits at once, so the achieved rate shows what the store sustains).
  func writer(_ w: Int, start: UInt64, end: UInt64) {
    let store = writerStores[w]
    var state = writerStates[w]
    var rng = SeededRandom(seed: config.seed &* 7_919 &+ UInt64(w))
    let interval = 1e9 / config.rate * Double(config.writers)
    var i = 0
    while true {
      let due = start + UInt64((Double(w) / Double(config.writers) + Double(i)) * interval)
      i += 1
      // The run ends at its duration even when the writers are behind their schedule.
      guard due < end, Clock.wallNanos < end, !stopWriting.get() else { break }
      sleepUntil(due)
      if let max = config.maxTransactions {
        var mine = false
        tickets.mutate { t in
          if t < max {
            t += 1
            mine = true
          }
        }
        guard mine else { break }
      }
      let k = config.transactionSizeMin + Int(rng.below(UInt64(config.transactionSizeMax - config.transactionSizeMin + 1)))
      let fails = Double(rng.below(1_000_000)) / 1e6 < config.failureRate
      let saved = fails ? state : nil
      var ops = state.mixed(k)
      if fails {
        // Writes first, then the failing one: the store must undo the writes.
        ops.append(
          .insert(
            entity: "FailedBankInfo",
            values: ["name": .string("\(Self.rollbackMarker)\(w)-\(i)"), "city": .string("Nowhere"), "state": .string("TX")]))
        ops.append(.update(entity: "FailedBankInfo", id: -1, values: ["name": .string("no such bank")]))
      }
      do {
        let t = try store.commit(ops)
        ledger.record(t.sequence, Clock.wallNanos)
        lastCommitted.mutate { $0 = max($0, t.sequence) }
        stats.committed()
      } catch {
        if let saved {
          state = saved
          stats.failed()
        } else {
          // A real error: stop writing, report it.
          errorsLock.withLock { writerErrors.append("writer \(w): \(error)") }
          stopWriting.set(true)
          break
        }
      }
    }
  }

  let errorsLock = NSLock()
  var writerErrors: [String] = []

  // MARK: observers

  func observe(_ o: LoadObserver) {
    while !stopObserving.get() {
      if config.suspendObservers && !writersStopped.get() {
        usleep(2_000)
        continue
      }
      switch o.feed {
      case .inbox(let inbox):
        let units = inbox.take(timeout: 0.02)
        if !units.isEmpty { o.lock.withLock { o.pending += units } }
      case .sqlite(let s): s.awaitNotification(timeout: 0.02)
      case .postgres(let p): p.awaitNotification(timeout: 0.02)
      }
      o.lock.lock()
      do {
        try deliver(o)
      } catch {
        o.errors.append("observer \(o.index): \(error)")
        o.lock.unlock()
        return
      }
      o.lock.unlock()
    }
  }

  /// Polls the observer's connection and applies what is pending as one change set. Called
  /// with the observer's lock held.
  func deliver(_ o: LoadObserver) throws {
    do {
      switch o.feed {
      case .inbox: break
      case .sqlite(let s): try s.pollChanges()
      case .postgres(let p): try p.pollChanges()
      }
    } catch {
      guard try o.recover(stats) else { throw error }
    }
    guard !o.pending.isEmpty else { return }
    let units = o.pending
    o.pending = []
    // Received now, at the latest (the in-memory store's were recorded inside the commit).
    let seenAt = Clock.wallNanos
    for u in units { ledger.record(u.first, seenAt) }
    // Exactly once, in order: each unit must start right after the last one applied.
    var expected = o.lastApplied + 1
    for u in units {
      if u.first > expected { o.missed += u.first - expected }
      if u.first < expected { o.repeated += expected - u.first }
      expected = u.transaction.sequence + 1
    }
    let unit = PendingUnit.coalescing(units)
    let t0 = Clock.wallNanos
    var changes: ChangeSet
    do {
      changes = try o.controller.apply(unit.transaction)
    } catch {
      // A dropped PostgreSQL session: reconnect (which queues what was missed after this
      // unit) and apply the unit again; the controller is unchanged when apply throws.
      guard try o.recover(stats) else { throw error }
      o.pending = units + o.pending
      return
    }
    let t1 = Clock.wallNanos
    changes.transactions = unit.first...unit.transaction.sequence
    do {
      o.mirror = try BatchUpdateValidator.apply(changes, to: o.mirror)
    } catch {
      o.invalid += 1
      if o.errors.count < 5 {
        o.errors.append("observer \(o.index): invalid change set for \(unit.first)…\(unit.transaction.sequence): \(error)")
      }
      o.mirror = o.controller.snapshot()
    }
    if config.observerDelayMs > 0 { usleep(UInt32(config.observerDelayMs * 1_000)) }
    o.lastApplied = unit.transaction.sequence
    stats.changeSetApplied(first: unit.first, last: unit.transaction.sequence, transactions: unit.count, nanos: t1 - t0, at: t1)
  }

  /// Reads a screen (20 rows from a random position) through the observer's controller,
  /// `screensPerSecond` times a second; a read that faults a batch is timed.
  func scroll(_ o: LoadObserver, start: UInt64) {
    var rng = SeededRandom(seed: config.seed &+ 500 &+ UInt64(o.index))
    let interval = 1e9 / config.screensPerSecond
    var frame = 0
    // The first screen is read whatever the run's length, so every scroller faults at least
    // one batch even on a machine that ends the run before its first frame is due.
    while frame == 0 || !stopObserving.get() {
      frame += 1
      sleepUntil(start + UInt64(Double(frame) * interval), orWhile: { !stopObserving.get() })
      if frame > 1 && stopObserving.get() { break }
      o.lock.lock()
      defer { o.lock.unlock() }
      let n = o.controller.count
      guard n > 0, let array = o.controller.batchArray else { continue }
      let first = Int(rng.below(UInt64(max(1, n - 20))))
      for i in first..<min(n, first + 20) {
        let faults = array.faults
        let t0 = Clock.wallNanos
        do {
          blackHole(try o.controller.object(atGlobalIndex: i))
        } catch FetchError.objectDeleted {
          // A writer deleted a row of this batch and the observer has not applied that
          // transaction yet: what an app shows as a placeholder until the change set comes.
          stats.staleRead()
          break
        } catch {
          do {
            if try o.recover(stats) { break }
          } catch {}
          o.errors.append("scroller \(o.index): \(error)")
          return
        }
        if array.faults != faults { stats.faulted(nanos: Clock.wallNanos - t0) }
      }
    }
  }

  /// Ends every PostgreSQL observer's session from the server side, as a restart would.
  func dropConnections() {
    guard let admin else { return }
    for o in observers {
      guard case .postgres(let pg) = o.feed else { continue }
      // With the observer's lock held, no query is in flight on the session being ended, and
      // none starts before the client has seen the close (postgres-nio 1.33 leaves a query
      // sent on a connection the server closed pending forever).
      o.lock.withLock {
        guard let pid = try? pg.backendPID() else { return }
        try? admin.execute("SELECT pg_terminate_backend(\(pid))")
        for _ in 0..<250 where !pg.isDisconnected { usleep(20_000) }
        log(
          "  dropped observer \(o.index)'s connection (backend \(pid))\(pg.isDisconnected ? "" : "; the client has not noticed within 5 s")"
        )
      }
    }
  }

  // MARK: the end

  func verify(_ result: inout LoadResult, finalSequence: Int) throws {
    var failures = errorsLock.withLock { writerErrors }
    for o in observers {
      guard o.lock.lock(before: Date(timeIntervalSinceNow: 5)) else {
        failures.append("observer \(o.index) is stuck (its lock is held)")
        result.mirrorsMatch = false
        continue
      }
      defer { o.lock.unlock() }
      do {
        failures += o.errors
        result.invalidChangeSets += o.invalid
        result.missedTransactions += o.missed
        result.repeatedTransactions += o.repeated
        if o.lastApplied < finalSequence {
          failures.append(
            "observer \(o.index) applied transactions up to \(o.lastApplied) of \(finalSequence) within \(Int(config.drainTimeout)) s")
        }
      }
    }
    guard failures.allSatisfy({ !$0.hasSuffix("is stuck (its lock is held)") }) else {
      result.failures = failures
      return
    }
    if result.invalidChangeSets > 0 { failures.append("\(result.invalidChangeSets) change set(s) broke UIKit's batch-update rules") }
    if result.missedTransactions > 0 { failures.append("\(result.missedTransactions) transaction(s) missed") }
    if result.repeatedTransactions > 0 { failures.append("\(result.repeatedTransactions) transaction(s) applied twice") }
    // Every mirror equals a fresh fetch on a new connection.
    let fresh = try freshStore()
    for o in observers {
      let controller = FetchedResultsController(fetchRequest: request(forObserver: o.index), store: fresh)
      try controller.performFetch()
      let now = controller.snapshot()
      let (mirror, tracked) = o.lock.withLock { (o.mirror, o.controller.snapshot()) }
      if !mirror.sameRows(as: now) || !tracked.sameRows(as: now) {
        result.mirrorsMatch = false
        failures.append(
          "observer \(o.index)'s mirror (\(mirror.count) rows, \(mirror.sections.count) sections) differs from a fresh fetch (\(now.count) rows, \(now.sections.count) sections)"
        )
      }
    }
    // Nothing of a failed transaction is visible.
    var marker = FetchRequest(entityName: "FailedBankInfo")
    marker.predicate = try QueryParser.predicate("name BEGINSWITH '\(Self.rollbackMarker)'")
    result.rolledBackRowsVisible = try fresh.count(marker.resolve(in: fresh.model))
    if result.rolledBackRowsVisible > 0 { failures.append("\(result.rolledBackRowsVisible) row(s) of failed transactions are visible") }
    if let pg = fresh as? PostgresStore { pg.close() }
    // Heap: the early part of the run (10–30% of its seconds) against its last fifth.
    let heap = result.timeline.map { Double($0.heapBytes) }
    if heap.count >= 20 {
      func mean(_ s: ArraySlice<Double>) -> Double { s.reduce(0, +) / Double(s.count) }
      let early = mean(heap[(heap.count / 10)..<(heap.count * 3 / 10)])
      let late = mean(heap[(heap.count * 4 / 5)...])
      let growth = Int(late - early)
      result.heapGrowthBytes = growth
      if growth > config.heapBoundBytes {
        failures.append("the live heap grew by \(bytes(Double(growth))) (bound \(bytes(Double(config.heapBoundBytes))))")
      }
    }
    if result.commits == 0 { failures.append("no transaction was committed") }
    result.failures = failures
  }
}
