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
/// the IDs (plus, with sections, one grouped count query) and `object(at:)` loads rows N at
/// a time, keeping at most `maxLoadedBatches` batches.
public final class FetchedResultsController {
  public let fetchRequest: FetchRequest
  public let store: any Store
  public let maxLoadedBatches: Int
  public private(set) var resolvedRequest: ResolvedRequest?
  public private(set) var sections: [SectionInfo] = []

  private enum Contents {
    case none
    case full([FetchedObject], ids: [Int64])
    case batched(BatchFaultingArray)
  }
  private var contents = Contents.none

  public init(fetchRequest: FetchRequest, store: any Store, maxLoadedBatches: Int = 4) {
    self.fetchRequest = fetchRequest
    self.store = store
    self.maxLoadedBatches = max(1, maxLoadedBatches)
  }

  /// Executes the request. Full fetch: one query (plus one grouped query when the section
  /// key is not among the row's values). Batched: one ID query, plus one grouped query with
  /// sections. Throws for an invalid request, such as a section key path that is not the
  /// first sort key.
  public func performFetch() throws {
    let resolved = try fetchRequest.resolve(in: store.model)
    resolvedRequest = resolved
    let batchSize = fetchRequest.fetchBatchSize
    if batchSize == 0 {
      let objects = try store.fetchObjects(resolved)
      let ids = objects.map(\.id)
      if let section = resolved.section {
        if let i = resolved.rowLayout.index(of: section.keyPath) {
          sections = SectionInfo.from(Self.group(objects.lazy.map { $0.values[i] }))
        } else {
          sections = SectionInfo.from(try store.sectionCounts(resolved))
        }
      } else {
        sections = SectionInfo.from([SectionCount(value: .null, count: ids.count)])
      }
      contents = .full(objects, ids: ids)
    } else {
      let ids = try store.fetchIDs(resolved)
      let store = self.store
      let array = BatchFaultingArray(ids: ids, batchSize: batchSize, maxLoadedBatches: maxLoadedBatches) {
        try store.fetchObjects(resolved, ids: $0)
      }
      if resolved.section != nil {
        sections = SectionInfo.from(try store.sectionCounts(resolved))
        let total = sections.reduce(0) { $0 + $1.numberOfObjects }
        guard total == ids.count else {
          throw FetchError.store("section counts add up to \(total) but the ID query returned \(ids.count) rows; the store changed between the two queries")
        }
      } else {
        sections = SectionInfo.from([SectionCount(value: .null, count: ids.count)])
      }
      contents = .batched(array)
    }
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
    case .full(_, let ids): ids.count
    case .batched(let a): a.count
    }
  }

  /// The fetched IDs in order, without faulting any row. O(1).
  public var fetchedIDs: [Int64] {
    switch contents {
    case .none: []
    case .full(_, let ids): ids
    case .batched(let a): a.ids
    }
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
    case .full(let objects, _):
      guard index >= 0, index < objects.count else { throw FetchError.indexOutOfRange(section: 0, row: index) }
      return objects[index]
    case .batched(let a):
      guard index >= 0, index < a.count else { throw FetchError.indexOutOfRange(section: 0, row: index) }
      return try a.object(at: index)
    }
  }

  /// The row path of the object with primary key `id`, nil if it is not in the results.
  /// O(n): a linear scan of the IDs, as Core Data's `indexOfObject:`; no row is faulted.
  public func indexPath(for id: Int64) -> RowPath? {
    guard let i = fetchedIDs.firstIndex(of: id) else { return nil }
    return sections.rowPath(forGlobalIndex: i)
  }
}
