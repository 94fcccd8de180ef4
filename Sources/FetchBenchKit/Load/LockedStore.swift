import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

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
      counters.ownQueries += after.ownQueries - before.ownQueries
      counters.commits += after.commits - before.commits
    }
    return try body(base)
  }

  func fetchIDs(_ r: ResolvedRequest) throws -> [Int64] { try locked { try $0.fetchIDs(r) } }
  func fetchObjects(_ r: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
    try locked { try $0.fetchObjects(r, ids: ids) }
  }
  func fetchObjects(_ r: ResolvedRequest) throws -> [FetchedObject] { try locked { try $0.fetchObjects(r) } }
  func count(_ r: ResolvedRequest) throws -> Int { try locked { try $0.count(r) } }
  func fetchDestination(of rel: Relationship, key: Int64) throws -> [Value]? {
    try locked { try $0.fetchDestination(of: rel, key: key) }
  }
  func sectionCounts(_ r: ResolvedRequest) throws -> [SectionCount] { try locked { try $0.sectionCounts(r) } }
  func fetchElements(of relationship: ToManyRelationship, keys: [Int64]) throws -> [Int64: [FetchedObject]] {
    try locked { try $0.fetchElements(of: relationship, keys: keys) }
  }
  func fetchJoinRows(_ table: JoinTable) throws -> [(source: Int64, destination: Int64)] {
    try locked { try $0.fetchJoinRows(table) }
  }
  func commit(_ operations: [WriteOperation]) throws -> StoreTransaction { try locked { try $0.commit(operations) } }
  func fetchKeyedIDs(_ r: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs {
    try locked { try $0.fetchKeyedIDs(r, ids: ids) }
  }
  func relatedIDs(_ r: ResolvedRequest, through rel: Relationship, destinationIDs: [Int64]) throws -> [Int64] {
    try locked { try $0.relatedIDs(r, through: rel, destinationIDs: destinationIDs) }
  }
}
