import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import PostgresStore
import ResultModel
import SQLiteStore
import Vocabulary

/// `fetchbench diff`: what keeping a list in sync costs. For a transaction of k changed
/// objects (or a 10% edit) on banks sorted by `details.closeDate desc`, with or without
/// sections by state, it times incremental tracking (`FetchedResultsController.apply`), the
/// whole-list diff of the same step, the standard library's `difference(from:)` with
/// `inferringMoves()` (within a time budget), and refetch + diff end to end; and it counts the
/// change set against the minimal one.
package enum DiffBenchmark {
  /// Seconds the standard library's diff may take before it is abandoned (`--stdlib-budget`).
  package static var stdlibBudget: Double { CommandSettings.current.stdlibBudget ?? 10 }

  /// Runs one case in this (child) process, on a private copy of the dataset, so the writes
  /// never touch the user's file: each repetition commits one seeded transaction and measures
  /// it (`DiffStep`). O(repetitions · (k log n + n)).
  static func measure(_ spec: CaseSpec, k: Int?, sections: Bool) throws -> CaseResult {
    let scratch = try ScratchStore(spec.location, spec.store, purpose: "diff")
    defer { scratch.close() }
    let store = scratch.store
    let request =
      sections
      ? DatasetModels.sectionedRequest(for: spec.dataset, batchSize: max(1, spec.batchSize))
      : DatasetModels.defaultRequest(for: spec.dataset, batchSize: max(1, spec.batchSize))
    let controller = FetchedResultsController(fetchRequest: request, store: store)
    controller.tracksChanges = true
    controller.observesStore = false
    try controller.performFetch()
    let coreData = FetchedResultsController(fetchRequest: request, store: store)
    (coreData.tracksChanges, coreData.observesStore, coreData.changeRules) = (true, false, .coreData)
    try coreData.performFetch()
    var writer = try Transactions(spec.dataset, store: store, seed: 1_000 + UInt64(k ?? 0))
    let emitter = try spec.emitChanges.map { try ChangeEmitter(path: $0, initial: controller.snapshot()) }
    var series: [Metric: [Double]] = [:]
    var stdlibSkipped = false
    _ = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { measured in
      let ops = k.map { writer.mixed($0) } ?? writer.edit(tenPercentOf: controller.count)
      let versionBefore = store.dataVersion
      let step = try DiffStep(ops, controller, coreData, request, stdlib: !stdlibSkipped, budget: stdlibBudget)
      writer.committed(step.transaction)
      try emitter?.write(step.changes)
      if step.stdlibMs == nil { stdlibSkipped = true }
      guard measured else { return }
      for (metric, value) in step.figures(onServer: spec.store == .postgres) {
        series[metric, default: []].append(value)
      }
      // A transaction that set only the values rows already held wrote no page (SQLite leaves
      // unchanged bytes unwritten): the store is as it was, and its section cache rightly holds.
      if sections, let version = store.dataVersion, version != versionBefore {
        let relaunch = try SectionCacheRelaunch(request, store: store)
        series[.relaunchAfterSave, default: []].append(relaunch.afterSaveMs)
        series[.relaunchCached, default: []].append(relaunch.cachedMs)
      }
    }
    try emitter?.finish(controller.snapshot())
    var measurements = series.keys.sorted { $0.name < $1.name }.map { Measurement($0, Summary(series[$0]!)) }
    if stdlibSkipped {
      measurements.append(Measurement(.stdlibDiffSkipped, Summary([stdlibBudget])))
    }
    measurements.append(Measurement(.rowsAfter, Summary([Double(controller.count)])))
    // The process's whole peak: the store, the controller, every transaction and diff.
    measurements.append(Measurement(.peakRSS, Double(Clock.peakRSS)))
    return CaseResult(spec: spec, measurements: measurements, error: nil)
  }

  /// The standard library's diff with inferred moves, on a thread of its own; nil when it
  /// does not finish within `budget` seconds (it is O(n·d): tens of seconds for a 10% edit of
  /// a quarter-million rows).
  /// The thread is left behind: the child process ends soon after.
  static func stdlibDiff(_ old: [Int64], _ new: [Int64], budget: Double) -> Double? {
    let done = DispatchSemaphore(value: 0)
    let result = LockedBox<Double?>(nil)
    Thread.detachNewThread {
      let t0 = Clock.wallNanos
      let d = new.difference(from: old).inferringMoves()
      blackHole(d.count)
      result.set(Double(Clock.wallNanos - t0) / 1e6)
      done.signal()
    }
    guard done.wait(timeout: .now() + budget) == .success, let ms = result.get() else { return nil }
    // The worker may finish before this thread even starts waiting: judge by its own clock.
    return ms <= budget * 1_000 ? ms : nil
  }
}

/// The diff benchmark's transactions: the banks' own workload on banks, the generic one on
/// any other list (a user's own database).
enum Transactions {
  case banks(BankWorkload)
  case list(ListWorkload)

  init(_ kind: DatasetKind, store: any Store, seed: UInt64) throws {
    self =
      kind == .banks
      ? .banks(try BankWorkload(store: store, seed: seed))
      : .list(try ListWorkload(store: store, entity: kind.definition.listEntity, seed: seed))
  }

  mutating func mixed(_ k: Int) -> [WriteOperation] {
    switch self {
    case .banks(var w):
      defer { self = .banks(w) }
      return w.mixed(k)
    case .list(var w):
      defer { self = .list(w) }
      return w.mixed(k)
    }
  }

  /// Follows the rows `transaction` deleted through delete rules. The banks' dataset has none.
  mutating func committed(_ transaction: StoreTransaction) {
    guard case .list(var w) = self else { return }
    w.committed(transaction)
    self = .list(w)
  }

