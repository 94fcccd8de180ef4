import Benchmark
import Catalog
import Datasets
import FetchedResults
import Foundation
import SQLiteStore

// Micro-level costs of the engine on the 244,292-row banks dataset, sorted by
// `details.closeDate` as the harness's default request:
// - one batch fault (20 rows by primary key: one query) on SQLite and on the memory store;
// - the upkeep of the sorted ID list per change: one row re-sorted in the list itself, and
//   one changed object applied by a tracking controller (keys query + list edit + change set).
//
// Thresholds (p90): mallocCountTotal tight, wallClock loose (see Diff.swift).

/// The repository's `datasets/` folder, found from this file so that the suite runs from any
/// working directory.
let datasetsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("datasets").path

/// The banks dataset at full size, generated (about 10 s) if it is not there yet.
func banksSQLite() throws -> String {
  let rows = DatasetKind.defaultRows
  _ = try Generation.run(
    GenerationRequest(datasets: [.banks], rows: rows, seed: 1, outDirectory: datasetsDirectory, writeCSV: false, ifMissing: true))
  return DatasetPaths.sqlite(in: datasetsDirectory, .banks, rows: rows, seed: 1)
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .microseconds,
    warmupIterations: 5,
    maxDuration: .seconds(3),
    maxIterations: 2_000,
    thresholds: [
      .mallocCountTotal: .init(absolute: [.p90: 8]),
      .wallClock: .init(relative: [.p90: 400.0]),
    ]
  )
  let path: String
  let sqlite: SQLiteStore
  let memory: MemoryStore
  let request: ResolvedRequest
  do {
    path = try banksSQLite()
    sqlite = try SQLiteStore(path: path, model: DatasetModels.banks, readOnly: true)
    memory = try MemoryStore.load(from: SQLiteStore(path: path, model: DatasetModels.banks, mode: .immutable))
    request = try DatasetModels.defaultRequest(for: .banks).resolve(in: DatasetModels.banks)
  } catch {
    fatalError("cannot prepare the banks dataset in \(datasetsDirectory): \(error)")
  }
  let ids = try! sqlite.fetchIDs(request)

  // One batch of 20 rows from the middle of the list; the same batch every iteration, so
  // that the allocation count is exact.
  let batch = ids[122_140..<122_160]
  for (name, store) in [("SQLite", sqlite as any Store), ("memory", memory as any Store)] {
    Benchmark("Batch_fault_20_rows_\(name)_244292_banks") { benchmark in
      for _ in benchmark.scaledIterations {
        blackHole(try store.fetchObjects(request, ids: batch))
      }
    }
  }

  // The sorted ID list with its keys (as a tracking controller keeps it): one row taken out
  // and put back at another place, then back again, so that every iteration does the same.
  // Built as a tracking controller builds it: the store's keyed IDs, the request's
  // directions (close date descending, ties by primary key). Built once: the closure runs
  // once per sample.
  let keyed = try! memory.fetchKeyedIDs(request, ids: nil)
  let list = SortedIDList(
    ids: keyed.ids, keys: keyed.keys, objects: nil, ascending: request.sorts.dropLast().map(\.ascending),
    idAscending: request.sorts.last?.ascending ?? true)
  Benchmark("ID_list_one_row_resorted_244292_rows") { benchmark in
    let from = 200_000
    let id = list[from]
    let key = list.key(at: from)
    let otherKey = list.key(at: 1_000)
    /// Moves `id` from `position` to where `key` sorts it: the gap counts the rows that
    /// survive the removal, so a point after the old position is one less.
    func move(from position: Int, to key: [Value]) {
      let point = list.insertionPoint(key: key, id: id)
      list.apply(removals: [position], insertions: [(gap: point > position ? point - 1 : point, id: id, key: key, object: nil)])
    }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      move(from: from, to: otherKey)
      move(from: list.position(of: id)!, to: key)
    }
    benchmark.stopMeasurement()
    precondition(list[from] == id && list.count == keyed.ids.count, "the list must come back to its order")
  }

  // A tracking controller (batched, as the harness) applying a transaction of one changed
  // object: its close date moves it across the list. The commit is outside the measurement.
  let controller = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: memory)
  controller.tracksChanges = true
  controller.observesStore = false
  try! controller.performFetch()
  let detailIDs = try! memory.fetchIDs(try! FetchRequest(entityName: "FailedBankDetails").resolve(in: memory.model))
  nonisolated(unsafe) var rng = SeededRandom(seed: 7)
  Benchmark("Controller_one_changed_object_applied_244292_banks_memory") { benchmark in
    for _ in benchmark.scaledIterations {
      let id = detailIDs[Int(rng.below(UInt64(detailIDs.count)))]
      let date = Value.date(Double(-1_000_000_000 + Int64(rng.below(2_700_000_000))))
      let transaction = try memory.commit([.update(entity: "FailedBankDetails", id: id, values: ["closeDate": date])])
      benchmark.startMeasurement()
      blackHole(try controller.apply(transaction))
      benchmark.stopMeasurement()
    }
  }
}
