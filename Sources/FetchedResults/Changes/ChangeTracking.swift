/// Receives the controller's change sets (NSFetchedResultsControllerDelegate, reduced to the
/// one callback a batch update needs).
public protocol FetchedResultsControllerDelegate: AnyObject {
  func controller(_ controller: FetchedResultsController, didChange changes: ChangeSet)
}

/// Counters of change tracking: what it cost in store work, and how often it had to fall back.
public struct TrackingStats: Sendable, Equatable {
  public var transactions = 0
  /// Objects of the list entity a transaction touched, directly or through a relationship.
  public var affectedObjects = 0
  /// Times the results were refetched and diffed instead (an unmappable related delete, or
  /// an error while applying a transaction).
  public var refetches = 0
  /// Affected objects whose keys were read from the store; the others kept the list's (no
  /// write touched what orders or filters them).
  public var keysRead = 0
  public init() {}
}

extension FetchedResultsController {
  func storeDidCommit(_ transaction: StoreTransaction) {
    let changes: ChangeSet
    do {
      changes = try apply(transaction)
    } catch {
      lastTrackingError = error
      guard let recovered = try? refetchAndDiff(transaction) else { return }
      changes = recovered
    }
    guard !changes.isEmpty else { return }
    delegate?.controller(self, didChange: changes)
    for c in continuations.values { c.yield(changes) }
  }

  /// Applies one committed transaction to the results and returns the change set a table view
  /// needs, computed from the changed objects only, as Core Data does: one query for the
  /// current keys of the affected objects that a write may have moved or filtered (inserted,
  /// or an attribute of the sort, predicate, section or a join changed; the others keep the
  /// list's keys, and deleted ones need none), plus one per relationship whose foreign key sits
  /// in the list's own rows, when its destination changed; positions by binary search on the
  /// kept sort keys, no row faulted and no whole-list diff. Called by the store's observer;
  /// public so that benchmarks can time it and so that transactions from another process can
  /// be applied.
  ///
  /// O(k log n + k · chunk) for k affected objects on n rows.
  @discardableResult
  public func apply(_ transaction: StoreTransaction) throws -> ChangeSet {
    let changes = try applyTransaction(transaction)
    InternalChecks.check("FetchedResultsController after transaction \(transaction.sequence)", invariantViolations())
    return changes
  }

  /// The steps of `apply`, each over the values the one before it produced.
  private func applyTransaction(_ transaction: StoreTransaction) throws -> ChangeSet {
    guard let resolved = resolvedRequest, let list, list.tracksKeys else { return ChangeSet() }
    trackingStats.transactions += 1
    guard let touched = try touchedObjects(transaction, resolved) else { return try refetchAndDiff(transaction) }
    trackingStats.affectedObjects += touched.affected.count
    var result = ChangeSet()
    result.transactions = transaction.sequence...transaction.sequence
    result.oldSectionCounts = sections.map(\.numberOfObjects)
    guard !touched.affected.isEmpty else {
      result.newSectionCounts = result.oldSectionCounts
      return result
    }
    let placement = try place(touched, resolved, list)
    let merge = SectionMerge(
      old: sections, placement, sectioned: resolved.section != nil, ascending: resolved.sorts.first?.ascending ?? true,
      order: resolved.sorts.first?.order ?? .values)
    result.sectionDeletes = merge.deletedOld
    result.newSectionCounts = merge.newSections.map(\.numberOfObjects)
    let alwaysMoved = changeRules == .coreData ? placement.keyChanged(in: list) : []
    RowChanges(placement, merge, old: sections, contentChanged: touched.contentChanged, alwaysMoved: alwaysMoved)
      .write(into: &result)
    result.normalize()
    try update(list, placement, merge.newSections, touched.contentChanged, resolved)
    return result
  }

