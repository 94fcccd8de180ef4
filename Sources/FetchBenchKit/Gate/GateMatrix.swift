import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import GRDBSQLite
import HarnessSupport
import PostgresStore
import ResultModel
import SQLiteStore
import Vocabulary

/// The CI matrix `fetchbench check` runs: per dataset and store one child process that
/// measures full and batched fetches with **interleaved** repetitions (full, batched, full,
/// batched, …), so that a time ratio compares two things measured under the same load.
/// Counters and heap figures come from the last repetition; they do not depend on load.
package enum GateMatrix {
  package static let scenarios: [Scenario] = [.performFetch, .firstScreen, .randomAccess, .sectioned]

  /// The child side of one gate case.
  static func measure(_ spec: CaseSpec, _ work: CaseWork.GateWork) throws -> CaseResult {
    var figures = work == .diff ? try diffFigures(spec) : try fetchFigures(spec, spec.store)
    for i in figures.indices {
      figures[i].name =
        GateFigure.ID(list: spec.gate?.name ?? spec.dataset.rawValue, store: spec.store, what: figures[i].name)
        .description
    }
    var result = CaseResult(spec: spec, measurements: [], error: nil)
    result.figures = figures
    return result
  }

  /// A ratio figure from interleaved pairs: the median of the per-pair ratios, its spread
  /// the interquartile range over the median.
  static func ratio(_ name: String, _ ratios: [Double], atLeast floor: Double = 0, likeForLike: Bool? = nil)
    -> GateFigure
  {
    let sorted = ratios.sorted()
    let median = Summary(sorted).median
    let q1 = sorted[sorted.count / 4]
    let q3 = sorted[(3 * sorted.count) / 4]
    let spread = median > 0 ? (q3 - q1) / median : 0
    return GateFigure(
      name: name, kind: .ratio, value: median, unit: .ratio,
      tolerance: max(floor, GateFigure.ratioTolerance(spread: spread, samples: ratios.count)),
      spread: spread, samples: ratios.count, likeForLike: likeForLike)
  }

  /// Each scenario's full fetch and each of the list's strategies, interleaved (full,
  /// batched, …, full, batched, …): their counters and heap figures from the last repetition,
  /// and each strategy's time over the full fetch's per repetition. A list of the user's own
  /// runs without the sectioned scenario (it has its sections, or none).
  static func fetchFigures(_ spec: CaseSpec, _ kind: StoreKind) throws -> [GateFigure] {
    let store = try spec.openStore()
    var figures: [GateFigure] = []
    for scenario in scenarios where spec.request?.changesList != true || !scenario.isSectioned {
      let modes = [FetchMode.full] + (spec.gate?.strategies ?? [.batched]).filter(scenario.applies)
      let requests = try modes.map { try spec.customRequest(scenario, batchSize: $0.batchSize(spec.batchSize)) }
      let runs = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
        try modes.indices.map { try spec.measure(scenario, modes[$0], request: requests[$0], store: store) }
      }
      let s = scenario.rawValue
      for (mode, run) in zip(modes, runs.last!) {
        figures += counterAndHeapFigures("\(s)/\(mode.rawValue)", run, kind)
      }
      // On PostgreSQL, random access is 1,000 rows in ~50 round trips against one bulk query:
      // round-trip latency on a shared machine moves independently of throughput, so their
      // ratio is not stable under load; its round trips are gated exactly above.
      if kind == .postgres && scenario == .randomAccess { continue }
      for i in modes.indices.dropFirst() {
        let ratios = runs.map { Double($0[i].sample.wallNanos) / Double(max(1, $0[0].sample.wallNanos)) }
        figures.append(ratio("\(s)/\(modes[i].rawValue)_over_full_time", ratios))
      }
    }
    if kind == .sqlite && spec.gate?.strategies.contains(.batched) != false {
      figures.append(ratio("perform_fetch/batched_over_floor_ids_time", try floorRatios(spec, store)))
    }
    return figures
  }

  /// The exact counters of one run, and its heap figures where they are exact enough to gate.
  static func counterAndHeapFigures(_ prefix: String, _ run: Scenario.Run, _ kind: StoreKind) -> [GateFigure] {
    var figures = [
      GateFigure(
        name: "\(prefix)/\(Metric.queries)", kind: .counter, value: Double(run.counters.queries), unit: .count,
        tolerance: 0),
      GateFigure(
        name: "\(prefix)/\(Metric.rowsMaterialized)", kind: .counter, value: Double(run.counters.rowsMaterialized),
        unit: .count,
        tolerance: 0),
    ]
    if kind == .postgres {
      figures.append(
        GateFigure(
          name: "\(prefix)/\(Metric.roundTrips)", kind: .counter, value: Double(run.counters.roundTrips), unit: .count,
          tolerance: 0))
      figures.append(
        GateFigure(
          name: "\(prefix)/\(Metric.bytesReceived)", kind: .counter, value: Double(run.counters.bytesReceived),
          unit: .bytes, tolerance: 0))
      // PostgreSQL's rows are decoded on postgres-nio's event-loop thread, whose buffers and
      // allocations depend on how the network split the results: its heap figures move
      // between identical runs, so they are reported by `run`, not gated.
      return figures
    }
    return figures + [
      GateFigure(
        name: "\(prefix)/\(Metric.heapLive)", kind: .heap, value: Double(run.sample.heapLive), unit: .bytes,
        tolerance: 0.05),
      GateFigure(
        name: "\(prefix)/\(Metric.heapPeak)", kind: .heap, value: Double(run.sample.heapPeak), unit: .bytes,
        tolerance: 0.05),
      GateFigure(
        name: "\(prefix)/\(Metric.allocations)", kind: .heap, value: Double(run.sample.allocations), unit: .count,
        tolerance: 0.05),
    ]
  }

  /// Batched performFetch against the raw C API running the store's own ID query, interleaved.
  static func floorRatios(_ spec: CaseSpec, _ store: any Store) throws -> [Double] {
    let model = DatasetModels.model(for: spec.dataset)
    let list =
      try spec.customRequest(.performFetch, batchSize: spec.batchSize)
      ?? DatasetModels.defaultRequest(for: spec.dataset, batchSize: spec.batchSize)
    let request = try list.resolve(in: model)
    let sql = SQLiteStore.statements(for: request)
    var db: OpaquePointer?
    guard
      sqlite3_open_v2(try spec.location.readerURI(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK,
      let db
    else {
      throw MeasurementFault.cannotOpen(path: spec.location.sqlitePath)
    }
    defer { sqlite3_close(db) }
    sqlite3_busy_timeout(db, 10_000)
    if let collation = request.model.collation { SQLiteStore.addCollations(raw: db, collation) }
    var stmt: OpaquePointer?
    guard sqlite3_prepare_v3(db, sql.ids, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil) == SQLITE_OK, let stmt
    else {
      throw MeasurementFault.cannotPrepare(sql: sql.ids, message: String(cString: sqlite3_errmsg(db)))
    }
    defer { sqlite3_finalize(stmt) }
    for (i, value) in sql.arguments.enumerated() { SQLiteStore.bind(stmt, Int32(i + 1), value) }
    // A test's injected slowdown opens the list this many times; read once, outside the timing.
    let opens = max(1, CommandSettings.current.faults.batchedSlowdown ?? 1)
    return try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
      let floor = Sampler.wall {
        var ids: [Int64] = []
        sqlite3_reset(stmt)
        while sqlite3_step(stmt) == SQLITE_ROW { ids.append(sqlite3_column_int64(stmt, 0)) }
        return ids.count
      }
      let engine = try Sampler.wall {
        var controllers: [FetchedResultsController] = []
        for _ in 0..<opens {
          controllers.append(FetchedResultsController(fetchRequest: request.request, store: store))
          try controllers.last!.performFetch()
        }
        return controllers
      }
      return Double(engine.nanos) / Double(max(1, floor.nanos))
    }
  }

  /// Change tracking on banks: transactions of 100 changed objects (seeded, so the change
  /// sets' sizes are exact), and our whole-list diff of each step against a reference
  /// operation of the same size and kind (a hash index of the old IDs probed with the new
  /// ones), interleaved; and the diff's heap peak.
  static func diffFigures(_ spec: CaseSpec) throws -> [GateFigure] {
    let scratch = try ScratchStore(spec.location, spec.store, purpose: "gate")
    defer { scratch.close() }
    let store = scratch.store
    let controller = FetchedResultsController(
      fetchRequest: try spec.customRequest(.performFetch, batchSize: spec.batchSize)
        ?? DatasetModels.defaultRequest(for: .banks, batchSize: spec.batchSize), store: store)
    controller.tracksChanges = true
    controller.observesStore = false
    try controller.performFetch()
    var writer = try BankWorkload(store: store, seed: 4_242)
    var totals = (queries: 0, deletes: 0, inserts: 0, moves: 0, reloads: 0, rows: 0)
    var peak = 0
    var diffPeak = 0
    // Counters and peaks add up over warm-ups too: every transaction is a seeded one.
    let ratios = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
      let before = controller.snapshot()
      let transaction = try store.commit(writer.mixed(100))
      store.resetCounters()
      let (sample, changes) = try Sampler.once { try controller.apply(transaction) }
      peak = max(peak, sample.heapPeak)
      let after = controller.snapshot()
      guard try BatchUpdateValidator.apply(changes, to: before).sameRows(as: after) else {
        throw MeasurementFault.changeSetDoesNotReplay
      }
      totals.queries += store.counters.queries
      totals.rows += store.counters.rowsMaterialized
      totals.deletes += changes.deletes.count
      totals.inserts += changes.inserts.count
      totals.moves += changes.relocations
      totals.reloads += changes.reloads.count + changes.moves.filter(\.contentChanged).count
      // Each sample is the best of three alternated runs: a millisecond operation is otherwise
      // at the mercy of one page fault or one preemption.
      var diffNanos = UInt64.max
      var indexNanos = UInt64.max
      let oldIDs = before.allIDs
      let newIDs = after.allIDs
      for _ in 0..<3 {
        diffNanos = min(diffNanos, Sampler.wall { ListDiff.diff(from: before, to: after).size }.nanos)
        indexNanos = min(indexNanos, Sampler.wall { hashIndexReference(oldIDs, newIDs) }.nanos)
      }
      // The diff's own heap, outside the timed calls: an extra array or a lost reserve shows
      // here exactly, whatever the host's speed.
      diffPeak = max(diffPeak, Sampler.once { ListDiff.diff(from: before, to: after).size }.sample.heapPeak)
      return Double(diffNanos) / Double(max(1, indexNanos))
    }
    let transactions = Double(spec.warmups + spec.repetitions)
    return [
      GateFigure(
        name: "diff_k100/queries_per_transaction", kind: .counter, value: Double(totals.queries) / transactions,
        unit: .count, tolerance: 0
      ),
      GateFigure(
        name: "diff_k100/rows_materialized", kind: .counter, value: Double(totals.rows), unit: .count, tolerance: 0),
      GateFigure(name: "diff_k100/deletes", kind: .counter, value: Double(totals.deletes), unit: .count, tolerance: 0),
      GateFigure(name: "diff_k100/inserts", kind: .counter, value: Double(totals.inserts), unit: .count, tolerance: 0),
      GateFigure(name: "diff_k100/moves", kind: .counter, value: Double(totals.moves), unit: .count, tolerance: 0),
      GateFigure(name: "diff_k100/reloads", kind: .counter, value: Double(totals.reloads), unit: .count, tolerance: 0),
      GateFigure(
        name: "diff_k100/incremental_heap_peak_bytes", kind: .heap, value: Double(peak), unit: .bytes, tolerance: 0.05),
    ]
      // The whole-list diff works on snapshots and does not depend on the store: it is gated
      // once, on the memory store, where no server or file activity runs between the
      // alternating repetitions (on PostgreSQL the server's background writes after each
      // commit move it).
      // Its reference is the standard library's hash index over the same IDs, the diff's own
      // core: both are bound by random memory access, so the ratio holds across hosts, which
      // a compute-bound reference (sorting the IDs) does not. The 0.9 floor on its tolerance
      // keeps the gate for what matters, the diff turning twice as slow.
      + (spec.store == .memory
        ? [
          ratio("diff_k100/our_diff_over_hash_index_time", ratios, atLeast: 0.9, likeForLike: true),
          GateFigure(
            name: "diff_k100/our_diff_heap_peak_bytes", kind: .heap, value: Double(diffPeak), unit: .bytes,
            tolerance: 0.05),
        ] : [])
  }

  /// The reference for the whole-list diff's time: the standard library's hash table from
  /// each old ID to its position, probed with every new ID. O(n) expected time and memory.
  @inline(never)
  static func hashIndexReference(_ old: [Int64], _ new: [Int64]) -> Int {
    var position = [Int64: Int32](minimumCapacity: old.count)
    for (i, id) in old.enumerated() { position[id] = Int32(i) }
    var found = 0
    for id in new where position[id] != nil { found += 1 }
    return found
  }
}
