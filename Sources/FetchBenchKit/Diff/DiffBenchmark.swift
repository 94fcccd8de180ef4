import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import PostgresStore
import SQLiteStore

/// `fetchbench diff`: what keeping a list in sync costs. For a transaction of k changed
/// objects (or a 10% edit) on banks sorted by `details.closeDate desc`, with or without
/// sections by state, it times incremental tracking (`FetchedResultsController.apply`), the
/// whole-list diff of the same step, the standard library's `difference(from:)` with
/// `inferringMoves()` (within a time budget), and refetch + diff end to end; and it counts the
/// change set against the minimal one.
package enum DiffBenchmark {
  /// Seconds the standard library's diff may take before it is abandoned.
  package static var stdlibBudget: Double {
    Double(ProcessInfo.processInfo.environment["FETCHBENCH_STDLIB_BUDGET_S"] ?? "") ?? 10
  }

  /// Runs one case in this (child) process. SQLite runs on a private copy of the dataset,
  /// so the writes never touch the user's file.
  static func measure(_ spec: CaseSpec, k: Int?, sections: Bool) throws -> CaseResult {
    let emit = spec.emitChanges
    let model = DatasetModels.banks
    guard spec.dataset == .banks else { throw HarnessError.invalidArgument("the diff benchmark runs on banks") }
    let store: any Store
    var cleanup: (() -> Void)?
    switch spec.store {
    case .memory: store = try spec.location.open(.memory)
    case .sqlite:
      let scratch = try SQLiteScratch(spec.location, purpose: "diff")
      store = try SQLiteStore(path: scratch.path, model: model)
      cleanup = { scratch.remove() }
    case .postgres:
      let scratchDatabase = try PostgresScratch(spec.location, purpose: "diff")
      store = try PostgresStore(url: scratchDatabase.url, model: model)
      cleanup = {
        (store as? PostgresStore)?.close()
        scratchDatabase.drop()
      }
    }
    defer { cleanup?() }

    let request =
      sections
      ? DatasetModels.sectionedRequest(for: .banks, batchSize: max(1, spec.batchSize))
      : DatasetModels.defaultRequest(for: .banks, batchSize: max(1, spec.batchSize))
    let controller = FetchedResultsController(fetchRequest: request, store: store)
    controller.tracksChanges = true
    controller.observesStore = false
    try controller.performFetch()
    var writer = try BankWorkload(store: store, seed: 1_000 + UInt64(k ?? 0))
    let emitter = try emit.map { try ChangeEmitter(path: $0, initial: controller.snapshot()) }

    var series: [Metric: [Double]] = [:]
    func add(_ metric: Metric, _ v: Double) { series[metric, default: []].append(v) }
    var stdlibSkipped = false
    _ = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { measured in
      let before = controller.snapshot()
      let ops = k.map { writer.mixed($0) } ?? writer.edit(tenPercentOf: controller.count)
      let transaction = try store.commit(ops)
      store.resetCounters()
      let (sample, changes) = try Sampler.once { try controller.apply(transaction) }
      let incremental = sample.wallMs
      let peak = Double(sample.heapPeak)
      let counters = store.counters
      let after = controller.snapshot()
      // Correct before fast: the change set must replay under UIKit's rules to this state.
      let replayed = try BatchUpdateValidator.apply(changes, to: before)
      guard replayed.sameRows(as: after) else {
        throw HarnessError.invalidArgument("the change set does not replay to the controller's results")
      }
      try emitter?.write(changes)

      let (diffNanos, diff) = Sampler.wall { ListDiff.diff(from: before, to: after, reloaded: Set(replayed.reloaded)) }
      let diffMs = Double(diffNanos) / 1e6

      // Refetch + diff end to end (the GRDB ValueObservation way): a new fetch of the IDs, its
      // snapshot, and the whole-list diff against the previous one.
      let (refetchNanos, (freshSnapshot, refetchDiff)) = try Sampler.wall {
        let fresh = FetchedResultsController(fetchRequest: request, store: store)
        try fresh.performFetch()
        let freshSnapshot = fresh.snapshot()
        return (freshSnapshot, ListDiff.diff(from: before, to: freshSnapshot))
      }
      let refetchMs = Double(refetchNanos) / 1e6
      guard freshSnapshot.sameRows(as: after) else { throw HarnessError.invalidArgument("tracked results differ from a fresh fetch") }
      blackHole(refetchDiff.size)

      var stdlibMs: Double?
      if !stdlibSkipped {
        stdlibMs = stdlibDiff(before.allIDs, after.allIDs, budget: stdlibBudget)
        if stdlibMs == nil { stdlibSkipped = true }
      }
      guard measured else { return }
      add(.incremental, incremental)
      add(.diff, diffMs)
      add(.refetchDiff, refetchMs)
      if let stdlibMs { add(.stdlibDiff, stdlibMs) }
      add(.heapPeak, peak)
      add(.queries, Double(counters.queries))
      add(.rowsMaterialized, Double(counters.rowsMaterialized))
      if spec.store == .postgres {
        add(.roundTrips, Double(counters.roundTrips))
        add(.bytesReceived, Double(counters.bytesReceived))
      }
      add(.objectsChanged, Double(transaction.changes.reduce(0) { $0 + $1.inserted.count + $1.updated.count + $1.deleted.count }))
      add(.deletes, Double(changes.deletes.count))
      add(.inserts, Double(changes.inserts.count))
      add(.moves, Double(changes.relocations))
      add(.movesMinimal, Double(diff.relocations))
      add(.reloads, Double(changes.reloads.count + changes.moves.filter(\.contentChanged).count))
      add(.sectionChanges, Double(changes.sectionInserts.count + changes.sectionDeletes.count))
      add(.changeSetSize, Double(changes.size))
      add(.diffChangeSetSize, Double(diff.size))
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
