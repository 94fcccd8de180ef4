/// The exception UIKit would raise for an invalid batch update, with its wording.
public struct BatchUpdateError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { "Invalid update: \(message)" }
}

/// Replays a `ChangeSet` on the snapshot it was computed for, under UIKit's batch-update
/// rules, and returns the snapshot after it, or throws what UIKit would. Public so that users
/// can check their own change sets (for example a stream written by `--emit-changes`).
///
/// The rules (UIKit's `performBatchUpdates`): deletes, reloads and move sources name old index paths; inserts
/// and move destinations new ones; deletes apply before inserts whatever the call order; no
/// path is deleted or moved and also reloaded; rows of inserted or deleted sections are not
/// listed separately; and for every section that exists before and after,
/// `after = before + inserted − deleted + movedIn − movedOut`.
///
/// O(size log size) plus a copy of each section the change set touches; untouched sections
/// are shared with `old`.
public enum BatchUpdateValidator {
  public static func apply(_ c: ChangeSet, to old: ListSnapshot) throws(BatchUpdateError) -> ListSnapshot {
    var snapshot = old
    try apply(c, to: &snapshot)
    return snapshot
  }

  /// Replays `c` on `snapshot` in place: a touched section that `snapshot` alone holds is
  /// shifted in its own storage rather than copied, so that a mirror of a quarter-million rows
  /// can be checked after every save without allocating its size each time. On an error the
  /// snapshot is left as it was. O(size log size) plus the rows of each touched section from
  /// its first change on.
  public static func apply(_ c: ChangeSet, to snapshot: inout ListSnapshot) throws(BatchUpdateError) {
    let steps = try sectionSteps(c, snapshot)
    var old = snapshot.sections
    snapshot.sections = []
    var sections: [ListSnapshot.Section] = []
    sections.reserveCapacity(steps.count)
    for step in steps {
      switch step {
      case .inserted(let section): sections.append(section)
      case .kept(let o): sections.append(old[o])
      case .changed(let o, let gone, let targets, let count):
        var ids = old[o].ids
        old[o].ids = []
        BatchUpdateReplay.merge(&ids, without: gone, with: targets, count: count)
        sections.append(ListSnapshot.Section(name: old[o].name, ids: ids))
      }
    }
    snapshot = ListSnapshot(
      sections: sections, reloaded: (c.reloads.map(\.id) + c.moves.filter(\.contentChanged).map(\.id)).sorted())
  }

  /// Checks every rule; the replay (which holds the snapshot) ends before any section changes.
  private static func sectionSteps(_ c: ChangeSet, _ old: ListSnapshot) throws(BatchUpdateError) -> [BatchUpdateReplay
    .SectionStep]
  {
    var replay = try BatchUpdateReplay(c, old)
    try replay.checkOldPaths()
    try replay.checkNewPaths()
    return try replay.sectionSteps()
  }
}

/// One replay of a change set, step by step: its sections, its old paths (deletes, move
/// sources, reloads), its new paths (inserts, move destinations), then the sections after it.
private struct BatchUpdateReplay {
  let c: ChangeSet
  let old: ListSnapshot
  let oldCounts: [Int]
  var oldSections: Int { oldCounts.count }
  var newSections: Int { c.newSectionCounts.count }
  var deletedSections = Set<Int>()
  var insertedSections: [Int: ChangeSet.SectionInsert] = [:]
  /// Old paths that deletes and moves take away.
  var removed = Set<RowPath>()
  /// New paths that inserts and moves fill, by section and row.
  var placed: [Int: [Int: Int64]] = [:]
  var movedIn: [Int]
  var movedOut: [Int]
  var insertedRows: [Int]
  var deletedRows: [Int]
  /// Old section → new section index, and back, for the sections on both sides.
  var newIndexOfOld: [Int?]
  var oldIndexOfNew: [Int?]

