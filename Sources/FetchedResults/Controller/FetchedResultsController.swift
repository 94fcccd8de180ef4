/// NSFetchedResultsController's semantics over any `Store`.
///
/// ```swift
/// let request = FetchRequest(
///   entityName: "FailedBankInfo",
///   sortDescriptors: [SortDescriptor("details.closeDate", ascending: false)],
///   fetchBatchSize: 20)
/// let controller = FetchedResultsController(fetchRequest: request, store: store)
/// try controller.performFetch()       // the sorted IDs only: one query
/// let first = try controller.object(at: RowPath(row: 0, section: 0))  // rows 0…19: one query
/// ```
///
/// With `fetchBatchSize` 0 `performFetch` materializes every row; with N > 0 it fetches only
/// the IDs (with sections, the section key beside each ID in the same query, the sections
/// counted from its runs: `Store.fetchIDsAndSections`) and `object(at:)` loads rows N at a
/// time, keeping at most `maxLoadedBatches` batches.
///
/// Change tracking, as Core Data's with a delegate: set `delegate`, call `changes()`, or set
/// `tracksChanges` before `performFetch`; the controller then keeps each row's sort key and
/// turns each committed transaction of its store into one `ChangeSet` (see `apply(_:)`).
public final class FetchedResultsController {
  public let fetchRequest: FetchRequest
  public let store: any Store
  public let maxLoadedBatches: Int
  public private(set) var resolvedRequest: ResolvedRequest? {
    didSet { orderingAttributes = resolvedRequest?.orderingAttributes ?? [:] }
  }
  /// `resolvedRequest`'s attributes that can move a row, computed once per performFetch and
  /// not per transaction.
  var orderingAttributes: [String: Set<String>] = [:]
  public internal(set) var sections: [SectionInfo] = []

  enum Contents {
    case none
    case full(SortedIDList)
    case batched(BatchFaultingArray)
  }
  var contents = Contents.none

  /// Receives a change set after each store transaction that changed the results.
  public weak var delegate: (any FetchedResultsControllerDelegate)? {
    didSet { if delegate != nil { tracksChanges = true } }
  }
  /// Whether `performFetch` keeps sort keys and observes the store. Set by `delegate` and
  /// `changes()`; takes effect at the next `performFetch`.
  public var tracksChanges = false
  /// With tracking, whether the controller registers with its store's observers. Turn it off
  /// to feed transactions to `apply(_:)` yourself (benchmarks; transactions from elsewhere).
  public var observesStore = true
  /// Which changes a transaction reports, and whether related objects are followed.
  public var changeRules = ChangeRules.minimal
  /// The related objects registered for the rows (the context's row cache): the prefetched
  /// to-many elements, and what `Cells` reading the rows faults.
  public let related = RelatedObjects()
  private var observerToken: Int?
  var continuations: [Int: AsyncStream<ChangeSet>.Continuation] = [:]
  private var nextContinuation = 0
  /// What change tracking has done, for tests and the benchmark.
  public internal(set) var trackingStats = TrackingStats()
  /// Where section info is kept across launches, under `cacheName` (see `SectionCache`);
  /// takes effect at the next `performFetch`.
  public var sectionCache: (any SectionCache)?
  public var cacheName: String?
  /// Fetches whose section counts came from `sectionCache`.
  public internal(set) var sectionCacheHits = 0
  /// The last error met while applying a store transaction from the observer; the results
  /// were refetched when it happened.
  public internal(set) var lastTrackingError: (any Error)?

  public init(fetchRequest: FetchRequest, store: any Store, maxLoadedBatches: Int = 4) {
    self.fetchRequest = fetchRequest
    self.store = store
    self.maxLoadedBatches = max(1, maxLoadedBatches)
  }

  deinit {
    if let observerToken { store.observers.remove(observerToken) }
    for c in continuations.values { c.finish() }
  }

  /// Change sets as an asynchronous sequence (one per transaction that changed the results).
  /// Turns tracking on; call it before `performFetch`.
  public func changes() -> AsyncStream<ChangeSet> {
    tracksChanges = true
    let (stream, continuation) = AsyncStream<ChangeSet>.makeStream(bufferingPolicy: .unbounded)
    nextContinuation += 1
    continuations[nextContinuation] = continuation
    return stream
  }

