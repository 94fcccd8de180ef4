/// A whole-list diff of two snapshots with **minimal moves**: the rows reported as moved are
/// exactly the common rows outside a longest increasing subsequence of old positions (taken
/// in new order). Heckel-style diffs report a move for nearly every row after a large edit;
/// an animation nobody can use (reference §4).
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

    // Sections: those on both sides keep their order (an LIS over old indexes), others go.
    var oldSectionIndex: [String: Int] = [:]
    for (i, s) in old.sections.enumerated() { oldSectionIndex[s.name] = i }
    let shared = new.sections.indices.compactMap { n in oldSectionIndex[new.sections[n].name].map { (new: n, old: $0) } }
    let keptShared = Set(longestIncreasingSubsequence(shared.map(\.old)).map { shared[$0].new })
    var newOfOld = [Int?](repeating: nil, count: old.sections.count)
    for p in shared where keptShared.contains(p.new) { newOfOld[p.old] = p.new }
    c.sectionDeletes = old.sections.indices.filter { newOfOld[$0] == nil }
    for n in new.sections.indices where !keptShared.contains(n) {
      c.sectionInserts.append(ChangeSet.SectionInsert(index: n, name: new.sections[n].name, ids: new.sections[n].ids))
    }

    // Old positions by ID, and each old row's section and row.
    let oldCount = old.count
    var oldPosition: [Int64: Int32] = [:]
    oldPosition.reserveCapacity(oldCount)
    var oldPath: [RowPath] = []
    oldPath.reserveCapacity(oldCount)
    for (s, section) in old.sections.enumerated() {
      for (r, id) in section.ids.enumerated() {
        oldPosition[id] = Int32(oldPath.count)
        oldPath.append(RowPath(row: r, section: s))
      }
    }
    var seen = [Bool](repeating: false, count: oldCount)

    // Common rows in new order; those whose section is kept may stay, the others move.
    var candidates: [(old: Int, to: RowPath, id: Int64)] = []
    var forcedMoves: [(old: Int, to: RowPath, id: Int64)] = []
    for (n, section) in new.sections.enumerated() where keptShared.contains(n) {
      for (r, id) in section.ids.enumerated() {
        let to = RowPath(row: r, section: n)
        guard let o = oldPosition[id].map(Int.init) else {
          c.inserts.append(ChangeSet.Row(to, id: id))
          continue
        }
        seen[o] = true
        let from = oldPath[o]
        if newOfOld[from.section] == nil {
          c.inserts.append(ChangeSet.Row(to, id: id))  // out of a deleted section
        } else if newOfOld[from.section] == n {
          candidates.append((o, to, id))
        } else {
          forcedMoves.append((o, to, id))
        }
      }
    }
    // Rows that went into inserted sections are listed there; they only leave their old
    // rows, which the loop over unseen rows below deletes.

    // A move whose paths coincide (its neighbours shifted) is written as delete + insert:
    // UIKit cannot take a move in place, and a reload would leave the order wrong.
    func move(_ from: RowPath, _ to: RowPath, _ id: Int64) {
      if from == to {
        c.deletes.append(ChangeSet.Row(from, id: id))
        c.inserts.append(ChangeSet.Row(to, id: id))
      } else {
        c.moves.append(ChangeSet.Move(from: from, to: to, id: id, contentChanged: reloaded.contains(id)))
      }
    }
    let stay = longestIncreasingSubsequence(candidates.map(\.old))
    var isStaying = [Bool](repeating: false, count: candidates.count)
    for i in stay { isStaying[i] = true }
    for (i, x) in candidates.enumerated() {
      let from = oldPath[x.old]
      if isStaying[i] {
        if reloaded.contains(x.id) { c.reloads.append(ChangeSet.Row(from, id: x.id)) }
      } else {
        move(from, x.to, x.id)
      }
    }
    for x in forcedMoves { move(oldPath[x.old], x.to, x.id) }
    for o in 0..<oldCount where !seen[o] {
      let from = oldPath[o]
      if newOfOld[from.section] != nil { c.deletes.append(ChangeSet.Row(from, id: old.sections[from.section].ids[from.row])) }
    }
    c.normalize()
    return c
  }

}

/// Indexes (ascending) of one longest strictly increasing subsequence of `values`.
/// Patience sorting with predecessor links: O(m log m) time, O(m) memory.
public func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
  guard !values.isEmpty else { return [] }
  var tailIndex: [Int] = []  // tailIndex[k]: index of the smallest tail of a run of length k+1
  var previous = [Int](repeating: -1, count: values.count)
  for (i, v) in values.enumerated() {
    var lo = 0
    var hi = tailIndex.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if values[tailIndex[mid]] < v { lo = mid + 1 } else { hi = mid }
    }
    if lo > 0 { previous[i] = tailIndex[lo - 1] }
    if lo == tailIndex.count { tailIndex.append(i) } else { tailIndex[lo] = i }
  }
  var out = [Int](repeating: 0, count: tailIndex.count)
  var k = tailIndex.last!
  for j in stride(from: out.count - 1, through: 0, by: -1) {
    out[j] = k
    k = previous[k]
  }
  return out
}
