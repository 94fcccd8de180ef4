import Catalog
import FetchedResults
import TestSupport
import Testing

/// A list's cells read through relationships: a relationship not prefetched fires one fault
/// per related object not yet registered, one query each, and shows what the prefetched row
/// shows; a prefetched one fires none.
@Suite struct CellsTests {
  static let cell = ["name", "state", "details.closeDate", "details.zip"]

  /// The first `n` rows of the banks list with the cells read, nothing prefetched: the
  /// counters, the faults, and the cells' values.
  static func firstRows(_ store: any Store, _ n: Int, prefetch: [String]) throws -> (
    counters: StoreCounters, faults: Int, cells: [[Value]]
  ) {
    var request = DatasetModels.defaultRequest(for: .banks, batchSize: 20)
    request.relationshipKeyPathsForPrefetching = prefetch
    let controller = FetchedResultsController(fetchRequest: request, store: store)
    store.resetCounters()
    try controller.performFetch()
    let cells = try Cells(Self.cell, request: request.resolve(in: store.model), store: store)
    let values = try (0..<n).map { try cells.values(of: controller.object(atGlobalIndex: $0)) }
    return (store.counters, cells.faultsFired, values)
  }

  @Test(arguments: EngineFixture.withPostgres(["memory", "sqlite"]))
  func aFirstScreenFaultsEachRelatedObjectOnceAndShowsWhatPrefetchingShows(_ type: String) throws {
    if type == "postgres" { try EngineFixture.shared.requirePostgres() }
    let store = try EngineFixture.shared.store(.banks, type)
    let faulting = try Self.firstRows(store, 20, prefetch: [])
    // The ID query, one batch, then one fault per row's details (one-to-one: 20 objects).
    #expect(faulting.counters.queries == 1 + 1 + 20)
    #expect(faulting.faults == 20)
    #expect(faulting.counters.rowsMaterialized == 20 + 20)
    let prefetched = try Self.firstRows(store, 20, prefetch: ["details"])
    #expect(prefetched.counters.queries == 1 + 1)
    #expect(prefetched.faults == 0)
    #expect(faulting.cells == prefetched.cells)
    #expect(faulting.cells.allSatisfy { $0[2] != .null })
  }

  @Test func aRegisteredObjectIsNotFaultedAgain() throws {
    let model = Model(entities: [
      Entity(
        name: "Note", table: "note", attributes: [Attribute("title", .string), Attribute("folderID", .integer)],
        relationships: [Relationship("folder", to: "Folder", sourceColumn: "folder_id", destinationColumn: "id")]),
      Entity(name: "Folder", table: "folder", attributes: [Attribute("name", .string)]),
    ])
    let store = MemoryStore(model: model)
    try store.load(entity: "Folder", id: 1, values: [.string("Inbox")])
    try store.load(entity: "Folder", id: 2, values: [.string("Work")])
    // Five notes in two folders, and one whose folder is gone.
    for (id, folder) in [(10, 1), (11, 2), (12, 1), (13, 1), (14, 2), (15, 9)] {
      try store.load(entity: "Note", id: Int64(id), values: [.string("n\(id)"), .integer(Int64(folder))])
    }
    let request = try FetchRequest(entityName: "Note", sortDescriptors: [SortDescriptor("title")]).resolve(in: model)
    let objects = try store.fetchObjects(request)
    store.resetCounters()
    let cells = try Cells(["title", "folder.name"], request: request, store: store)
    let shown = try objects.map { try cells.values(of: $0)[1] }
    #expect(shown == [.string("Inbox"), .string("Work"), .string("Inbox"), .string("Inbox"), .string("Work"), .null])
    // Folders 1, 2 and the missing 9: three faults, however often each is read.
    #expect(cells.faultsFired == 3 && store.counters.queries == 3 && store.counters.rowsMaterialized == 2)
    _ = try objects.map { try cells.values(of: $0) }
    #expect(cells.faultsFired == 3 && store.counters.queries == 3)
    #expect(cells.faultingRelationships == ["folder"])
    #expect(throws: FetchError.self) { try Cells(["folder.missing"], request: request, store: store) }
  }
}