  /// The list's objects a transaction touched: directly, or through a relationship the list
  /// joins. nil when it cannot be told without a refetch (a destination row deleted whose
  /// owners only the store knew). One query per relationship whose foreign key sits in the
  /// list's rows and whose destination changed.
  private func touchedObjects(_ transaction: StoreTransaction, _ resolved: ResolvedRequest) throws -> TouchedObjects? {
    var touched = TouchedObjects()
    let ordering = orderingAttributes
    if let own = transaction.changes(for: resolved.entity.name) {
      touched.add(own, relevant: ordering[resolved.entity.name] ?? [])
    }
    // Core Data does not observe related objects: what they order or filter goes stale.
    for r in resolved.joins where changeRules == .minimal {
      guard let d = transaction.changes(for: r.destination) else { continue }
      let relevant = ordering[r.destination] ?? []
      // A destination row inserted, deleted, or changed in what orders or filters the list.
      func moves(_ id: Int64) -> Bool { d.updated[id].map { !$0.isDisjoint(with: relevant) } ?? true }
      var owners = Set<Int64>()
      if r.sourceColumn == resolved.entity.primaryKey {
        // The destination holds the foreign key: the transaction reports it for every row
        // written (as it is now, and as it was for changed and deleted rows). No query.
        let destination = try store.model.entity(r.destination)
        guard let fk = destination.attributes.first(where: { $0.column == r.destinationColumn })?.name else { continue }
        for id in d.inserted + Array(d.updated.keys) + d.deleted {
          let moved = moves(id)
          for value in [d.links[id]?[fk], d.oldValues[id]?[fk]] {
            guard case .integer(let owner)? = value else { continue }
            owners.insert(owner)
            if moved { touched.needKeys.insert(owner) }
          }
        }
      } else {
        // The list's rows hold the foreign key: ask the store who points at the rows now.
        let written = d.inserted + Array(d.updated.keys)
        let byPrimaryKey = try r.destinationColumn == store.model.entity(r.destination).primaryKey
        // Destination rows that are gone: by primary key the store still finds the rows whose
        // key names them (a row whose key the transaction changed is among the list's own
        // changes); by another column they cannot name their owners, and a refetch is correct.
        guard d.deleted.isEmpty || byPrimaryKey else { return nil }
        owners = Set(try store.relatedIDs(resolved, through: r, destinationIDs: written + d.deleted))
        if !d.deleted.isEmpty || written.contains(where: moves) { touched.needKeys.formUnion(owners) }
      }
      touched.affected.formUnion(owners)
      if resolved.prefetch.contains(r) { touched.contentChanged.formUnion(owners) }
    }
    guard try touchThroughToMany(transaction, resolved, into: &touched) else { return nil }
    touched.needKeys.subtract(touched.gone)
    return touched
  }

  /// Where the touched objects were and where they go: their current keys (one query, the
  /// predicate applied) where a write may have moved them, the list's kept keys elsewhere;
  /// new positions by binary search on the kept keys. O(k log n).
  private func place(_ touched: TouchedObjects, _ resolved: ResolvedRequest, _ list: SortedIDList) throws -> Placement {
    var now =
      touched.needKeys.isEmpty
      ? KeyedIDs(ids: [], keys: Array(repeating: [], count: resolved.sorts.count - 1))
      : try store.fetchKeyedIDs(resolved, ids: Array(touched.needKeys))
    trackingStats.keysRead += touched.needKeys.count
    for id in touched.affected where !touched.needKeys.contains(id) && !touched.gone.contains(id) {
      guard let p = list.position(of: id) else { continue }
      now.ids.append(id)
      for (d, value) in list.key(at: p).enumerated() { now.keys[d].append(value) }
    }
    return Placement(touched.affected, now: now, in: list)
  }

