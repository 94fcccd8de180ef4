import DatasetStores
import FetchedResults
import HarnessSupport
import ResultModel
import Vocabulary

/// Faults the harness's own tests inject into a case's process to see `compare` and `check`
/// catch them (`CommandSettings.faults`); none is set in a real run.
extension CaseSpec {
  /// The case's store, opened; with `queryPerRow` injected each batch it reads is read a row
  /// per query, as an engine that lost its batching would.
  func openStore() throws -> any Store {
    let store = try location.open(self.store)
    return CommandSettings.current.faults.queryPerRow ? QueryPerRowStore(store) : store
  }

  /// One run of `scenario` in `mode` (`request`: the user's list, nil for the dataset's); with
  /// a `batchedSlowdown` injected a batched run does that many runs' work, timed as one, its
  /// counters and heap figures the first run's (those of a run without the fault).
  func measure(_ scenario: Scenario, _ mode: FetchMode, request: FetchRequest?, store: any Store) throws -> Scenario.Run
  {
    let batchSize = mode.batchSize(self.batchSize)
    var run = try scenario.measure(
      dataset, mode: mode, batchSize: batchSize, store: store, request: request, cells: cells())
    guard mode == .batched else { return run }
    for _ in 1..<max(1, CommandSettings.current.faults.batchedSlowdown ?? 1) {
      run.sample.wallNanos += try scenario.measure(
        dataset, mode: mode, batchSize: batchSize, store: store, request: request, cells: cells()
      ).sample
        .wallNanos
    }
    return run
  }
}

/// A store whose batch reads ask for one row per query: every other call passes through.
final class QueryPerRowStore: Store {
  let base: any Store
  init(_ base: any Store) { self.base = base }

  var model: Model { base.model }
  var counters: StoreCounters { base.counters }
  func resetCounters() { base.resetCounters() }
  func fetchIDs(_ request: ResolvedRequest) throws -> [Int64] { try base.fetchIDs(request) }
  func fetchObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
    try ids.indices.flatMap { try base.fetchObjects(request, ids: ids[$0...$0]) }
  }
  func fetchObjects(_ request: ResolvedRequest) throws -> [FetchedObject] { try base.fetchObjects(request) }
  func count(_ request: ResolvedRequest) throws -> Int { try base.count(request) }
  func fetchDestination(of relationship: Relationship, key: Int64) throws -> [Value]? {
    try base.fetchDestination(of: relationship, key: key)
  }
  func sectionCounts(_ request: ResolvedRequest) throws -> [SectionCount] { try base.sectionCounts(request) }
  func fetchElements(of relationship: ToManyRelationship, keys: [Int64]) throws -> [Int64: [FetchedObject]] {
    try base.fetchElements(of: relationship, keys: keys)
  }
  func fetchJoinRows(_ table: JoinTable) throws -> [(source: Int64, destination: Int64)] {
    try base.fetchJoinRows(table)
  }
  func fetchIDsAndSections(_ request: ResolvedRequest) throws -> (ids: [Int64], sections: [SectionCount]) {
    try base.fetchIDsAndSections(request)
  }
  func commit(_ operations: [WriteOperation]) throws -> StoreTransaction { try base.commit(operations) }
  func fetchKeyedIDs(_ request: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs {
    try base.fetchKeyedIDs(request, ids: ids)
  }
  func relatedIDs(_ request: ResolvedRequest, through relationship: Relationship, destinationIDs: [Int64]) throws
    -> [Int64]
  {
    try base.relatedIDs(request, through: relationship, destinationIDs: destinationIDs)
  }
  var observers: TransactionObservers { base.observers }
  var dataVersion: String? { base.dataVersion }
}
