// The values `FetchedResultsController.apply` computes a change set from, one type per step:
// the objects a transaction touched, where they were and go, the sections after it, and the
// rows a table view inserts, deletes, moves and reloads.

/// The list's objects one transaction touched.
struct TouchedObjects {
  /// Every object of the list entity the transaction touched, directly or through a
  /// relationship.
  var affected = Set<Int64>()
  /// Those whose shown values changed (a reload, or a move that carries new contents).
  var contentChanged = Set<Int64>()
  /// Those whose current keys the store must give: inserted, or written in what orders or
  /// filters the list. The others keep the list's keys.
  var needKeys = Set<Int64>()
  /// Those deleted.
  var gone = Set<Int64>()

  /// Adds the list entity's own changes; `relevant` are the attributes that order or filter it.
  mutating func add(_ own: EntityChanges, relevant: Set<String>) {
    affected.formUnion(own.inserted)
    affected.formUnion(own.deleted)
    affected.formUnion(own.updated.keys)
    contentChanged.formUnion(own.updated.keys)
    needKeys.formUnion(own.inserted)
    gone = Set(own.deleted).subtracting(own.inserted)
    for (id, changed) in own.updated where !changed.isDisjoint(with: relevant) { needKeys.insert(id) }
  }
}

/// Where the touched objects were in the list and where they go. O(k log n) for k objects.
struct Placement {
  /// The touched objects in the list before, by position.
  var removed: [(position: Int, id: Int64)]
  var removedPositions: [Int]
  /// The touched objects in the list after, by new position: `gap` is the position among the
  /// untouched rows they go before.
  var added: [(key: [Value], id: Int64, gap: Int)]
  var newPosition: [Int64: Int] = [:]
  /// Position before, and rank among the removed.
  var oldPosition: [Int64: (position: Int, rank: Int)] = [:]

  init(_ affected: Set<Int64>, now: KeyedIDs, in list: SortedIDList) {
    removed = affected.compactMap { id in list.position(of: id).map { ($0, id) } }
    removed.sort { $0.position < $1.position }
    let positions = removed.map(\.position)
    removedPositions = positions
    added = now.ids.indices.map { i in
      let key = now.key(i)
      let p = list.insertionPoint(key: key, id: now.ids[i])
      return (key, now.ids[i], p - lowerBound(positions, p))
    }
    added.sort { a, b in a.gap != b.gap ? a.gap < b.gap : list.orders(a.key, a.id, before: b.key, b.id) }
    for (j, a) in added.enumerated() { newPosition[a.id] = a.gap + j }
    for (rank, r) in removed.enumerated() { oldPosition[r.id] = (r.position, rank) }
  }

  /// The objects on both sides whose sort key (the section key first) is not the one `list`
  /// kept: Core Data moves each of them. O(k).
  func keyChanged(in list: SortedIDList) -> Set<Int64> {
    Set(added.compactMap { a in oldPosition[a.id].flatMap { list.key(at: $0.position) != a.key ? a.id : nil } })
  }
}

/// The sections after a transaction: old counts less the removed rows, plus the added rows
/// by section key, merged in section order with sections that did not exist. O(k log s + s).
struct SectionMerge {
  var newSections: [SectionInfo]
  /// Old sections left empty, by old index.
  var deletedOld: [Int] = []
  /// New sections, by new index.
  var inserted = Set<Int>()
  /// The old section of each removed object.
  var oldSectionOf: [Int64: Int] = [:]
  let sectioned: Bool

  init(old: [SectionInfo], _ p: Placement, sectioned: Bool, ascending: Bool, order: KeyOrder = .values) {
    self.sectioned = sectioned
    var counts = old.map(\.numberOfObjects)
    for r in p.removed {
      let s = sectioned ? old.rowPath(forGlobalIndex: r.position)!.section : 0
      oldSectionOf[r.id] = s
      counts[s] -= 1
    }
    var newValues: [Value] = []  // section values that did not exist, in order
    var addedTo: [Value: Int] = [:]
    for a in p.added {
      let v = sectioned ? a.key[0] : .null
      if let s = FetchedResultsController.sectionIndex(old, v, ascending: ascending, order: order) {
        counts[s] += 1
      } else {
        if addedTo[v] == nil { newValues.append(v) }
        addedTo[v, default: 0] += 1
      }
    }
    var merged: [SectionCount] = []
    var (nextOld, nextNew) = (0, 0)
    while nextOld < old.count || nextNew < newValues.count {
      let takeOld: Bool
      if nextOld == old.count {
        takeOld = false
      } else if nextNew == newValues.count {
        takeOld = true
      } else {
        let c = order.compare(old[nextOld].value, newValues[nextNew])
        takeOld = ascending ? c < 0 : c > 0
      }
      if takeOld {
        if counts[nextOld] > 0 || !sectioned {
          merged.append(SectionCount(value: old[nextOld].value, count: counts[nextOld]))
        } else {
          deletedOld.append(nextOld)
        }
        nextOld += 1
      } else {
        inserted.insert(merged.count)
        merged.append(SectionCount(value: newValues[nextNew], count: addedTo[newValues[nextNew]]!))
        nextNew += 1
      }
    }
    newSections = SectionInfo.from(merged)
  }
}

