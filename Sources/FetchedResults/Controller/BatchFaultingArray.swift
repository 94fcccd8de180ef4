/// Core Data's batched result array: every ID in order, rows loaded a batch at a time on first
/// touch, and at most `maxLoadedBatches` batches kept (least recently used released first).
///
/// After creation it holds only the IDs: 8 bytes per row (plus the sort keys when the
/// controller tracks changes).
public final class BatchFaultingArray {
  /// The IDs in the request's order.
  public let list: SortedIDList
  /// Every ID, in the request's order. O(n): a copy.
  public var ids: [Int64] { list.allIDs }
  public let batchSize: Int
  public let maxLoadedBatches: Int
  /// Loads the rows of a slice of `ids` (one query); rows may come back in any order.
  private let fault: (ArraySlice<Int64>) throws -> [FetchedObject]
  private var loaded: [Int: [FetchedObject]] = [:]
  /// Loaded batch indexes, least recently used first. At most `maxLoadedBatches` long, so
  /// its linear operations are O(1) in the row count.
  private var recency: [Int] = []
  /// Batch faults since creation.
  public private(set) var faults = 0

  /// O(1): no row is loaded.
  public convenience init(
    ids: [Int64], batchSize: Int, maxLoadedBatches: Int = 4,
    fault: @escaping (ArraySlice<Int64>) throws -> [FetchedObject]
  ) {
    self.init(
      list: SortedIDList(ids: ids, keys: nil, objects: nil, ascending: [], idAscending: true), batchSize: batchSize,
      maxLoadedBatches: maxLoadedBatches, fault: fault)
  }

  /// O(1): no row is loaded.
  public init(
    list: SortedIDList, batchSize: Int, maxLoadedBatches: Int = 4,
    fault: @escaping (ArraySlice<Int64>) throws -> [FetchedObject]
  ) {
    precondition(batchSize > 0 && maxLoadedBatches > 0)
    self.list = list
    self.batchSize = batchSize
    self.maxLoadedBatches = maxLoadedBatches
    self.fault = fault
  }

  public var count: Int { list.count }

  /// Indexes of the batches in memory, least recently used first.
  public var loadedBatches: [Int] { recency }

  /// The object at `index`, faulting its whole batch in with one query if needed.
  /// O(1) when loaded; one query and O(batchSize) otherwise.
  public func object(at index: Int) throws -> FetchedObject {
    precondition(index >= 0 && index < list.count, "index \(index) out of 0..<\(list.count)")
    let batch = index / batchSize
    if let objects = loaded[batch] {
      if recency.last != batch {
        recency.removeAll { $0 == batch }
        recency.append(batch)
      }
      return objects[index - batch * batchSize]
    }
    let objects = try load(batch)
    return objects[index - batch * batchSize]
  }

  private func load(_ batch: Int) throws -> [FetchedObject] {
    let range = (batch * batchSize)..<min(list.count, (batch + 1) * batchSize)
    let slice = list.ids(range)
    let rows = try fault(slice)
    faults += 1
    // Put rows into ID order: a batch is small, so a linear match beats building a dictionary.
    var ordered: [FetchedObject] = []
    ordered.reserveCapacity(range.count)
    for id in slice {
      guard let row = rows.first(where: { $0.id == id }) else {
        throw FetchError.objectDeleted(id: id)
      }
      ordered.append(row)
    }
    if recency.count == maxLoadedBatches {
      loaded[recency.removeFirst()] = nil
    }
    loaded[batch] = ordered
    recency.append(batch)
    InternalChecks.check("BatchFaultingArray after faulting batch \(batch)", invariantViolations())
    return ordered
  }

  /// After the list changed: drops the loaded batches that start at or after `position` (their
  /// rows shifted) or that hold one of `changed` (their values changed). Batches before the
  /// first change stay valid. O(loaded batches × batch size).
  public func invalidate(from position: Int, changed: Set<Int64>) {
    for batch in recency {
      let end = (batch + 1) * batchSize
      if end > position || loaded[batch]!.contains(where: { changed.contains($0.id) }) {
        loaded[batch] = nil
      }
    }
    recency.removeAll { loaded[$0] == nil }
    InternalChecks.check("BatchFaultingArray after invalidating from \(position)", invariantViolations())
  }

  /// Releases every loaded batch (they fault in again on access).
  public func releaseAll() {
    loaded.removeAll()
    recency.removeAll()
    InternalChecks.check("BatchFaultingArray after releasing all", invariantViolations())
  }

  /// Checks the structure's invariants; tests call it after every operation.
  /// Returns the violations found, empty when sound.
  public func invariantViolations() -> [String] {
    var problems: [String] = []
    if loaded.count > maxLoadedBatches {
      problems.append("\(loaded.count) batches loaded, limit \(maxLoadedBatches)")
    }
    if Set(recency) != Set(loaded.keys) || recency.count != loaded.count {
      problems.append("recency list \(recency) does not match loaded batches \(loaded.keys.sorted())")
    }
    for (batch, objects) in loaded {
      let start = batch * batchSize
      let expected = list.ids(start..<min(list.count, start + batchSize))
      if !objects.map(\.id).elementsEqual(expected) {
        problems.append("batch \(batch) holds ids out of order")
      }
    }
    return problems
  }
}