  /// Executes the request. Full fetch: one query (plus one grouped query when the section
  /// key is not among the row's values). Batched: one ID query, plus one grouped query with
  /// sections. Throws for an invalid request, such as a section key path that is not the
  /// first sort key.
  public func performFetch() throws {
    let resolved = try fetchRequest.resolve(in: store.model)
    if tracksChanges && (fetchRequest.fetchLimit > 0 || fetchRequest.fetchOffset > 0) {
      throw FetchError.invalidRequest("change tracking does not support fetchLimit or fetchOffset")
    }
    resolvedRequest = resolved
    if fetchRequest.fetchBatchSize == 0 {
      try fetchFull(resolved)
    } else {
      try fetchBatched(resolved, batchSize: fetchRequest.fetchBatchSize)
    }
    if tracksChanges && observesStore && observerToken == nil {
      observerToken = store.observers.add { [weak self] t in self?.storeDidCommit(t) }
    }
    InternalChecks.check("FetchedResultsController after performFetch", invariantViolations())
  }

  /// A full fetch: every row in one query, their keys when tracking, the sections from the
  /// rows or the store.
  private func fetchFull(_ resolved: ResolvedRequest) throws {
    let (keyDirections, keyOrders) = (
      resolved.sorts.dropLast().map(\.ascending), resolved.sorts.dropLast().map(\.order)
    )
    let idAscending = resolved.sorts.last?.ascending ?? true
    let objects = try store.fetchObjects(resolved)
    try related.prefetch(resolved.prefetchToMany, of: objects, entity: resolved.entity, store: store)
    let ids = objects.map(\.id)
    var keys: [[Value]]?
    if tracksChanges {
      let keyed = try store.fetchKeyedIDs(resolved, ids: nil)
      guard keyed.ids == ids else {
        throw FetchError.store("the store changed between the row query and the key query")
      }
      keys = keyed.keys
    }
    if let section = resolved.section {
      if let i = resolved.rowLayout.index(of: section.keyPath) {
        sections = SectionInfo.from(Self.group(objects.lazy.map { $0.values[i] }))
      } else {
        sections = SectionInfo.from(try cachedSections() ?? storeSections(resolved))
      }
    } else {
      sections = SectionInfo.from([SectionCount(value: .null, count: ids.count)])
    }
    contents = .full(
      SortedIDList(
        ids: ids, keys: keys, objects: objects, ascending: keyDirections, orders: keyOrders, idAscending: idAscending)
    )
  }

  /// A batched fetch: the IDs (with their keys when tracking), and the sections with them.
  private func fetchBatched(_ resolved: ResolvedRequest, batchSize: Int) throws {
    let (keyDirections, keyOrders) = (
      resolved.sorts.dropLast().map(\.ascending), resolved.sorts.dropLast().map(\.order)
    )
    let idAscending = resolved.sorts.last?.ascending ?? true
    // Sections come with the IDs: from the kept sort keys (the section key is the first),
    // or from the store's one query that reads the section key beside each ID.
    let list: SortedIDList
    var counts: [SectionCount]?
    if tracksChanges {
      let keyed = try store.fetchKeyedIDs(resolved, ids: nil)
      list = SortedIDList(
        ids: keyed.ids, keys: keyed.keys, objects: nil, ascending: keyDirections, orders: keyOrders,
        idAscending: idAscending)
      if resolved.section != nil { counts = Self.group(keyed.keys[0]) }
    } else if resolved.section != nil, let cached = cachedSections() {
      list = SortedIDList(
        ids: try store.fetchIDs(resolved), keys: nil, objects: nil, ascending: [], idAscending: idAscending)
      // Counts that do not add up to the IDs are stale: asked again.
      counts = cached.reduce(0) { $0 + $1.count } == list.count ? cached : try storeSections(resolved)
    } else if resolved.section != nil {
      let (ids, sectionCounts) = try store.fetchIDsAndSections(resolved)
      list = SortedIDList(ids: ids, keys: nil, objects: nil, ascending: [], idAscending: idAscending)
      counts = sectionCounts
      saveSections(sectionCounts)
    } else {
      list = SortedIDList(
        ids: try store.fetchIDs(resolved), keys: nil, objects: nil, ascending: [], idAscending: idAscending)
    }
    let (store, related) = (self.store, self.related)
    let array = BatchFaultingArray(list: list, batchSize: batchSize, maxLoadedBatches: maxLoadedBatches) {
      let objects = try store.fetchObjects(resolved, ids: $0)
      try related.prefetch(resolved.prefetchToMany, of: objects, entity: resolved.entity, store: store)
      return objects
    }
    if let counts {
      sections = SectionInfo.from(counts)
      let total = sections.reduce(0) { $0 + $1.numberOfObjects }
      guard total == list.count else {
        throw FetchError.store(
          """
          section counts add up to \(total) but the ID query returned \(list.count) rows; the store changed \
          between the two queries
          """
        )
      }
    } else {
      sections = SectionInfo.from([SectionCount(value: .null, count: list.count)])
    }
    contents = .batched(array)
  }

