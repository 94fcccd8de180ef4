import Catalog
import Datasets
import FetchedResults
import Foundation
import TestSupport
import Testing

/// Offset and keyset pages against the independent reference: the same rows in the same order
/// as a full fetch, one query per page, and no row skipped or repeated where sort keys tie.
@Suite struct Paging {
  static let stores = EngineFixture.withPostgres(["memory", "sqlite"])

  /// Every request of the equivalence matrix without its own limit or offset (sections,
  /// predicates, to-one keys, nulls, both directions), read to the end in pages of 97.
  @Test(arguments: RequestCase.all.filter { $0.limit == 0 && $0.offset == 0 }, stores)
  func pagesReadToTheEndAreTheFullFetch(_ c: RequestCase, store storeType: String) throws {
    if storeType == "postgres" { try EngineFixture.shared.requirePostgres() }
    let expected = Reference.answer(try c.request(batchSize: 0), Equivalence.records(c)).ids
    let store = try EngineFixture.shared.store(c.kind, storeType)
    let pager = try Pager(try c.request(batchSize: 0), store: store, pageSize: 97)
    for strategy in PagingStrategy.allCases {
      store.resetCounters()
      let rows = try pager.all(strategy)
      #expect(firstDifference(rows.map(\.id), expected) == nil, "\(strategy)")
      #expect(store.counters.queries == expected.count / 97 + 1, "\(strategy): one query per page")
    }
  }

  /// Pages of 7 inside long runs of equal keys (about 60 banks per state; wells' fields with
  /// nulls, first ascending and last descending): keyset seeks past the primary key too.
  @Test(arguments: ["state asc", "state desc", "city desc, state asc"], stores)
  func keysetNeverSkipsOrRepeatsTiedRows(_ sort: String, store storeType: String) throws {
    if storeType == "postgres" { try EngineFixture.shared.requirePostgres() }
    for c in [
      RequestCase(kind: .banks, entity: "FailedBankInfo", sort: sort),
      RequestCase(kind: .wells, entity: "Well", sort: sort.replacingOccurrences(of: "city", with: "field")),
    ] {
      let expected = Reference.answer(try c.request(batchSize: 0), Equivalence.records(c)).ids
      let store = try EngineFixture.shared.store(c.kind, storeType)
      let rows = try Pager(try c.request(batchSize: 0), store: store, pageSize: 7).all(.keyset)
      #expect(firstDifference(rows.map(\.id), expected) == nil, "\(c.testDescription)")
      #expect(Set(rows.map(\.id)).count == rows.count, "no row twice")
    }
  }

  /// A page at row 0, n/2 and n − 20 is one query either way: offset reads it directly; keyset
  /// continues from the row before it.
  @Test(arguments: stores)
  func aPageAtAnyDepthIsOneQuery(store storeType: String) throws {
    if storeType == "postgres" { try EngineFixture.shared.requirePostgres() }
    let request = DatasetModels.defaultRequest(for: .banks, batchSize: 0)
    let store = try EngineFixture.shared.store(.banks, storeType)
    let full = FetchedResultsController(fetchRequest: request, store: store)
    try full.performFetch()
    let ids = full.fetchedIDs
    let pager = try Pager(request, store: store, pageSize: 20)
    for depth in [0, ids.count / 2, ids.count - 20] {
      store.resetCounters()
      let byOffset = try pager.page(at: depth)
      #expect(store.counters.queries == 1 && store.counters.rowsMaterialized == 20)
      #expect(byOffset.map(\.id) == Array(ids[depth..<(depth + 20)]), "offset \(depth)")
      let before = depth == 0 ? nil : try pager.page(at: depth - 1).first
      store.resetCounters()
      let byKeyset = try pager.page(after: before)
      #expect(store.counters.queries == 1 && store.counters.rowsMaterialized == 20)
      #expect(byKeyset.map(\.id) == byOffset.map(\.id), "keyset \(depth)")
    }
  }

  @Test func requestsThatCannotBePagedAreClearErrors() throws {
    let store = try EngineFixture.shared.store(.banks, "memory")
    var limited = DatasetModels.defaultRequest(for: .banks, batchSize: 0)
    limited.fetchLimit = 10
    #expect(
      throws: FetchError.invalidRequest(
        "paging sets the limit and offset itself; the request has fetchLimit 10, fetchOffset 0")
    ) {
      try Pager(limited, store: store, pageSize: 20)
    }
    #expect(throws: FetchError.invalidRequest("a page must hold at least one row, got 0")) {
      try Pager(DatasetModels.defaultRequest(for: .banks), store: store, pageSize: 0)
    }
  }
}
