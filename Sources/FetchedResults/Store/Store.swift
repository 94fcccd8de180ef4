/// One materialized row: its primary key and its values in the request's `RowLayout` order.
public struct FetchedObject: Sendable, Equatable {
  public let id: Int64
  public let values: [Value]
  public let layout: RowLayout

  public init(id: Int64, values: [Value], layout: RowLayout) {
    self.id = id
    self.values = values
    self.layout = layout
  }

  /// The value for `key` (`name` or `relationship.name`), nil if the layout lacks it.
  /// O(keys) lookup; prefer `values[i]` with an index from `layout.index(of:)` in loops.
  public subscript(key: String) -> Value? { layout.index(of: key).map { values[$0] } }
}

/// What a store has done since its counters were last reset. Tests assert these exactly.
public struct StoreCounters: Sendable, Equatable {
  /// Statements executed (or, in memory, query evaluations).
  public var queries = 0
  /// Rows turned into `FetchedObject`s.
  public var rowsMaterialized = 0
  /// Requests sent to a server and answered (0 for embedded stores): statements, and
  /// transaction control (BEGIN, COMMIT) when writing.
  public var roundTrips = 0
  /// Result bytes received from a server (0 for embedded stores): the DataRow messages,
  /// as on the wire (header, column count, a length and the bytes per column).
  public var bytesReceived = 0
  /// Of `queries`, those a store issuing Core Data's statements adds of FetchBench's own:
  /// the sort keys its change tracking keeps, which Core Data reads from its objects instead.
  public var ownQueries = 0
  /// Transactions committed: one per `commit` that succeeds, two on a Core Data file where a
  /// save that inserts allocates its keys in a transaction of its own.
  public var commits = 0
  public init() {}
}

/// A section of a grouped count: the section key's value and how many rows have it.
public struct SectionCount: Sendable, Equatable {
  public var value: Value
  public var count: Int
  public init(value: Value, count: Int) {
    self.value = value
    self.count = count
  }
}

/// One write of a transaction.
public enum WriteOperation: Sendable, Equatable {
  /// Inserts a row; `values` are by attribute name, and may include `id`.
  case insert(entity: String, values: [String: Value])
  case update(entity: String, id: Int64, values: [String: Value])
  case delete(entity: String, id: Int64)

  /// The entity written. O(1).
  public var entity: String {
    switch self {
    case .insert(let entity, _), .update(let entity, _, _), .delete(let entity, _): entity
    }
  }
}

/// What one committed transaction changed in one entity (NSManagedObjectContextDidSave).
public struct EntityChanges: Sendable, Equatable {
  public var entity: String
  public var inserted: [Int64] = []
  /// Updated IDs with the attribute names whose values changed.
  public var updated: [Int64: Set<String>] = [:]
  public var deleted: [Int64] = []
  /// Values before the transaction: of the changed attributes for updated objects, of every
  /// attribute for deleted ones (Core Data's committed values). Change tracking needs them
  /// to find who pointed at a row through a relationship that is gone now.
  public var oldValues: [Int64: [String: Value]] = [:]
  /// For every inserted, updated and deleted row, its link attributes (`Model.linkAttributes`)
  /// as written (deleted rows: as they were). Observers find related objects through them
  /// without a query.
  public var links: [Int64: [String: Value]] = [:]
  public init(entity: String) { self.entity = entity }
}

/// Accumulates a transaction's changes per entity, folding them as Core Data's save does: an
/// object inserted then deleted in one transaction is not reported; a deleted object is not
/// also reported as updated; an inserted object's updates are part of its insert.
public struct ChangeRecorder: Sendable {
  public private(set) var changes: [EntityChanges] = []
  public init() {}

  private mutating func with(_ entity: String, _ body: (inout EntityChanges) -> Void) {
    if let i = changes.firstIndex(where: { $0.entity == entity }) {
      body(&changes[i])
    } else {
      var c = EntityChanges(entity: entity)
      body(&c)
      changes.append(c)
    }
  }

  public mutating func inserted(_ entity: String, _ id: Int64, links: [String: Value] = [:]) {
    with(entity) {
      $0.inserted.append(id)
      $0.links[id] = links
    }
  }

  /// Records the link attributes of a row written in this transaction.
  public mutating func linked(_ entity: String, _ id: Int64, _ links: [String: Value]) {
    guard !links.isEmpty else { return }
    with(entity) { $0.links[id, default: [:]].merge(links) { _, new in new } }
  }

  /// Records an update; `old` holds the previous values of the attributes that changed.
  public mutating func updated(_ entity: String, _ id: Int64, old: [String: Value]) {
    guard !old.isEmpty else { return }
    with(entity) { c in
      guard !c.inserted.contains(id) else { return }
      c.updated[id, default: []].formUnion(old.keys)
      // A second update in one transaction keeps the values from before the first.
      c.oldValues[id, default: [:]].merge(old) { earlier, _ in earlier }
    }
  }

  /// Records a delete; `old` holds the row's values as it was deleted.
  public mutating func deleted(_ entity: String, _ id: Int64, old: [String: Value]) {
    with(entity) { c in
      if let i = c.inserted.firstIndex(of: id) {
        c.inserted.remove(at: i)
      } else {
        c.updated[id] = nil
        c.deleted.append(id)
        c.oldValues[id] = old.merging(c.oldValues[id] ?? [:]) { _, earlier in earlier }
      }
    }
  }
}