  /// The store's section counts, saved in the section cache for the next fetch.
  private func storeSections(_ resolved: ResolvedRequest) throws -> [SectionCount] {
    let counts = try store.sectionCounts(resolved)
    saveSections(counts)
    return counts
  }

  private static func group<S: Sequence<Value>>(_ values: S) -> [SectionCount] {
    var out: [SectionCount] = []
    for v in values {
      if let last = out.last, last.value == v {
        out[out.count - 1].count += 1
      } else {
        out.append(SectionCount(value: v, count: 1))
      }
    }
    return out
  }

  /// The number of fetched objects. O(1).
  public var count: Int {
    switch contents {
    case .none: 0
    case .full(let list): list.count
    case .batched(let a): a.count
    }
  }

  /// The fetched IDs in order, without faulting any row. O(1) before any change, else O(n).
  public var fetchedIDs: [Int64] { list?.allIDs ?? [] }

  /// The sorted ID list, in either mode.
  public var list: SortedIDList? {
    switch contents {
    case .none: nil
    case .full(let list): list
    case .batched(let a): a.list
    }
  }

  /// The results as a table view's data source sees them (the iOS 13 snapshot). O(n).
  public func snapshot() -> ListSnapshot {
    let ids = fetchedIDs
    return ListSnapshot(
      sections: sections.map {
        ListSnapshot.Section(name: $0.name, ids: Array(ids[$0.offset..<($0.offset + $0.numberOfObjects)]))
      })
  }

  /// The batch-faulting array in batched mode, for inspection.
  public var batchArray: BatchFaultingArray? {
    if case .batched(let a) = contents { a } else { nil }
  }

  /// Unique section index titles, in section order.
  public var sectionIndexTitles: [String] {
    var seen = Set<String>()
    return sections.compactMap(\.indexTitle).filter { seen.insert($0).inserted }
  }

  /// The object at a row path. O(log sections) plus, in batched mode, a batch fault (one
  /// query) when its batch is not loaded.
  public func object(at path: RowPath) throws -> FetchedObject {
    guard path.section >= 0, path.section < sections.count, path.row >= 0,
      path.row < sections[path.section].numberOfObjects
    else { throw FetchError.indexOutOfRange(section: path.section, row: path.row) }
    return try object(atGlobalIndex: sections[path.section].offset + path.row)
  }

  /// The `index`-th object overall, across sections.
  public func object(atGlobalIndex index: Int) throws -> FetchedObject {
    switch contents {
    case .none: throw FetchError.notFetched
    case .full(let list):
      guard index >= 0, index < list.count else { throw FetchError.indexOutOfRange(section: 0, row: index) }
      return list.object(at: index)
    case .batched(let a):
      guard index >= 0, index < a.count else { throw FetchError.indexOutOfRange(section: 0, row: index) }
      return try a.object(at: index)
    }
  }

  /// The row path of the object with primary key `id`, nil if it is not in the results.
  /// O(chunk) with change tracking (the ID → chunk map); otherwise O(n), a linear scan of the
  /// IDs as Core Data's `indexOfObject:`. No row is faulted.
  public func indexPath(for id: Int64) -> RowPath? {
    guard let list else { return nil }
    let i = list.tracksKeys ? list.position(of: id) : list.allIDs.firstIndex(of: id)
    return i.flatMap { sections.rowPath(forGlobalIndex: $0) }
  }
}
