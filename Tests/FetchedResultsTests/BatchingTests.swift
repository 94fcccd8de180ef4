import Catalog
import Datasets
import FetchedResults
import Foundation
import TestSupport
import Testing

@Suite struct BatchedFaulting {
  static let stores = ["memory", "sqlite"]

  @Test(arguments: EngineFixture.withPostgres(stores))
  func scrollThroughCountsQueriesAndRowsExactly(store storeType: String) throws {
    if storeType == "postgres" { try EngineFixture.shared.requirePostgres() }
    // Sections come with the ID query (the section key read beside each ID): no grouped query.
    for section in [nil, "state"] as [String?] {
      let store = try EngineFixture.shared.store(.banks, storeType)
      var request = DatasetModels.defaultRequest(for: .banks)
      if let section { request.sortDescriptors.insert(SortDescriptor(section), at: 0) }
      request.sectionNameKeyPath = section
      store.resetCounters()
      let c = FetchedResultsController(fetchRequest: request, store: store)
      try c.performFetch()
      #expect(Self.queriesAndRows(store) == counters(queries: 1, rows: 0), "performFetch loads no row")
      if storeType == "postgres" { #expect(store.counters.roundTrips == 1) }
      let n = c.count
      #expect(n == EngineFixture.rows)
      for i in 0..<n {
        _ = try c.object(atGlobalIndex: i)
        #expect(c.batchArray!.loadedBatches.count <= 4)
      }
      #expect(Self.queriesAndRows(store) == counters(queries: 1 + (n + 19) / 20, rows: n))
      #expect(c.batchArray!.invariantViolations() == [])
    }
  }

  /// The counters every store keeps (PostgreSQL counts round trips and bytes too).
  static func queriesAndRows(_ store: any Store) -> StoreCounters {
    counters(queries: store.counters.queries, rows: store.counters.rowsMaterialized)
  }

  @Test(arguments: stores)
  func firstScreenMaterializesTwentyRows(store storeType: String) throws {
    let store = try EngineFixture.shared.store(.wells, storeType)
    store.resetCounters()
    let c = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .wells), store: store)
    try c.performFetch()
    for row in 0..<20 { _ = try c.object(at: RowPath(row: row, section: 0)) }
    #expect(store.counters == counters(queries: 2, rows: 20))
    #expect(c.batchArray!.loadedBatches == [0])
  }

  @Test(arguments: stores)
  func randomAccessReverseScrollAndJumpsKeepTheLRUBounded(store storeType: String) throws {
    let store = try EngineFixture.shared.store(.banks, storeType)
    let full = FetchedResultsController(
      fetchRequest: DatasetModels.defaultRequest(for: .banks, batchSize: 0), store: store)
    try full.performFetch()
    let c = FetchedResultsController(
      fetchRequest: DatasetModels.defaultRequest(for: .banks), store: store, maxLoadedBatches: 4)
    try c.performFetch()
    var rng = SeededRandom(seed: 11)
    var accesses = Array((0..<c.count).reversed().prefix(200))  // reverse scroll from the bottom
    accesses += (0..<300).map { _ in Int(rng.below(UInt64(c.count))) }  // jumps
    for i in accesses {
      let o = try c.object(atGlobalIndex: i)
      #expect(o == (try full.object(atGlobalIndex: i)))
      #expect(c.batchArray!.invariantViolations() == [])
    }
    #expect(c.batchArray!.loadedBatches.count == 4)
    // Touching a loaded batch costs nothing; the LRU order follows use.
    let loaded = c.batchArray!.loadedBatches
    store.resetCounters()
    _ = try c.object(atGlobalIndex: loaded[0] * 20)
    #expect(store.counters.queries == 0)
    #expect(c.batchArray!.loadedBatches == Array(loaded.dropFirst()) + [loaded[0]])
  }

  @Test func lruLimitIsConfigurable() throws {
    let store = try EngineFixture.shared.store(.wells, "memory")
    let c = FetchedResultsController(
      fetchRequest: DatasetModels.defaultRequest(for: .wells, batchSize: 50), store: store, maxLoadedBatches: 2)
    try c.performFetch()
    for i in stride(from: 0, to: 1_000, by: 7) { _ = try c.object(atGlobalIndex: i) }
    #expect(c.batchArray!.loadedBatches.count == 2)
    #expect(c.batchArray!.faults == 20)
  }

  @Test func fullFetchMaterializesEverythingInOneQuery() throws {
    let store = try EngineFixture.shared.store(.banks, "sqlite")
    store.resetCounters()
    var request = DatasetModels.defaultRequest(for: .banks, batchSize: 0)
    request.sortDescriptors.insert(SortDescriptor("state"), at: 0)
    request.sectionNameKeyPath = "state"
    let c = FetchedResultsController(fetchRequest: request, store: store)
    try c.performFetch()
    #expect(store.counters == counters(queries: 1, rows: EngineFixture.rows))
    #expect(c.sections.count > 40)
    #expect(c.sectionIndexTitles.first == "A")
  }

  @Test func indexPathForIDAndSectionIndexes() throws {
    let store = try EngineFixture.shared.store(.banks, "sqlite")
    var request = DatasetModels.defaultRequest(for: .banks)
    request.sortDescriptors = [SortDescriptor("state"), SortDescriptor("name")]
    request.sectionNameKeyPath = "state"
    let c = FetchedResultsController(fetchRequest: request, store: store)
    try c.performFetch()
    store.resetCounters()
    for (s, section) in c.sections.enumerated() where section.numberOfObjects > 0 {
      let last = RowPath(row: section.numberOfObjects - 1, section: s)
      let id = c.fetchedIDs[section.offset + last.row]
      #expect(c.indexPath(for: id) == last)
    }
    #expect(c.indexPath(for: 999_999) == nil)
    #expect(store.counters.queries == 0, "indexPath(for:) faults nothing")
    #expect(throws: FetchError.indexOutOfRange(section: 0, row: 1_000_000)) {
      try c.object(at: RowPath(row: 1_000_000, section: 0))
    }
  }

  @Test func notFetchedIsAnError() throws {
    let c = FetchedResultsController(
      fetchRequest: DatasetModels.defaultRequest(for: .wells), store: try EngineFixture.shared.store(.wells, "memory"))
    #expect(c.count == 0)
    #expect(throws: FetchError.self) { try c.object(atGlobalIndex: 0) }
  }

  /// A checker that cannot fail is no checker: corrupt the LRU on purpose and see it caught.
  @Test func theInvariantCheckerCatchesViolations() throws {
    let ids: [Int64] = Array(1...100)
    let layout = try FetchRequest(entityName: "Well").resolve(in: DatasetModels.wells).rowLayout
    var shuffle = false
    let a = BatchFaultingArray(ids: ids, batchSize: 10, maxLoadedBatches: 2) { slice in
      let objs = slice.map { FetchedObject(id: $0, values: [], layout: layout) }
      return shuffle ? objs.reversed() : objs
    }
    _ = try a.object(at: 5)
    #expect(a.invariantViolations() == [])
    shuffle = true
    _ = try a.object(at: 15)  // rows come back reversed; the array reorders them
    #expect(a.invariantViolations() == [])
    #expect(try a.object(at: 17).id == 18)
  }
}

func counters(queries: Int, rows: Int) -> StoreCounters {
  var c = StoreCounters()
  c.queries = queries
  c.rowsMaterialized = rows
  return c
}

/// `make test` compiles the engine's invariant checks into every mutation; a test run
/// without them would pass without checking.
@Test func theEnginesInvariantChecksAreCompiledIntoTheTests() {
  #expect(InternalChecks.enabled, "run the tests with `make test` (FETCHBENCH_INTERNAL_CHECKS=1 in the environment)")
}