  /// Brings the list to the transaction's state: the ID list and its keys, the rows (full
  /// fetch: unchanged rows keep their objects, new and changed ones come in one query), the
  /// loaded batches from the first changed position, the sections.
  private func update(
    _ list: SortedIDList, _ p: Placement, _ newSections: [SectionInfo], _ contentChanged: Set<Int64>,
    _ resolved: ResolvedRequest
  ) throws {
    var objects: [Int64: FetchedObject] = [:]
    if case .full = contents {
      for r in p.removed where !contentChanged.contains(r.id) { objects[r.id] = list.object(at: r.position) }
      let needed = p.added.map(\.id).filter { objects[$0] == nil }
      if !needed.isEmpty {
        for o in try store.fetchObjects(resolved, ids: ArraySlice(needed)) { objects[o.id] = o }
      }
    }
    var insertions: [(gap: Int, id: Int64, key: [Value], object: FetchedObject?)] = []
    insertions.reserveCapacity(p.added.count)
    for a in p.added {
      if case .full = contents, objects[a.id] == nil {
        throw FetchError.store("object \(a.id) vanished between two queries of one transaction")
      }
      insertions.append((a.gap, a.id, a.key, objects[a.id]))
    }
    list.apply(removals: p.removedPositions, insertions: insertions)
    let firstChange = min(p.removedPositions.first ?? Int.max, p.added.first.map { p.newPosition[$0.id]! } ?? Int.max)
    if case .batched(let array) = contents {
      array.invalidate(from: firstChange, changed: contentChanged)
    }
    sections = newSections
  }

  /// The fallback: refetch everything and diff the snapshots (minimal moves).
  func refetchAndDiff(_ transaction: StoreTransaction) throws -> ChangeSet {
    trackingStats.refetches += 1
    let before = snapshot()
    try performFetch()
    var c = ListDiff.diff(from: before, to: snapshot())
    c.transactions = transaction.sequence...transaction.sequence
    return c
  }

  /// The index of the section whose value is `v`, by binary search in section order.
  static func sectionIndex(
    _ sections: [SectionInfo], _ v: Value, ascending: Bool, order: KeyOrder = .values
  ) -> Int? {
    var lo = 0
    var hi = sections.count
    while lo < hi {
      let mid = (lo + hi) / 2
      let c = order.compare(sections[mid].value, v)
      // Values a collation holds equal are one place in the order, yet two sections.
      if c == 0 && sections[mid].value == v { return mid }
      if c == 0 { return Self.sectionIndexAmongEqual(sections, v, around: mid, order: order) }
      if (c < 0) == ascending { lo = mid + 1 } else { hi = mid }
    }
    return nil
  }

  /// The section of value `v` among the neighbours of `mid` that `order` holds equal to it.
  /// O(equal sections).
  static func sectionIndexAmongEqual(_ sections: [SectionInfo], _ v: Value, around mid: Int, order: KeyOrder) -> Int? {
    var i = mid
    while i > 0 && order.compare(sections[i - 1].value, v) == 0 { i -= 1 }
    while i < sections.count && order.compare(sections[i].value, v) == 0 {
      if sections[i].value == v { return i }
      i += 1
    }
    return nil
  }
}

/// The number of elements of sorted `a` less than `x`. O(log n).
func lowerBound(_ a: [Int], _ x: Int) -> Int {
  var lo = 0
  var hi = a.count
  while lo < hi {
    let mid = (lo + hi) / 2
    if a[mid] < x { lo = mid + 1 } else { hi = mid }
  }
  return lo
}

extension ResolvedRequest {
  /// Per entity name, the attributes whose change can move a row of this list or change
  /// whether it matches: those of the sort, the predicate and the section, and the join
  /// columns on both sides. A write that changes none of them leaves the row's key as kept.
  var orderingAttributes: [String: Set<String>] {
    var out: [String: Set<String>] = [:]
    for k in sorts.map(\.keyPath) + (predicate?.keyPaths ?? []) + (section.map { [$0] } ?? []) {
      out[k.entity.name, default: []].insert(k.attribute.name)
    }
    for r in joins {
      if let fk = entity.attributes.first(where: { $0.column == r.sourceColumn }) {
        out[entity.name, default: []].insert(fk.name)
      }
      if let destination = try? model.entity(r.destination),
        let key = destination.attributes.first(where: { $0.column == r.destinationColumn })
      {
        out[r.destination, default: []].insert(key.name)
      }
    }
    return out
  }
}
