/// The fetched IDs in the request's total order, with what change tracking needs to keep them
/// sorted as transactions arrive: each row's sort key, and where each ID sits.
///
/// Rows live in chunks of at most `2 × chunkCapacity`, so that an insert or a remove moves
/// at most one chunk's elements plus O(chunks) bookkeeping, never the whole list. Without
/// tracking the list is one chunk of IDs: 8 bytes per row. The bookkeeping is flat (each
/// chunk's start, and its first row's key and ID, in arrays of their own), so that finding a
/// position or an insertion point touches no chunk but the one it lands in: with hundreds of
/// chunk objects scattered on the heap, pointer-chasing them would be most of a transaction.
///
/// Complexity with n rows in c chunks: `subscript` O(log c) (O(1) for sequential access);
/// `position(of:)` O(chunk) by the ID → chunk map; `insertionPoint` O(log n) comparisons;
/// `apply` O(k · chunk + c) for k edits.
public final class SortedIDList {
  final class Chunk {
    var ids: [Int64]
    /// Descriptor-major: `keys[d][r]`. Empty without tracking.
    var keys: [[Value]]
    /// Full mode: the materialized rows, parallel to `ids`.
    var objects: [FetchedObject]?
    /// Its place in `chunks`, kept when chunks are split or dropped.
    var index = 0
    init(ids: [Int64], keys: [[Value]], objects: [FetchedObject]?) {
      self.ids = ids
      self.keys = keys
      self.objects = objects
    }
  }

  public static let chunkCapacity = 256
  /// Directions of the key descriptors (all sorts but the final primary key).
  public let ascending: [Bool]
  /// How each key descriptor's values order (`Value.compare`, or a selector's collation).
  public let keyOrders: [KeyOrder]
  public let idAscending: Bool
  public let tracksKeys: Bool
  private var chunks: [Chunk] = []
  /// `starts[i]`: the global index of chunk i's first row; `sizes[i]`: its row count.
  private var starts: [Int] = [0]
  private var sizes: [Int] = []
  /// Chunk i's first row (tracking only): its key at `fenceKeys[i * descriptors + d]`, its ID.
  private var fenceKeys: [Value] = []
  private var fenceIDs: [Int64] = []
  private var chunkOfID: [Int64: Chunk] = [:]
  public private(set) var count = 0
  private var lastChunk = 0

  /// Builds the list from IDs in order, with their keys when tracking (`keys` non-nil) and
  /// their rows in full mode. O(n).
  public init(
    ids: [Int64], keys: [[Value]]?, objects: [FetchedObject]?, ascending: [Bool], orders: [KeyOrder]? = nil,
    idAscending: Bool
  ) {
    self.ascending = ascending
    keyOrders = orders ?? ascending.map { _ in .values }
    self.idAscending = idAscending
    tracksKeys = keys != nil
    count = ids.count
    guard let keys else {
      chunks = [Chunk(ids: ids, keys: [], objects: objects)]
      sizes = [ids.count]
      restart()
      InternalChecks.check("SortedIDList after init", invariantViolations())
      return
    }
    chunks.reserveCapacity(ids.count / Self.chunkCapacity + 1)
    precondition(keys.count == ascending.count && keys.allSatisfy { $0.count == ids.count })
    var start = 0
    repeat {
      let end = min(ids.count, start + Self.chunkCapacity)
      let chunk = Chunk(
        ids: Array(ids[start..<end]), keys: keys.map { Array($0[start..<end]) },
        objects: objects.map { Array($0[start..<end]) })
      chunks.append(chunk)
      start = end
    } while start < ids.count
    chunkOfID.reserveCapacity(ids.count)
    for (i, c) in chunks.enumerated() {
      c.index = i
      for id in c.ids { chunkOfID[id] = c }
    }
    fenceKeys.reserveCapacity(chunks.count * ascending.count)
    for c in chunks where !c.ids.isEmpty { appendFence(c) }
    sizes = chunks.map(\.ids.count)
    restart()
    InternalChecks.check("SortedIDList after init", invariantViolations())
  }

  /// Recomputes `starts` from `sizes`, touching no chunk. O(c).
  private func restart() {
    starts.removeAll(keepingCapacity: true)
    var start = 0
    for size in sizes {
      starts.append(start)
      start += size
    }
    starts.append(start)
  }

  private func appendFence(_ c: Chunk) {
    for d in c.keys.indices { fenceKeys.append(c.keys[d][0]) }
    fenceIDs.append(c.ids[0])
  }

  /// Refreshes chunk c's fence after its first row changed (tracking only).
  private func refence(_ c: Chunk) {
    guard !c.ids.isEmpty else { return }
    // An empty list's one chunk has no fence until its first row.
    if fenceIDs.count == c.index { return appendFence(c) }
    for d in c.keys.indices { fenceKeys[c.index * ascending.count + d] = c.keys[d][0] }
    fenceIDs[c.index] = c.ids[0]
  }

