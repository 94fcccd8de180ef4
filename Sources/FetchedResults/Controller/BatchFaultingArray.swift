/// Core Data's batched result array: every ID in order, rows loaded a batch at a time on first
/// touch, and at most `maxLoadedBatches` batches kept (least recently used released first).
///
/// After creation it holds only the IDs: 8 bytes per row.
public final class BatchFaultingArray {
  /// Every ID, in the request's order.
  public let ids: [Int64]
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
  public init(
    ids: [Int64], batchSize: Int, maxLoadedBatches: Int = 4,
    fault: @escaping (ArraySlice<Int64>) throws -> [FetchedObject]
  ) {
    precondition(batchSize > 0 && maxLoadedBatches > 0)
    self.ids = ids
    self.batchSize = batchSize
    self.maxLoadedBatches = maxLoadedBatches
    self.fault = fault
  }

  public var count: Int { ids.count }

  /// Indexes of the batches in memory, least recently used first.
  public var loadedBatches: [Int] { recency }

  /// The object at `index`, faulting its whole batch in with one query if needed.
  /// O(1) when loaded; one query and O(batchSize) otherwise.
  public func object(at index: Int) throws -> FetchedObject {
    precondition(index >= 0 && index < ids.count, "index \(index) out of 0..<\(ids.count)")
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
    let range = (batch * batchSize)..<min(ids.count, (batch + 1) * batchSize)
    let slice = ids[range]
    let rows = try fault(slice)
    faults += 1
    // Put rows into ID order: a batch is small, so a linear match beats building a dictionary.
    var ordered: [FetchedObject] = []
    ordered.reserveCapacity(range.count)
    for id in slice {
      guard let row = rows.first(where: { $0.id == id }) else {
        throw FetchError.store("the object with id \(id) no longer exists in the store")
      }
      ordered.append(row)
    }
    if recency.count == maxLoadedBatches {
      loaded[recency.removeFirst()] = nil
    }
    loaded[batch] = ordered
    recency.append(batch)
    return ordered
  }

  /// Releases every loaded batch (they fault in again on access).
  public func releaseAll() {
    loaded.removeAll()
    recency.removeAll()
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
      let expected = ids[start..<min(ids.count, start + batchSize)]
      if !objects.map(\.id).elementsEqual(expected) {
        problems.append("batch \(batch) holds ids out of order")
      }
    }
    return problems
  }
}