  /// Checks the section counts, deletes and inserts. O(sections).
  init(_ c: ChangeSet, _ old: ListSnapshot) throws(BatchUpdateError) {
    (self.c, self.old, oldCounts) = (c, old, old.sectionCounts)
    if !c.oldSectionCounts.isEmpty, c.oldSectionCounts != oldCounts {
      throw BatchUpdateError(
        "the change set was computed for section counts \(c.oldSectionCounts), the snapshot has \(oldCounts)")
    }
    let (oldSections, newSections) = (oldCounts.count, c.newSectionCounts.count)
    (movedIn, insertedRows, oldIndexOfNew) = (
      Array(repeating: 0, count: newSections), Array(repeating: 0, count: newSections),
      Array(repeating: nil, count: newSections)
    )
    (movedOut, deletedRows, newIndexOfOld) = (
      Array(repeating: 0, count: oldSections), Array(repeating: 0, count: oldSections),
      Array(repeating: nil, count: oldSections)
    )
    for s in c.sectionDeletes {
      guard s >= 0, s < oldSections else {
        throw BatchUpdateError(
          "attempt to delete section \(s), but there are only \(oldSections) sections before the update")
      }
      guard deletedSections.insert(s).inserted else { throw BatchUpdateError("section \(s) is deleted twice") }
    }
    for s in c.sectionInserts {
      guard s.index >= 0, s.index < newSections else {
        throw BatchUpdateError(
          "attempt to insert section \(s.index) but there are only \(newSections) sections after the update")
      }
      guard insertedSections.updateValue(s, forKey: s.index) == nil else {
        throw BatchUpdateError("section \(s.index) is inserted twice")
      }
      guard s.ids.count == c.newSectionCounts[s.index] else {
        throw BatchUpdateError(
          """
          inserted section \(s.index) brings \(s.ids.count) rows but the data source reports \
          \(c.newSectionCounts[s.index])
          """
        )
      }
    }
    guard newSections == oldSections + insertedSections.count - deletedSections.count else {
      throw BatchUpdateError(
        """
        invalid number of sections. The number of sections contained in the table view after the update \
        (\(newSections)) must be equal to the number of sections contained in the table view before the update \
        (\(oldSections)), plus or minus the number of sections inserted or deleted (\(insertedSections.count) \
        inserted, \(deletedSections.count) deleted).
        """
      )
    }
    var n = 0
    for o in 0..<oldSections where !deletedSections.contains(o) {
      while insertedSections[n] != nil { n += 1 }
      newIndexOfOld[o] = n
      oldIndexOfNew[n] = o
      n += 1
    }
  }

  /// Deletes, move sources and reloads: old paths, each at most once, naming the object the
  /// row holds. O(size log size).
  mutating func checkOldPaths() throws(BatchUpdateError) {
    for d in c.deletes {
      try checkOld(d.path, d.id, "delete")
      guard removed.insert(d.path).inserted else {
        throw BatchUpdateError("attempt to delete row \(d.path.row) from section \(d.path.section) twice")
      }
      deletedRows[d.path.section] += 1
    }
    for m in c.moves {
      try checkOld(m.from, m.id, "move")
      guard m.from != m.to else {
        throw BatchUpdateError(
          "attempt to move index path \(m.from) to the same index path; a move in place is a reload")
      }
      guard removed.insert(m.from).inserted else {
        throw BatchUpdateError("attempt to delete and move the same index path (\(m.from))")
      }
    }
    var reloaded = Set<RowPath>()
    for r in c.reloads {
      try checkOld(r.path, r.id, "reload")
      guard !removed.contains(r.path) else {
        throw BatchUpdateError("attempt to delete and reload the same index path (\(r.path))")
      }
      guard reloaded.insert(r.path).inserted else { throw BatchUpdateError("attempt to reload \(r.path) twice") }
    }
  }

  func checkOld(_ p: RowPath, _ id: Int64, _ what: String) throws(BatchUpdateError) {
    guard p.section >= 0, p.section < oldSections else {
      throw BatchUpdateError(
        """
        attempt to \(what) row \(p.row) from section \(p.section), but there are only \(oldSections) sections before \
        the update
        """
      )
    }
    guard p.row >= 0, p.row < oldCounts[p.section] else {
      throw BatchUpdateError(
        """
        attempt to \(what) row \(p.row) from section \(p.section) which only contains \(oldCounts[p.section]) rows \
        before the update
        """
      )
    }
    guard !deletedSections.contains(p.section) else {
      throw BatchUpdateError("attempt to \(what) row \(p.row) from section \(p.section), which is being deleted")
    }
    let actual = old.sections[p.section].ids[p.row]
    guard actual == id else {
      throw BatchUpdateError("the \(what) of \(p) names object \(id), but that row holds \(actual)")
    }
  }

  /// Inserts and move destinations: new paths, each at most once, never in inserted
  /// sections. O(size).
  mutating func checkNewPaths() throws(BatchUpdateError) {
    for i in c.inserts {
      try place(i.path, i.id, "insert")
      insertedRows[i.path.section] += 1
    }
    for m in c.moves {
      try place(m.to, m.id, "move")
      if newIndexOfOld[m.from.section] != m.to.section {
        movedOut[m.from.section] += 1
        movedIn[m.to.section] += 1
      }
    }
  }

