/// A whole-list diff of two snapshots with **minimal moves**: the rows reported as moved are
/// exactly the common rows outside a longest increasing subsequence of old positions (taken
/// in new order). Heckel-style diffs report a move for nearly every row after a large edit;
/// an animation nobody can use.
///
/// For comparison with incremental tracking, and for stores that cannot report changes.
/// O(n log n) time (the LIS by patience sorting; everything else is linear) and O(n) memory
/// for lists of n rows.
public enum ListDiff {
  /// The change set that turns `old` into `new`. Rows in `reloaded` that stay become reloads;
  /// those that move are marked `contentChanged`. Sections are matched by name; a section
  /// whose relative order changed is deleted and inserted.
  public static func diff(from old: ListSnapshot, to new: ListSnapshot, reloaded: Set<Int64> = []) -> ChangeSet {
    var c = ChangeSet()
    c.oldSectionCounts = old.sectionCounts
    c.newSectionCounts = new.sectionCounts
    let sections = SectionMatch(old, new)
    c.sectionDeletes = old.sections.indices.filter { sections.newOfOld[$0] == nil }
    for n in new.sections.indices where !sections.kept.contains(n) {
      c.sectionInserts.append(ChangeSet.SectionInsert(index: n, name: new.sections[n].name, ids: new.sections[n].ids))
    }
    let oldRows = OldRows(old)
    let common = CommonRows(new, oldRows, sections)
    c.inserts = common.inserts
    // The candidates outside a longest increasing run of old positions move; of those that
    // stay, the reloaded ones are reloads.
    let stay = longestIncreasingSubsequence(common.candidateOld)
    var isStaying = [Bool](repeating: false, count: common.candidateOld.count)
    for i in stay { isStaying[i] = true }
    let checkReloads = !reloaded.isEmpty
    for i in common.candidateOld.indices {
      let o = Int(common.candidateOld[i])
      if !isStaying[i] {
        c.move(oldRows.path(o), common.candidateTo[i], oldRows.id(o), reloaded: reloaded)
      } else if checkReloads, case let id = oldRows.id(o), reloaded.contains(id) {
        c.reloads.append(ChangeSet.Row(oldRows.path(o), id: id))
      }
    }
    for x in common.forcedMoves { c.move(oldRows.path(x.old), x.to, x.id, reloaded: reloaded) }
    // Rows that went into inserted sections are listed there; they only leave their old rows.
    for o in 0..<old.count where !common.seen[o] {
      let from = oldRows.path(o)
      if sections.newOfOld[from.section] != nil { c.deletes.append(ChangeSet.Row(from, id: oldRows.id(o))) }
    }
    c.normalize()
    return c
  }

  /// The rows of `shown` that are not where `fresh` has them: those the fewest moves,
  /// inserts and deletes that turn one into the other touch, each counted once. What a list
  /// kept under Core Data's change rules (`ChangeRules.coreData`) shows wrongly until its next
  /// fetch. O(n log n).
  public static func staleRows(_ shown: ListSnapshot, against fresh: ListSnapshot) -> Int {
    let d = diff(from: shown, to: fresh)
    var ids = Set(d.deletes.map(\.id))
    ids.formUnion(d.inserts.map(\.id))
    ids.formUnion(d.moves.map(\.id))
    for s in d.sectionInserts { ids.formUnion(s.ids) }
    for s in d.sectionDeletes { ids.formUnion(shown.sections[s].ids) }
    return ids.count
  }

  /// Sections on both sides keep their order (an LIS over their old indexes); the others are
  /// deleted and inserted.
  struct SectionMatch {
    /// The new index of each old section that is kept.
    var newOfOld: [Int?]
    /// The new indexes of the kept sections.
    var kept: Set<Int>

    init(_ old: ListSnapshot, _ new: ListSnapshot) {
      var oldSectionIndex: [String: Int] = [:]
      for (i, s) in old.sections.enumerated() { oldSectionIndex[s.name] = i }
      let shared = new.sections.indices.compactMap { n in
        oldSectionIndex[new.sections[n].name].map { (new: n, old: $0) }
      }
      kept = Set(longestIncreasingSubsequence(shared.map(\.old)).map { shared[$0].new })
      newOfOld = [Int?](repeating: nil, count: old.sections.count)
      for p in shared where kept.contains(p.new) { newOfOld[p.old] = p.new }
    }
  }

