// A least-significant-digit radix sort for items ordered by a few unsigned 64-bit words, the
// in-memory store's sort keys. A comparison sort's cost per row grows with log n and, past the
// caches, with a cache miss per merge level; the radix sort reads and scatters the items once
// per byte that varies, whatever n is. Bytes equal in every item (a date's exponent, the high
// bytes of small IDs) cost nothing: one counting pass finds them.

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

extension Array where Element: RadixSortable & Comparable {
  /// Sorts in the order of the words, as `sort()` with the words' lexicographic `<` would;
  /// stable. O(n · w · 8) for w words, one pass per byte that is not the same in every item,
  /// plus one counting pass per word; n extra items of memory.
  mutating func radixSort() {
    guard count >= radixSortThreshold else { return sort() }
    let n = count
    var buffer = self  // the scatter target; its contents are overwritten
    var counts = [Int](repeating: 0, count: 8 * 256)
    withUnsafeMutableBufferPointer { items in
      buffer.withUnsafeMutableBufferPointer { other in
        var source = items
        var target = other
        counts.withUnsafeMutableBufferPointer { counts in
          for word in (0..<Element.wordCount).reversed() {
            // The byte histograms of this word; the multiset of words does not change while
            // the items move, so one count serves the word's eight passes.
            for i in counts.indices { counts[i] = 0 }
            for item in source {
              let w = item.word(word)
              for byte in 0..<8 { counts[byte &* 256 &+ Int(truncatingIfNeeded: (w &>> UInt64(byte &* 8)) & 0xff)] &+= 1 }
            }
            for byte in 0..<8 {
              let base = byte * 256
              // A byte that is the same in every item leaves the order as it is.
              if counts[base + Int(truncatingIfNeeded: (source[0].word(word) &>> UInt64(byte * 8)) & 0xff)] == n { continue }
              var offset = 0
              for digit in 0..<256 {
                let c = counts[base + digit]
                counts[base + digit] = offset
                offset += c
              }
              let shift = UInt64(byte * 8)
              for item in source {
                let digit = base &+ Int(truncatingIfNeeded: (item.word(word) &>> shift) & 0xff)
                target[counts[digit]] = item
                counts[digit] &+= 1
              }
              swap(&source, &target)
            }
          }
        }
        // An odd number of passes leaves the sorted items in the buffer.
        if source.baseAddress != items.baseAddress {
          _ = items.update(fromContentsOf: source)
        }
      }
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