  mutating func place(_ p: RowPath, _ id: Int64, _ what: String) throws(BatchUpdateError) {
    guard p.section >= 0, p.section < newSections else {
      throw BatchUpdateError(
        """
        attempt to \(what) row \(p.row) into section \(p.section), but there are only \(newSections) sections after \
        the update
        """
      )
    }
    guard insertedSections[p.section] == nil else {
      throw BatchUpdateError("attempt to \(what) row \(p.row) into section \(p.section), which is being inserted")
    }
    guard p.row >= 0, p.row < c.newSectionCounts[p.section] else {
      throw BatchUpdateError(
        """
        attempt to \(what) row \(p.row) into section \(p.section), but there are only \
        \(c.newSectionCounts[p.section]) rows in section \(p.section) after the update
        """
      )
    }
    guard placed[p.section, default: [:]].updateValue(id, forKey: p.row) == nil else {
      throw BatchUpdateError("attempt to insert two rows at the same index path (\(p))")
    }
  }

  /// What becomes of each section after the update.
  enum SectionStep {
    case inserted(ListSnapshot.Section)
    /// Old section `o`, unchanged.
    case kept(Int)
    /// Old section `o` less its rows in `gone` (sorted), with `targets` placed at their new
    /// rows, `count` rows in all.
    case changed(Int, gone: [Int], targets: [Int: Int64], count: Int)
  }

  /// The sections after the update: survivors keep their order and fill the slots that
  /// inserts and move destinations leave free. Checks that the counts add up. O(changes log
  /// changes + sections).
  func sectionSteps() throws(BatchUpdateError) -> [SectionStep] {
    var goneRows: [Int: [Int]] = [:]
    for p in removed { goneRows[p.section, default: []].append(p.row) }
    var steps: [SectionStep] = []
    steps.reserveCapacity(newSections)
    for s in 0..<newSections {
      if let inserted = insertedSections[s] {
        steps.append(.inserted(ListSnapshot.Section(name: inserted.name, ids: inserted.ids)))
        continue
      }
      let o = oldIndexOfNew[s]!
      let gone = (goneRows[o] ?? []).sorted()
      let expected = c.newSectionCounts[s]
      let targets = placed[s] ?? [:]
      guard oldCounts[o] - gone.count + targets.count == expected else {
        throw BatchUpdateError(
          """
          invalid number of rows in section \(s). The number of rows contained in an existing section after the \
          update (\(expected)) must be equal to the number of rows contained in that section before the update \
          (\(oldCounts[o])), plus or minus the number of rows inserted or deleted from that section \
          (\(insertedRows[s]) inserted, \(deletedRows[o]) deleted) and plus or minus the number of rows moved into \
          or out of that section (\(movedIn[s]) moved in, \(movedOut[o]) moved out).
          """
        )
      }
      steps.append(
        gone.isEmpty && targets.isEmpty ? .kept(o) : .changed(o, gone: gone, targets: targets, count: expected))
    }
    return steps
  }

  /// Removes the rows in `gone` (sorted) from `ids` and places `targets` at their rows, in
  /// place: survivors move left over the gaps, front to back, then right to make room for the
  /// targets, back to front, each run in one block move. Rows before the first change stay
  /// where they are. Targets are distinct rows below `count` (checked by `place`), and the
  /// counts add up, so every run lies within the survivors. O(rows from the first change).
  static func merge(_ ids: inout [Int64], without gone: [Int], with targets: [Int: Int64], count: Int) {
    let survivors = ids.count - gone.count
    ids.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      var write = gone.first ?? survivors
      for (k, g) in gone.enumerated() {
        let end = k + 1 < gone.count ? gone[k + 1] : buffer.count
        let run = end - g - 1
        if run > 0 { (base + write).update(from: base + g + 1, count: run) }
        write += run
      }
    }
    let sortedTargets = targets.keys.sorted()
    if count > ids.count {
      ids.append(contentsOf: repeatElement(0, count: count - ids.count))
    } else if count < ids.count {
      ids.removeLast(ids.count - count)
    }
    ids.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      // Back to front: `read` is one past the last survivor not yet placed.
      var read = survivors
      var end = count
      for t in sortedTargets.reversed() {
        let run = end - t - 1
        if run > 0 {
          read -= run
          (base + t + 1).update(from: base + read, count: run)
        }
        base[t] = targets[t]!
        end = t
      }
    }
  }
}