  mutating func edit(tenPercentOf n: Int) -> [WriteOperation] {
    switch self {
    case .banks(var w):
      defer { self = .banks(w) }
      return w.edit(tenPercentOf: n)
    case .list(var w):
      defer { self = .list(w) }
      return w.edit(tenPercentOf: n)
    }
  }
}

/// One transaction of the diff benchmark, committed and measured: incremental tracking (its
/// change set checked under UIKit's rules), our whole-list diff of the same step, refetch +
/// diff end to end (checked against the tracked results), and the standard library's diff
/// within its budget.
struct DiffStep {
  let transaction: StoreTransaction
  let changes: ChangeSet
  let incrementalMs: Double
  let heapPeak: Double
  let counters: StoreCounters
  /// What the save itself cost the store.
  let saveCounters: StoreCounters
  /// Our whole-list diff of the same two snapshots, and its time.
  let diff: ChangeSet
  let diffMs: Double
  let refetchMs: Double
  /// nil when skipped, or when it did not finish within the budget.
  let stdlibMs: Double?
  let coreData: CoreDataRulesStep

  init(
    _ ops: [WriteOperation], _ controller: FetchedResultsController, _ coreDataController: FetchedResultsController,
    _ request: FetchRequest, stdlib: Bool, budget: Double
  ) throws {
    let store = controller.store
    let before = controller.snapshot()
    store.resetCounters()
    let transaction = try store.commit(ops)
    saveCounters = store.counters
    store.resetCounters()
    let (sample, changes) = try Sampler.once { try controller.apply(transaction) }
    (self.transaction, self.changes) = (transaction, changes)
    (incrementalMs, heapPeak, counters) = (sample.wallMs, Double(sample.heapPeak), store.counters)
    let after = controller.snapshot()
    // Correct before fast: the change set must replay under UIKit's rules to this state.
    let replayed = try BatchUpdateValidator.apply(changes, to: before)
    guard replayed.sameRows(as: after) else {
      throw MeasurementFault.changeSetDoesNotReplay
    }
    let (diffNanos, diff) = Sampler.wall { ListDiff.diff(from: before, to: after, reloaded: Set(replayed.reloaded)) }
    (self.diff, diffMs) = (diff, Double(diffNanos) / 1e6)
    // Refetch + diff end to end (the GRDB ValueObservation way): a new fetch of the IDs, its
    // snapshot, and the whole-list diff against the previous one.
    let (refetchNanos, (freshSnapshot, refetchDiff)) = try Sampler.wall {
      let fresh = FetchedResultsController(fetchRequest: request, store: store)
      try fresh.performFetch()
      let freshSnapshot = fresh.snapshot()
      return (freshSnapshot, ListDiff.diff(from: before, to: freshSnapshot))
    }
    refetchMs = Double(refetchNanos) / 1e6
    guard freshSnapshot.sameRows(as: after) else {
      throw MeasurementFault.trackedResultsDiffer
    }
    coreData = try CoreDataRulesStep(transaction, coreDataController, fresh: freshSnapshot)
    blackHole(refetchDiff.size)
    stdlibMs = stdlib ? DiffBenchmark.stdlibDiff(before.allIDs, after.allIDs, budget: budget) : nil
  }

  /// The step's figures; a server's round trips and bytes too.
  func figures(onServer: Bool) -> [(Metric, Double)] {
    var out: [(Metric, Double)] = [
      (.incremental, incrementalMs), (.diff, diffMs), (.refetchDiff, refetchMs), (.heapPeak, heapPeak),
      (.queries, Double(counters.queries)), (.rowsMaterialized, Double(counters.rowsMaterialized)),
    ]
    if let stdlibMs { out.append((.stdlibDiff, stdlibMs)) }
    // The memory store issues no statements: its saves are counted on the SQL stores only.
    if saveCounters.queries > 0 {
      out += [(.saveStatements, Double(saveCounters.queries)), (.saveCommits, Double(saveCounters.commits))]
    }
    if onServer {
      out += [(.roundTrips, Double(counters.roundTrips)), (.bytesReceived, Double(counters.bytesReceived))]
    }
    let objects = transaction.changes.reduce(0) { $0 + $1.inserted.count + $1.updated.count + $1.deleted.count }
    return out + [
      (.objectsChanged, Double(objects)), (.deletes, Double(changes.deletes.count)),
      (.inserts, Double(changes.inserts.count)),
      (.moves, Double(changes.relocations)), (.movesMinimal, Double(diff.relocations)),
      (.reloads, Double(changes.reloads.count + changes.moves.filter(\.contentChanged).count)),
      (.sectionChanges, Double(changes.sectionInserts.count + changes.sectionDeletes.count)),
      (.changeSetSize, Double(changes.size)),
      (.diffChangeSetSize, Double(diff.size)), (.movesCoreData, Double(coreData.changes.relocations)),
      (.reloadsCoreData, Double(coreData.changes.reloads.count)), (.staleRowsCoreData, Double(coreData.staleRows)),
    ]
  }
}

/// The same transaction applied by a second controller of the list under Core Data's change
/// rules: its change set checked under UIKit's rules against that controller's own results,
/// and the rows those show out of place against the fresh fetch. Counted, not timed: what
/// the rules change is what a table view animates and what it shows.
struct CoreDataRulesStep {
  let changes: ChangeSet
  let staleRows: Int

  init(_ transaction: StoreTransaction, _ controller: FetchedResultsController, fresh: ListSnapshot) throws {
    let before = controller.snapshot()
    changes = try controller.apply(transaction)
    let after = controller.snapshot()
    guard try BatchUpdateValidator.apply(changes, to: before).sameRows(as: after) else {
      throw MeasurementFault.coreDataChangeSetDoesNotReplay
    }
    staleRows = ListDiff.staleRows(after, against: fresh)
  }
}