  /// The chunk holding global index `i`, and `i`'s offset in it: a binary search of the flat
  /// starts. O(log c).
  @inline(__always) private func locate(_ i: Int) -> (Chunk, Int) {
    let hint = min(lastChunk, chunks.count - 1)
    // The hinted chunk's own size: during `apply` the starts after an edited chunk lag.
    if i >= starts[hint] && i < starts[hint] + sizes[hint] { return (chunks[hint], i - starts[hint]) }
    var lo = 0
    var hi = chunks.count - 1
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if starts[mid] <= i { lo = mid } else { hi = mid - 1 }
    }
    lastChunk = lo
    return (chunks[lo], i - starts[lo])
  }

  public subscript(i: Int) -> Int64 {
    let (c, r) = locate(i)
    return c.ids[r]
  }

  /// The materialized row at `i` (full mode only).
  public func object(at i: Int) -> FetchedObject {
    let (c, r) = locate(i)
    return c.objects![r]
  }

  /// The IDs in `range`. O(range + log c).
  public func ids(_ range: Range<Int>) -> ArraySlice<Int64> {
    guard !range.isEmpty else { return [] }
    let (c, r) = locate(range.lowerBound)
    if r + range.count <= c.ids.count { return c.ids[r..<(r + range.count)] }
    return ArraySlice(range.map { self[$0] })
  }

  /// Every ID in order. O(n).
  public var allIDs: [Int64] { chunks.count == 1 ? chunks[0].ids : chunks.flatMap(\.ids) }

  /// The sort key of the row at `i` (tracking only). O(descriptors).
  public func key(at i: Int) -> [Value] {
    let (c, r) = locate(i)
    return c.keys.map { $0[r] }
  }

  /// Where `id` is, nil if absent (tracking only). O(chunk).
  public func position(of id: Int64) -> Int? {
    guard let c = chunkOfID[id], let r = c.ids.firstIndex(of: id) else { return nil }
    return starts[c.index] + r
  }

  /// Orders (key, id) against chunk row `r`: negative when it comes first.
  private func compare(_ key: [Value], _ id: Int64, _ c: Chunk, _ r: Int) -> Int {
    for d in 0..<ascending.count {
      let x = keyOrders[d].compare(key[d], c.keys[d][r])
      if x != 0 { return ascending[d] ? x : -x }
    }
    if id == c.ids[r] { return 0 }
    return (id < c.ids[r]) == idAscending ? -1 : 1
  }

  /// Orders (key, id) against chunk i's first row, from the fence: negative when it comes first.
  @inline(__always) private func compareFence(_ key: [Value], _ id: Int64, _ i: Int) -> Int {
    let n = ascending.count
    for d in 0..<n {
      let x = keyOrders[d].compare(key[d], fenceKeys[i * n + d])
      if x != 0 { return ascending[d] ? x : -x }
    }
    if id == fenceIDs[i] { return 0 }
    return (id < fenceIDs[i]) == idAscending ? -1 : 1
  }

  /// Whether (k1, id1) comes before (k2, id2) in the list's order.
  public func orders(_ k1: [Value], _ id1: Int64, before k2: [Value], _ id2: Int64) -> Bool {
    for d in 0..<ascending.count {
      let x = keyOrders[d].compare(k1[d], k2[d])
      if x != 0 { return ascending[d] ? x < 0 : x > 0 }
    }
    return id1 != id2 && (id1 < id2) == idAscending
  }

  /// The number of rows ordered before (key, id): where it would be inserted. O(log n).
  public func insertionPoint(key: [Value], id: Int64) -> Int {
    guard count > 0 else { return 0 }
    // The last chunk whose first row comes before (key, id).
    var lo = 0
    var hi = chunks.count - 1
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if compareFence(key, id, mid) > 0 { lo = mid } else { hi = mid - 1 }
    }
    let c = chunks[lo]
    var a = 0
    var b = c.ids.count
    while a < b {
      let mid = (a + b) / 2
      if compare(key, id, c, mid) > 0 { a = mid + 1 } else { b = mid }
    }
    return starts[lo] + a
  }

  /// Applies one transaction's edits with a single pass of bookkeeping: removes the rows at
  /// `removals` (old positions), then inserts each of `insertions` at its position among
  /// the rows that survive the removals (`gap`), in key order. Removals run from the last
  /// position down and insertions from the last gap down, so that every chunk still to be
  /// touched keeps a correct start; the starts are recomputed twice, not once per edit.
  /// O(k · chunk + c) for k edits on c chunks.
  public func apply(
    removals: [Int], insertions: [(gap: Int, id: Int64, key: [Value], object: FetchedObject?)]
  ) {
    precondition(
      tracksKeys || (removals.isEmpty && insertions.isEmpty), "editing needs the sort keys: enable change tracking")
    for i in removals.sorted(by: >) {
      let (c, r) = locate(i)
      let id = c.ids.remove(at: r)
      for d in c.keys.indices { c.keys[d].remove(at: r) }
      c.objects?.remove(at: r)
      chunkOfID[id] = nil
      count -= 1
      sizes[c.index] -= 1
      if c.ids.isEmpty && chunks.count > 1 {
        chunks.remove(at: c.index)
        starts.remove(at: c.index)
        sizes.remove(at: c.index)
        fenceKeys.removeSubrange((c.index * ascending.count)..<((c.index + 1) * ascending.count))
        fenceIDs.remove(at: c.index)
        for j in c.index..<chunks.count { chunks[j].index = j }
        lastChunk = 0
      } else if r == 0 {
        refence(c)
      }
    }
    restart()
    // Insert from the largest gap down: an item's position is then its gap (the larger
    // items are after it, the smaller not yet in).
    for e in insertions.indices.reversed() {
      let x = insertions[e]
      let (c, r): (Chunk, Int)
      if x.gap >= count {
        let last = chunks[chunks.count - 1]
        (c, r) = (last, last.ids.count)
      } else {
        (c, r) = locate(x.gap)
      }
      c.ids.insert(x.id, at: r)
      for d in c.keys.indices { c.keys[d].insert(x.key[d], at: r) }
      if let object = x.object { c.objects?.insert(object, at: r) }
      chunkOfID[x.id] = c
      count += 1
      sizes[c.index] += 1
      if r == 0 { refence(c) }
      if c.ids.count > 2 * Self.chunkCapacity {
        let half = c.ids.count / 2
        let tail = Chunk(
          ids: Array(c.ids[half...]), keys: c.keys.map { Array($0[half...]) },
          objects: c.objects.map { Array($0[half...]) })
        c.ids.removeSubrange(half...)
        for d in c.keys.indices { c.keys[d].removeSubrange(half...) }
        c.objects?.removeSubrange(half...)
        chunks.insert(tail, at: c.index + 1)
        starts.insert(starts[c.index] + half, at: c.index + 1)
        sizes[c.index] = half
        sizes.insert(tail.ids.count, at: c.index + 1)
        fenceKeys.insert(contentsOf: tail.keys.map { $0[0] }, at: (c.index + 1) * ascending.count)
        fenceIDs.insert(tail.ids[0], at: c.index + 1)
        for j in (c.index + 1)..<chunks.count { chunks[j].index = j }
        for id in tail.ids { chunkOfID[id] = tail }
      }
    }
    restart()
    InternalChecks.check(
      "SortedIDList after \(removals.count) removals and \(insertions.count) insertions", invariantViolations())
  }

  /// Replaces the materialized row of `id` at `i` (full mode).
  public func replaceObject(at i: Int, with object: FetchedObject) {
    let (c, r) = locate(i)
    c.objects?[r] = object
    InternalChecks.check("SortedIDList after replacing row \(i)", invariantViolations())
  }

  /// Checks the invariants: chunk bookkeeping, the total order of (key, id), and the ID map.
  /// O(n); tests call it after every transaction. Empty when sound.
  public func invariantViolations() -> [String] {
    var problems: [String] = []
    var start = 0
    if starts.count != chunks.count + 1 || sizes != chunks.map(\.ids.count) {
      problems.append("\(starts.count) starts and sizes \(sizes.prefix(8))… for \(chunks.count) chunks")
    }
    for (i, c) in chunks.enumerated() {
      if c.index != i || starts[i] != start {
        problems.append("chunk \(i) says index \(c.index) start \(starts[i]), expected \(start)")
      }
      if tracksKeys && !c.ids.isEmpty {
        let fence = (0..<ascending.count).map { fenceKeys[i * ascending.count + $0] }
        if fenceIDs.count <= i || fenceIDs[i] != c.ids[0] || fence != c.keys.map({ $0[0] }) {
          problems.append("chunk \(i)'s fence is not its first row")
        }
      }
      if c.ids.isEmpty && chunks.count > 1 { problems.append("chunk \(i) is empty") }
      if tracksKeys && c.ids.count > 2 * Self.chunkCapacity { problems.append("chunk \(i) holds \(c.ids.count) rows") }
      if c.keys.contains(where: { $0.count != c.ids.count }) || (c.objects.map { $0.count != c.ids.count } ?? false) {
        problems.append("chunk \(i)'s columns differ in length")
      }
      if let objects = c.objects, objects.map(\.id) != c.ids { problems.append("chunk \(i)'s rows are not its IDs") }
      start += c.ids.count
    }
    if start != count { problems.append("count \(count) but chunks hold \(start)") }
    guard tracksKeys else { return problems }
    if chunkOfID.count != count { problems.append("the ID map has \(chunkOfID.count) entries for \(count) rows") }
    var previous: (key: [Value], id: Int64)?
    for c in chunks {
      for r in c.ids.indices {
        if chunkOfID[c.ids[r]] !== c { problems.append("the ID map misplaces \(c.ids[r])") }
        if let p = previous, compare(p.key, p.id, c, r) >= 0 {
          problems.append("\(p.id) is not ordered before \(c.ids[r])")
        }
        previous = (c.keys.map { $0[r] }, c.ids[r])
      }
      if problems.count > 20 { break }
    }
    return problems
  }
}