  /// Old positions by ID and each old row's section (rows are global position − section
  /// offset). Flat Int32 arrays: at 244k rows the diff's cost is memory traffic, not
  /// comparisons.
  struct OldRows {
    let snapshot: ListSnapshot
    var position: IDPositions
    var sectionOf: [Int32]
    var offsets: [Int] = []

    init(_ old: ListSnapshot) {
      snapshot = old
      position = IDPositions(capacity: old.count)
      sectionOf = [Int32](repeating: 0, count: old.count)
      var g = 0
      for (s, section) in old.sections.enumerated() {
        offsets.append(g)
        for id in section.ids {
          position.set(id, Int32(g))
          sectionOf[g] = Int32(s)
          g += 1
        }
      }
    }

    func path(_ o: Int) -> RowPath {
      let s = Int(sectionOf[o])
      return RowPath(row: o - offsets[s], section: s)
    }

    func id(_ o: Int) -> Int64 {
      let p = path(o)
      return snapshot.sections[p.section].ids[p.row]
    }
  }

  /// The rows of the kept new sections, in new order: a row new to the list, or out of a
  /// deleted section, is an insert; one from the same section may stay (a candidate); one
  /// from another kept section moves.
  struct CommonRows {
    var candidateOld: [Int32] = []
    var candidateTo: [RowPath] = []
    var forcedMoves: [(old: Int, to: RowPath, id: Int64)] = []
    var inserts: [ChangeSet.Row] = []
    /// The old rows found in the new list.
    var seen: [Bool]

    init(_ new: ListSnapshot, _ old: OldRows, _ sections: SectionMatch) {
      seen = [Bool](repeating: false, count: old.sectionOf.count)
      candidateOld.reserveCapacity(min(old.sectionOf.count, new.count))
      candidateTo.reserveCapacity(min(old.sectionOf.count, new.count))
      for (n, section) in new.sections.enumerated() where sections.kept.contains(n) {
        for (r, id) in section.ids.enumerated() {
          let to = RowPath(row: r, section: n)
          guard let o32 = old.position.get(id) else {
            inserts.append(ChangeSet.Row(to, id: id))
            continue
          }
          let o = Int(o32)
          seen[o] = true
          switch sections.newOfOld[Int(old.sectionOf[o])] {
          case nil: inserts.append(ChangeSet.Row(to, id: id))
          case n:
            candidateOld.append(o32)
            candidateTo.append(to)
          default: forcedMoves.append((o, to, id))
          }
        }
      }
    }
  }
}

extension ChangeSet {
  /// A move whose paths coincide (its neighbours shifted) is written as delete + insert:
  /// UIKit cannot take a move in place, and a reload would leave the order wrong.
  fileprivate mutating func move(_ from: RowPath, _ to: RowPath, _ id: Int64, reloaded: Set<Int64>) {
    if from == to {
      deletes.append(ChangeSet.Row(from, id: id))
      inserts.append(ChangeSet.Row(to, id: id))
    } else {
      moves.append(ChangeSet.Move(from: from, to: to, id: id, contentChanged: reloaded.contains(id)))
    }
  }
}

/// Indexes (ascending) of one longest strictly increasing subsequence of `values`.
/// Patience sorting with predecessor links: O(m log m) time, O(m) memory; O(1) per element
/// that extends the longest run, the common case for lists that changed little.
public func longestIncreasingSubsequence<T: BinaryInteger>(_ values: [T]) -> [Int] {
  guard !values.isEmpty else { return [] }
  var tailIndex: [Int32] = []  // tailIndex[k]: index of the smallest tail of a run of length k+1
  var previous = [Int32](repeating: -1, count: values.count)
  values.withUnsafeBufferPointer { v in
    previous.withUnsafeMutableBufferPointer { prev in
      for i in 0..<v.count {
        let x = v[i]
        var lo: Int
        if let last = tailIndex.last, v[Int(last)] < x {
          lo = tailIndex.count
        } else {
          lo = 0
          var hi = tailIndex.count
          while lo < hi {
            let mid = (lo + hi) / 2
            if v[Int(tailIndex[mid])] < x { lo = mid + 1 } else { hi = mid }
          }
        }
        if lo > 0 { prev[i] = tailIndex[lo - 1] }
        if lo == tailIndex.count { tailIndex.append(Int32(i)) } else { tailIndex[lo] = Int32(i) }
      }
    }
  }
  var out = [Int](repeating: 0, count: tailIndex.count)
  var k = Int(tailIndex.last!)
  for j in stride(from: out.count - 1, through: 0, by: -1) {
    out[j] = k
    k = Int(previous[k])
  }
  return out
}
