// A radix sort for items ordered by a few unsigned 64-bit words, the in-memory store's sort
// keys. A comparison sort's cost per row grows with log n and, past the caches, with a cache
// miss per merge level; the radix sort reads and scatters the items once per byte that varies,
// whatever n is. Bytes equal in every item (a date's exponent, the high bytes of small IDs) cost
// nothing: one pass finds them. Past the caches a scatter misses on every item, so a long range
// is split by its most significant varying byte first (MSD) until its parts fit in the cache,
// and each part then takes its least significant bytes first (LSD) in the cache.

/// Items ordered by their words, compared as unsigned integers, most significant first.
protocol RadixSortable {
  /// How many words order an item.
  static var wordCount: Int { get }
  /// Word `i` (0 is the most significant). O(1).
  func word(_ i: Int) -> UInt64
}

/// Below this many items the standard library's sort is faster: the counting pass and the
/// 256-entry tables per byte cost more than a few levels of comparisons.
let radixSortThreshold = 512

/// Up to this many items a range is sorted by LSD passes: the range and its scatter target
/// (16–32 bytes an item) stay within the L2 cache, so each pass costs what it reads. Larger
/// ranges are first split by their most significant varying byte (MSD), so that past the
/// caches only the splitting passes miss, not every byte's.
let radixLeafSize = 1 << 14

/// A byte of an item's words: word `word` (0 most significant), byte `byte` (0 least).
struct RadixPosition {
  var word: Int
  var byte: Int
}

extension RadixSortable {
  @inline(__always) func digit(_ p: RadixPosition) -> Int {
    Int(truncatingIfNeeded: (word(p.word) &>> UInt64(p.byte &* 8)) & 0xff)
  }
}

extension Array where Element: RadixSortable & Comparable {
  /// Sorts in the order of the words, as `sort()` with the words' lexicographic `<` would;
  /// stable. Ranges over `radixLeafSize` items are split by their most significant varying
  /// byte, the rest sorted by one LSD pass per byte that varies within them: O(n · b) for b
  /// varying bytes, with one pass over the items to find them; n extra items of memory.
  mutating func radixSort() {
    guard count >= radixSortThreshold else { return sort() }
    var buffer = self  // the scatter target; its contents are overwritten
    withUnsafeMutableBufferPointer { items in
      buffer.withUnsafeMutableBufferPointer { other in
        // The bytes that differ from the first item's in some item, most significant first:
        // the others (a date's exponent, the high bytes of small IDs) cost nothing.
        var differs = [UInt64](repeating: 0, count: Element.wordCount)
        let first = items[0]
        for item in items {
          for w in 0..<Element.wordCount { differs[w] |= item.word(w) ^ first.word(w) }
        }
        var positions: [RadixPosition] = []
        for w in 0..<Element.wordCount {
          for b in (0..<8).reversed() where (differs[w] &>> UInt64(b * 8)) & 0xff != 0 { positions.append(RadixPosition(word: w, byte: b)) }
        }
        Self.radixSort(items, buffer: other, positions[...])
      }
    }
  }

  /// Sorts `items` by `positions` (most significant first), `buffer` as long as `items`.
  static func radixSort(
    _ items: UnsafeMutableBufferPointer<Element>, buffer: UnsafeMutableBufferPointer<Element>, _ positions: ArraySlice<RadixPosition>
  ) {
    guard items.count > 1, let top = positions.first else { return }
    if items.count < radixSortThreshold {
      var range = items  // the same memory: sorting the copy sorts it
      return range.sort()
    }
    if items.count <= radixLeafSize { return lsdSort(items, buffer: buffer, positions) }
    var counts = [Int](repeating: 0, count: 256)
    for item in items { counts[item.digit(top)] &+= 1 }
    let rest = positions.dropFirst()
    if counts[items[0].digit(top)] == items.count { return radixSort(items, buffer: buffer, rest) }
    var starts = [Int](repeating: 0, count: 257)
    for d in 0..<256 { starts[d + 1] = starts[d] + counts[d] }
    var next = [Int](starts[0..<256])
    for item in items {
      let d = item.digit(top)
      buffer[next[d]] = item
      next[d] &+= 1
    }
    _ = items.update(fromContentsOf: buffer)
    for d in 0..<256 where counts[d] > 1 {
      let range = starts[d]..<starts[d + 1]
      radixSort(
        UnsafeMutableBufferPointer(rebasing: items[range]), buffer: UnsafeMutableBufferPointer(rebasing: buffer[range]), rest)
    }
  }

  /// One stable counting pass per position that varies in `items`, least significant first;
  /// the histograms of every position from one read. O(n · positions).
  static func lsdSort(
    _ items: UnsafeMutableBufferPointer<Element>, buffer: UnsafeMutableBufferPointer<Element>, _ positions: ArraySlice<RadixPosition>
  ) {
    let n = items.count
    let positions = [RadixPosition](positions)
    var counts = [Int](repeating: 0, count: positions.count * 256)
    counts.withUnsafeMutableBufferPointer { counts in
      for item in items {
        for k in positions.indices { counts[k &* 256 &+ item.digit(positions[k])] &+= 1 }
      }
      var source = items
      var target = buffer
      for k in positions.indices.reversed() {
        let base = k * 256
        let position = positions[k]
        // A byte that is the same in every item leaves the order as it is.
        if counts[base + source[0].digit(position)] == n { continue }
        var offset = 0
        for digit in 0..<256 {
          let c = counts[base + digit]
          counts[base + digit] = offset
          offset += c
        }
        for item in source {
          let digit = base &+ item.digit(position)
          target[counts[digit]] = item
          counts[digit] &+= 1
        }
        swap(&source, &target)
      }
      // An odd number of passes leaves the sorted items in the buffer.
      if source.baseAddress != items.baseAddress { _ = items.update(fromContentsOf: source) }
    }
  }
}

extension UInt64: RadixSortable {
  static var wordCount: Int { 1 }
  @inline(__always) func word(_ i: Int) -> UInt64 { self }
}

extension MemoryStore.Pair: RadixSortable {
  static var wordCount: Int { 2 }
  @inline(__always) func word(_ i: Int) -> UInt64 { i == 0 ? a : b }
}

extension MemoryStore.Triple: RadixSortable {
  static var wordCount: Int { 3 }
  @inline(__always) func word(_ i: Int) -> UInt64 { i == 0 ? a : i == 1 ? b : c }
}

extension MemoryStore.Positioned: RadixSortable where Words: RadixSortable {
  static var wordCount: Int { Words.wordCount }
  @inline(__always) func word(_ i: Int) -> UInt64 { words.word(i) }
}