/// The rows a table view changes. Objects on both sides stay when as many untouched rows
/// precede them before and after, in the same section, and their order among such objects is
/// kept (a longest increasing subsequence); the others move: the minimal set of moves for
/// the transaction. O(k log k).
struct RowChanges {
  let p: Placement
  let merge: SectionMerge
  let old: [SectionInfo]
  let contentChanged: Set<Int64>
  /// Objects reported as moved even where they could stay (Core Data's rules).
  let alwaysMoved: Set<Int64>

  init(
    _ p: Placement, _ merge: SectionMerge, old: [SectionInfo], contentChanged: Set<Int64>, alwaysMoved: Set<Int64> = []
  ) {
    (self.p, self.merge, self.old, self.contentChanged, self.alwaysMoved) = (p, merge, old, contentChanged, alwaysMoved)
  }

  /// The objects that keep their place, and those that move.
  func classify() -> (staying: Set<Int64>, moving: [Int64]) {
    var stayCandidates: [(id: Int64, old: Int, new: Int)] = []
    var moving: [Int64] = []
    for a in p.added {
      guard let was = p.oldPosition[a.id] else { continue }
      let sameGap = was.position - was.rank == a.gap
      let sameSection = !merge.sectioned || old[merge.oldSectionOf[a.id]!].value == a.key[0]
      if sameGap && sameSection {
        stayCandidates.append((a.id, was.position, p.newPosition[a.id]!))
      } else {
        moving.append(a.id)
      }
    }
    stayCandidates.sort { $0.new < $1.new }
    var staying = Set<Int64>()
    for i in longestIncreasingSubsequence(stayCandidates.map(\.old)) { staying.insert(stayCandidates[i].id) }
    staying.subtract(alwaysMoved)
    moving += stayCandidates.filter { !staying.contains($0.id) }.map(\.id)
    return (staying, moving)
  }

  /// Writes the deletes, inserts, moves, reloads and inserted sections into `result`.
  func write(into result: inout ChangeSet) {
    let (staying, moving) = classify()
    let deletedSections = Set(merge.deletedOld)
    func oldPath(_ id: Int64) -> RowPath { old.rowPath(forGlobalIndex: p.oldPosition[id]!.position)! }
    func newPath(_ id: Int64) -> RowPath { merge.newSections.rowPath(forGlobalIndex: p.newPosition[id]!)! }
    var sectionInsertRows: [Int: [(Int, Int64)]] = [:]
    func insertRow(_ id: Int64) {
      let to = newPath(id)
      if merge.inserted.contains(to.section) {
        sectionInsertRows[to.section, default: []].append((to.row, id))
      } else {
        result.inserts.append(ChangeSet.Row(to, id: id))
      }
    }
    func deleteRow(_ id: Int64) {
      let from = oldPath(id)
      if !deletedSections.contains(from.section) { result.deletes.append(ChangeSet.Row(from, id: id)) }
    }
    for r in p.removed where p.newPosition[r.id] == nil { deleteRow(r.id) }
    for a in p.added where p.oldPosition[a.id] == nil { insertRow(a.id) }
    for id in moving {
      let (from, to) = (oldPath(id), newPath(id))
      // A move whose old and new paths coincide (rows around it shifted) is not a reload:
      // its neighbours changed. UIKit cannot take it as a move, so it is a delete + insert.
      if deletedSections.contains(from.section) || merge.inserted.contains(to.section) || from == to {
        deleteRow(id)
        insertRow(id)
      } else {
        result.moves.append(ChangeSet.Move(from: from, to: to, id: id, contentChanged: contentChanged.contains(id)))
      }
    }
    for id in staying where contentChanged.contains(id) {
      result.reloads.append(ChangeSet.Row(oldPath(id), id: id))
    }
    for s in merge.inserted.sorted() {
      let rows = sectionInsertRows[s, default: []].sorted { $0.0 < $1.0 }.map(\.1)
      result.sectionInserts.append(ChangeSet.SectionInsert(index: s, name: merge.newSections[s].name, ids: rows))
    }
  }
}
