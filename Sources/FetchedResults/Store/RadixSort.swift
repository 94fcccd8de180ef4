// A radix sort for items ordered by a few unsigned 64-bit words, the in-memory store's sort
// keys. A comparison sort's cost per row grows with log n and, past the caches, with a cache
// miss per merge level; the radix sort reads and scatters the items once per byte that varies,
// whatever n is. Bytes equal in every item (a date's exponent, the high bytes of small IDs) cost
// nothing: one counting pass finds them. (Splitting long ranges by their top byte first, so that
// the LSD passes run in the cache, was measured here too: no faster at 2.4 million random
// 47- and 54-bit keys, a third slower at 244,292. This machine's 256-way scatter is not what
// limits it.)

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

extension UnsafeMutableBufferPointer where Element: RadixSortable & Comparable {
  /// Sorts in the order of the words, as `sort()` with the words' lexicographic `<` would;
  /// stable. O(n · b) for the b bytes that vary, plus one counting pass per word; n extra
  /// items of memory, allocated here.
  func radixSort() {
    var scratch: [Element] = []
    radixSort(scratch: &scratch)
  }

  /// `radixSort()` with `scratch` (its contents are overwritten) as the scatter target: a
  /// caller that holds an array it no longer needs saves the allocation, which at millions of
  /// rows is fresh pages the kernel must fault in and zero. A shorter `scratch` is replaced.
  /// O(n · b).
  func radixSort(scratch: inout [Element]) {
    guard count >= radixSortThreshold else {
      var items = self
      return items.sort()
    }
    let n = count
    if scratch.count < n { scratch = [Element](unsafeUninitializedCapacity: n) { _, initialized in initialized = n } }
    scratch.withUnsafeMutableBufferPointer { other in
      let other = UnsafeMutableBufferPointer(rebasing: other[0..<n])
      withUnsafeTemporaryAllocation(of: Int.self, capacity: 8 * 256) { counts in
        // An odd number of passes leaves the sorted items in the scratch.
        if Radix.lsd(self, other, counts) { _ = update(fromContentsOf: other) }
      }
    }
  }
}

extension Array where Element: RadixSortable & Comparable {
  /// `UnsafeMutableBufferPointer.radixSort()` on the array's items. O(n · b).
  mutating func radixSort() { withUnsafeMutableBufferPointer { $0.radixSort() } }

  /// `UnsafeMutableBufferPointer.radixSort(scratch:)` on the array's items. O(n · b).
  mutating func radixSort(scratch: inout [Element]) {
    withUnsafeMutableBufferPointer { $0.radixSort(scratch: &scratch) }
  }
}

/// The passes of `radixSort`, on buffers.
enum Radix {
  /// One stable counting pass per byte that varies, least significant first, between `items`
  /// and `scratch`; the histograms of a word's eight bytes come from one read. Returns whether
  /// the sorted items ended in `scratch` (an odd number of passes). O(n · b).
  static func lsd<Element: RadixSortable & Comparable>(
    _ items: UnsafeMutableBufferPointer<Element>, _ scratch: UnsafeMutableBufferPointer<Element>,
    _ counts: UnsafeMutableBufferPointer<Int>
  ) -> Bool {
    let n = items.count
    var source = items
    var target = scratch
    for word in (0..<Element.wordCount).reversed() {
      // The multiset of words does not change while the items move, so one count serves the
      // word's eight passes.
      histograms(source, word, counts)
      for byte in 0..<8 {
        let base = byte &* 256
        // A byte that is the same in every item leaves the order as it is.
        if counts[base &+ digit(source[0], word, byte)] == n { continue }
        var offset = 0
        for d in 0..<256 {
          let c = counts[base &+ d]
          counts[base &+ d] = offset
          offset &+= c
        }
        for item in source {
          let d = base &+ digit(item, word, byte)
          target[counts[d]] = item
          counts[d] &+= 1
        }
        swap(&source, &target)
      }
    }
    return source.baseAddress != items.baseAddress
  }

  /// The histograms of word `word`'s eight bytes over `items`, in `counts`. O(n).
  @inline(__always) static func histograms<Element: RadixSortable>(
    _ items: UnsafeMutableBufferPointer<Element>, _ word: Int, _ counts: UnsafeMutableBufferPointer<Int>
  ) {
    counts.initialize(repeating: 0)
    for item in items {
      let w = item.word(word)
      for byte in 0..<8 { counts[byte &* 256 &+ Int(truncatingIfNeeded: (w &>> UInt64(byte &* 8)) & 0xff)] &+= 1 }
    }
  }

  @inline(__always) static func digit<Element: RadixSortable>(_ item: Element, _ word: Int, _ byte: Int) -> Int {
    Int(truncatingIfNeeded: (item.word(word) &>> UInt64(byte &* 8)) & 0xff)
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
