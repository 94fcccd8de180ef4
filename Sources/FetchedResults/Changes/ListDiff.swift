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

    // Old positions by ID; each old row's section (rows are global position − section offset).
    // Flat Int32 arrays: at 244k rows the diff's cost is memory traffic, not comparisons.
    let oldCount = old.count
    var oldPosition = IDPositions(capacity: oldCount)
    var oldSectionOf = [Int32](repeating: 0, count: oldCount)
    var oldOffsets: [Int] = []
    var g = 0
    for (s, section) in old.sections.enumerated() {
      oldOffsets.append(g)
      for id in section.ids {
        oldPosition.set(id, Int32(g))
        oldSectionOf[g] = Int32(s)
        g += 1
      }
    }
    func oldPath(_ o: Int) -> RowPath {
      let s = Int(oldSectionOf[o])
      return RowPath(row: o - oldOffsets[s], section: s)
    }
    func oldID(_ o: Int) -> Int64 {
      let p = oldPath(o)
      return old.sections[p.section].ids[p.row]
    }
    var seen = [Bool](repeating: false, count: oldCount)

    // Common rows in new order; those whose section is kept may stay, the others move.
    var candidateOld: [Int32] = []
    var candidateTo: [RowPath] = []
    candidateOld.reserveCapacity(min(oldCount, new.count))
    candidateTo.reserveCapacity(min(oldCount, new.count))
    var forcedMoves: [(old: Int, to: RowPath, id: Int64)] = []
    for (n, section) in new.sections.enumerated() where keptShared.contains(n) {
      for (r, id) in section.ids.enumerated() {
        let to = RowPath(row: r, section: n)
        guard let o32 = oldPosition.get(id) else {
          c.inserts.append(ChangeSet.Row(to, id: id))
          continue
        }
        let o = Int(o32)
        seen[o] = true
        let oldSection = Int(oldSectionOf[o])
        if newOfOld[oldSection] == nil {
          c.inserts.append(ChangeSet.Row(to, id: id))  // out of a deleted section
        } else if newOfOld[oldSection] == n {
          candidateOld.append(o32)
          candidateTo.append(to)
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
    let stay = longestIncreasingSubsequence(candidateOld)
    var isStaying = [Bool](repeating: false, count: candidateOld.count)
    for i in stay { isStaying[i] = true }
    let checkReloads = !reloaded.isEmpty
    for i in candidateOld.indices {
      if isStaying[i] {
        guard checkReloads else { continue }
        let o = Int(candidateOld[i])
        let id = oldID(o)
        if reloaded.contains(id) { c.reloads.append(ChangeSet.Row(oldPath(o), id: id)) }
      } else {
        let o = Int(candidateOld[i])
        move(oldPath(o), candidateTo[i], oldID(o))
      }
    }
    for x in forcedMoves { move(oldPath(x.old), x.to, x.id) }
    for o in 0..<oldCount where !seen[o] {
      let from = oldPath(o)
      if newOfOld[from.section] != nil { c.deletes.append(ChangeSet.Row(from, id: oldID(o))) }
    }
    c.normalize()
    return c
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