/// A committed transaction, as stores report it to observers.
public struct StoreTransaction: Sendable, Equatable {
  /// Increases by one per transaction committed through this store.
  public var sequence: Int
  public var changes: [EntityChanges]

  public init(sequence: Int, changes: [EntityChanges]) {
    self.sequence = sequence
    self.changes = changes
  }
  /// The changes to `entity`, if any.
  public func changes(for entity: String) -> EntityChanges? { changes.first { $0.entity == entity } }
}

/// What the engine needs from a storage engine, and nothing store-specific.
///
/// Every method takes a request already resolved against `model`. Stores count the queries
/// they issue and the rows they materialize in `counters`.
public protocol Store: AnyObject {
  var model: Model { get }
  var counters: StoreCounters { get }
  func resetCounters()

  /// The primary keys matching the request, in its total order, limit and offset applied.
  /// One query.
  func fetchIDs(_ request: ResolvedRequest) throws -> [Int64]

  /// The rows for `ids`, in any order; IDs that no longer exist are absent. One query.
  func fetchObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject]

  /// Every matching row, in order, limit and offset applied (a full fetch). One query.
  func fetchObjects(_ request: ResolvedRequest) throws -> [FetchedObject]

  /// How many rows match, limit and offset applied. One query.
  func count(_ request: ResolvedRequest) throws -> Int

  /// Rows per value of the section key path, in the order of the first sort descriptor, by
  /// one grouped query, never by loading rows.
  func sectionCounts(_ request: ResolvedRequest) throws -> [SectionCount]

  /// `fetchIDs` and `sectionCounts` of a sectioned request together. A store that can read the
  /// section key beside each ID counts the sections from its runs (the request sorts by it
  /// first): one query, one snapshot, and no second sort for a grouped count. O(n).
  func fetchIDsAndSections(_ request: ResolvedRequest) throws -> (ids: [Int64], sections: [SectionCount])

  /// Applies `operations` atomically, reports what changed, and tells `observers` after the
  /// commit. Nothing is applied or reported when it throws.
  @discardableResult
  func commit(_ operations: [WriteOperation]) throws -> StoreTransaction

  // MARK: change tracking

  /// IDs with their sort keys (every sort descriptor but the final primary key). With `ids`
  /// nil: every matching row, in the request's order (limit and offset applied). Otherwise
  /// those of `ids` that exist and match the predicate now, in any order. One query.
  func fetchKeyedIDs(_ request: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs

  /// IDs of the request's entity whose relationship `relationship` points at any of
  /// `destinationIDs` now. When the relationship points at the destination's primary key,
  /// also the rows whose key names one of `destinationIDs` that no longer exists (a key left
  /// pointing at a deleted row). One query.
  func relatedIDs(_ request: ResolvedRequest, through relationship: Relationship, destinationIDs: [Int64]) throws
    -> [Int64]

  /// A relationship fault fired on one related object: the attributes of `relationship`'s
  /// destination row whose `destinationColumn` is `key`, in the destination entity's order;
  /// nil when no row has it. One query (Core Data's plan: `… FROM ZDEST t0 WHERE t0.Z_PK = ?`).
  func fetchDestination(of relationship: Relationship, key: Int64) throws -> [Value]?

  /// The destination rows `relationship` links to each of `keys` (values of the source's
  /// `sourceColumn`), each with the destination's attributes in order, by key; a key without
  /// elements is absent. One query: a to-many relationship fault (one key), or its prefetch
  /// for a batch of rows.
  func fetchElements(of relationship: ToManyRelationship, keys: [Int64]) throws -> [Int64: [FetchedObject]]

  /// Every row of a many-to-many relationship's join table, as (source key, destination key):
  /// what a memory store loads. One query.
  func fetchJoinRows(_ table: JoinTable) throws -> [(source: Int64, destination: Int64)]

  /// Called after each transaction this store commits, on the committing thread.
  var observers: TransactionObservers { get }

  /// What changes whenever the stored data may have, across processes (a file's size and
  /// modification time); nil when the store cannot say, which disables the section cache.
  var dataVersion: String? { get }
}

extension Store {
  /// No version: the section cache is never used.
  public var dataVersion: String? { nil }

  /// The two queries, for stores without a single-query form.
  public func fetchIDsAndSections(_ request: ResolvedRequest) throws -> (ids: [Int64], sections: [SectionCount]) {
    (try fetchIDs(request), try sectionCounts(request))
  }
}

/// IDs and their sort keys, column by column: `keys[d][i]` is descriptor d of `ids[i]`.
public struct KeyedIDs: Sendable, Equatable {
  public var ids: [Int64]
  public var keys: [[Value]]
  public init(ids: [Int64], keys: [[Value]]) {
    self.ids = ids
    self.keys = keys
  }
  /// The sort key of the i-th ID. O(descriptors).
  public func key(_ i: Int) -> [Value] { keys.map { $0[i] } }
}

/// The observers of a store's transactions (NSManagedObjectContextDidSave's listeners).
public final class TransactionObservers {
  private var observers: [Int: (StoreTransaction) -> Void] = [:]
  private var next = 0
  public init() {}

  /// Adds an observer; keep the token to remove it. O(1).
  public func add(_ observer: @escaping (StoreTransaction) -> Void) -> Int {
    next += 1
    observers[next] = observer
    return next
  }

  public func remove(_ token: Int) { observers[token] = nil }

  /// Calls every observer, in the order they were added.
  public func notify(_ t: StoreTransaction) {
    for key in observers.keys.sorted() { observers[key]?(t) }
  }

  public var isEmpty: Bool { observers.isEmpty }
}
