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
  /// kept sort keys, no row faulted and no whole-list diff. Called by the store's observer; public so that benchmarks can
  /// time it and so that transactions from another process can be applied.
  ///
  /// O(k log n + k · chunk) for k affected objects on n rows.
  @discardableResult
  public func apply(_ transaction: StoreTransaction) throws -> ChangeSet {
    let changes = try applyTransaction(transaction)
    InternalChecks.check("FetchedResultsController after transaction \(transaction.sequence)", invariantViolations())
    return changes
  }

  private func applyTransaction(_ transaction: StoreTransaction) throws -> ChangeSet {
    guard let resolved = resolvedRequest, let list, list.tracksKeys else { return ChangeSet() }
    trackingStats.transactions += 1
    // 1. The list's objects this transaction touched, and those whose shown values changed.
    var affected = Set<Int64>()
    var contentChanged = Set<Int64>()
    // Those whose current keys the store must give; of the others in the list, the kept key
    // holds, and `gone` are deleted.
    var needKeys = Set<Int64>()
    var gone = Set<Int64>()
    let ordering = orderingAttributes
    if let own = transaction.changes(for: resolved.entity.name) {
      affected.formUnion(own.inserted)
      affected.formUnion(own.deleted)
      affected.formUnion(own.updated.keys)
      contentChanged.formUnion(own.updated.keys)
      needKeys.formUnion(own.inserted)
      gone = Set(own.deleted).subtracting(own.inserted)
      let relevant = ordering[resolved.entity.name] ?? []
      for (id, changed) in own.updated where !changed.isDisjoint(with: relevant) { needKeys.insert(id) }
    }
    for r in resolved.joins {
      guard let d = transaction.changes(for: r.destination) else { continue }
      var owners = Set<Int64>()
      let relevant = ordering[r.destination] ?? []
      // A destination row inserted, deleted, or changed in what orders or filters the list.
      func moves(_ id: Int64) -> Bool { d.updated[id].map { !$0.isDisjoint(with: relevant) } ?? true }
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
            if moved { needKeys.insert(owner) }
          }
        }
      } else {
        // The list's rows hold the foreign key: ask the store who points at the rows now.
        owners = Set(try store.relatedIDs(resolved, through: r, destinationIDs: d.inserted + Array(d.updated.keys)))
        if !d.deleted.isEmpty {
          // Destination rows are gone and the store cannot name their owners any more.
          // Rare; correct by refetching.
          return try refetchAndDiff(transaction)
        }
        if (d.inserted + Array(d.updated.keys)).contains(where: moves) { needKeys.formUnion(owners) }
      }
      affected.formUnion(owners)
      if resolved.prefetch.contains(r) { contentChanged.formUnion(owners) }
    }
    trackingStats.affectedObjects += affected.count
    let oldSections = sections
    var result = ChangeSet()
    result.transactions = transaction.sequence...transaction.sequence
    result.oldSectionCounts = oldSections.map(\.numberOfObjects)
    guard !affected.isEmpty else {
      result.newSectionCounts = result.oldSectionCounts
      return result
    }

    // 2. Where they were, and where they go: their current keys, predicate applied; kept
    // from the list where no write touched them.
    needKeys.subtract(gone)
    var now =
      needKeys.isEmpty
      ? KeyedIDs(ids: [], keys: Array(repeating: [], count: resolved.sorts.count - 1))
      : try store.fetchKeyedIDs(resolved, ids: Array(needKeys))
    trackingStats.keysRead += needKeys.count
    for id in affected where !needKeys.contains(id) && !gone.contains(id) {
      guard let p = list.position(of: id) else { continue }
      now.ids.append(id)
      for (d, value) in list.key(at: p).enumerated() { now.keys[d].append(value) }
    }
    var removed: [(position: Int, id: Int64)] = affected.compactMap { id in list.position(of: id).map { ($0, id) } }
    removed.sort { $0.position < $1.position }
    let removedPositions = removed.map(\.position)
    func removedBefore(_ p: Int) -> Int { lowerBound(removedPositions, p) }

    var added: [(key: [Value], id: Int64, gap: Int)] = now.ids.indices.map { i in
      let key = now.key(i)
      let p = list.insertionPoint(key: key, id: now.ids[i])
      return (key, now.ids[i], p - removedBefore(p))
    }
    added.sort { a, b in a.gap != b.gap ? a.gap < b.gap : list.orders(a.key, a.id, before: b.key, b.id) }
    var newPosition: [Int64: Int] = [:]
    for (j, a) in added.enumerated() { newPosition[a.id] = a.gap + j }
    var oldPosition: [Int64: (position: Int, rank: Int)] = [:]
    for (rank, r) in removed.enumerated() { oldPosition[r.id] = (r.position, rank) }

    // 3. New sections: old counts minus the removed rows, plus the added rows by section key.
    let hasSections = resolved.section != nil
    let sectionAscending = resolved.sorts.first?.ascending ?? true
    var counts = oldSections.map(\.numberOfObjects)
    var oldSectionOf: [Int64: Int] = [:]
    for r in removed {
      let s = hasSections ? oldSections.rowPath(forGlobalIndex: r.position)!.section : 0
      oldSectionOf[r.id] = s
      counts[s] -= 1
    }
    var newValues: [Value] = []  // section values that did not exist, in order
    var addedTo: [Value: Int] = [:]
    for a in added {
      let v = hasSections ? a.key[0] : .null
      if let s = Self.sectionIndex(oldSections, v, ascending: sectionAscending) {
        counts[s] += 1
      } else {
        if addedTo[v] == nil { newValues.append(v) }
        addedTo[v, default: 0] += 1
      }
    }
    // Merge the surviving old sections with the new ones, in section order.
    var merged: [SectionCount] = []
    var newIndexOfOld = [Int?](repeating: nil, count: oldSections.count)
    var insertedSectionIndexes = Set<Int>()
    var o = 0
    var v = 0
    while o < oldSections.count || v < newValues.count {
      let takeOld: Bool
      if o == oldSections.count {
        takeOld = false
      } else if v == newValues.count {
        takeOld = true
      } else {
        let c = Value.compare(oldSections[o].value, newValues[v])
        takeOld = sectionAscending ? c < 0 : c > 0
      }
      if takeOld {
        if counts[o] > 0 || !hasSections {
          newIndexOfOld[o] = merged.count
          merged.append(SectionCount(value: oldSections[o].value, count: counts[o]))
        } else {
          result.sectionDeletes.append(o)
        }
        o += 1
      } else {
        insertedSectionIndexes.insert(merged.count)
        merged.append(SectionCount(value: newValues[v], count: addedTo[newValues[v]]!))
        v += 1
      }
    }
    let newSections = SectionInfo.from(merged)
    result.newSectionCounts = newSections.map(\.numberOfObjects)
    let deletedSections = Set(result.sectionDeletes)

    // 4. Classify. Objects on both sides stay when as many untouched rows precede them before
    // and after, in the same section, and their order among such objects is kept (an LIS);
    // the others move. This is the minimal set of moves for this transaction.
    var stayCandidates: [(id: Int64, old: Int, new: Int)] = []
    var moving: [Int64] = []
    for a in added {
      guard let old = oldPosition[a.id] else { continue }
      let new = newPosition[a.id]!
      let sameGap = old.position - old.rank == a.gap
      let sameSection = !hasSections || oldSections[oldSectionOf[a.id]!].value == a.key[0]
      if sameGap && sameSection { stayCandidates.append((a.id, old.position, new)) } else { moving.append(a.id) }
    }
    stayCandidates.sort { $0.new < $1.new }
    var staying = Set<Int64>()
    for i in longestIncreasingSubsequence(stayCandidates.map(\.old)) { staying.insert(stayCandidates[i].id) }
    moving += stayCandidates.filter { !staying.contains($0.id) }.map(\.id)

    func oldPath(_ id: Int64) -> RowPath { oldSections.rowPath(forGlobalIndex: oldPosition[id]!.position)! }
    func newPath(_ id: Int64) -> RowPath { newSections.rowPath(forGlobalIndex: newPosition[id]!)! }
    var sectionInsertRows: [Int: [(Int, Int64)]] = [:]
    func insertRow(_ id: Int64) {
      let p = newPath(id)
      if insertedSectionIndexes.contains(p.section) {
        sectionInsertRows[p.section, default: []].append((p.row, id))
      } else {
        result.inserts.append(ChangeSet.Row(p, id: id))
      }
    }
    func deleteRow(_ id: Int64) {
      let p = oldPath(id)
      if !deletedSections.contains(p.section) { result.deletes.append(ChangeSet.Row(p, id: id)) }
    }
    for r in removed where newPosition[r.id] == nil { deleteRow(r.id) }
    for a in added where oldPosition[a.id] == nil { insertRow(a.id) }
    for id in moving {
      let from = oldPath(id)
      let to = newPath(id)
      // A move whose old and new paths coincide (rows around it shifted) is not a reload:
      // its neighbours changed. UIKit cannot take it as a move, so it is a delete + insert.
      if deletedSections.contains(from.section) || insertedSectionIndexes.contains(to.section) || from == to {
        deleteRow(id)
        insertRow(id)
      } else {
        result.moves.append(ChangeSet.Move(from: from, to: to, id: id, contentChanged: contentChanged.contains(id)))
      }
    }
    for id in staying where contentChanged.contains(id) {
      result.reloads.append(ChangeSet.Row(oldPath(id), id: id))
    }
    for s in insertedSectionIndexes.sorted() {
      let rows = sectionInsertRows[s, default: []].sorted { $0.0 < $1.0 }.map(\.1)
      result.sectionInserts.append(ChangeSet.SectionInsert(index: s, name: newSections[s].name, ids: rows))
    }
    result.normalize()

    // 5. Apply: the ID list, the rows (full mode), the loaded batches, the sections.
    // Full mode: rows that stay unchanged keep their objects; new and changed ones are
    // fetched in one query.
    var objects: [Int64: FetchedObject] = [:]
    if case .full = contents {
      for r in removed where !contentChanged.contains(r.id) { objects[r.id] = list.object(at: r.position) }
      let needed = added.map(\.id).filter { objects[$0] == nil }
      if !needed.isEmpty {
        for o in try store.fetchObjects(resolved, ids: ArraySlice(needed)) { objects[o.id] = o }
      }
    }
    var insertions: [(gap: Int, id: Int64, key: [Value], object: FetchedObject?)] = []
    insertions.reserveCapacity(added.count)
    for a in added {
      if case .full = contents, objects[a.id] == nil {
        throw FetchError.store("object \(a.id) vanished between two queries of one transaction")
      }
      insertions.append((a.gap, a.id, a.key, objects[a.id]))
    }
    list.apply(removals: removedPositions, insertions: insertions)
    let firstChange = min(removedPositions.first ?? Int.max, added.first.map { newPosition[$0.id]! } ?? Int.max)
    if case .batched(let array) = contents {
      array.invalidate(from: firstChange, changed: contentChanged)
    }
    sections = newSections
    return result
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
  static func sectionIndex(_ sections: [SectionInfo], _ v: Value, ascending: Bool) -> Int? {
    var lo = 0
    var hi = sections.count
    while lo < hi {
      let mid = (lo + hi) / 2
      let c = Value.compare(sections[mid].value, v)
      if c == 0 { return mid }
      if (c < 0) == ascending { lo = mid + 1 } else { hi = mid }
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
      if let fk = entity.attributes.first(where: { $0.column == r.sourceColumn }) { out[entity.name, default: []].insert(fk.name) }
      if let destination = try? model.entity(r.destination),
        let key = destination.attributes.first(where: { $0.column == r.destinationColumn })
      {
        out[r.destination, default: []].insert(key.name)
      }
    }
    return out
  }
}
