// The radix sort of packed sort words (`WordPacking`), the in-memory store's usual sort: one
// 64-bit word per row. Two things make it cheaper than a pass per byte. The lowest field of a
// packed word is the primary key's (or the row's position), and rows are read in an order
// where it already ascends (rows in ID order, positions counting up): a stable sort by the
// fields above it keeps that order for ties, so its bits need no pass at all, once a read of
// the items has confirmed that they ascend. And the bits that vary above it are split into
// digits of up to `maxDigitBits` rather than bytes: wells' 25-bit dates sort in 3 passes of
// 512 buckets, not 4 of 256 (or 6, counting the ID's bytes). (Banks' keys are read in
// FailedBankDetails' order, where the IDs do not ascend: the check fails at its first rows,
// and all 47 bits are sorted.) At millions of rows each pass reads and scatters the whole
// array through memory, so the passes are the sort's cost.

/// The widest digit a pass sorts on: 2^9 buckets. Fewer, wider passes read and scatter the
/// array fewer times, until the scatter targets (2^bits of them) are more pages than the TLB
/// holds; on millions of banks-like words (a 25-bit date above a 22-bit ID) 9 bits was the
/// fastest width. A batched performFetch on the memory store at millions of rows times it
/// (`fetchbench run --store memory --mode batched --scenario perform_fetch --rows 2442920`).
let maxDigitBits = 9

extension UnsafeMutableBufferPointer<UInt64> {
  /// Sorts the words ascending, with `scratch` (overwritten; replaced when shorter) as the
  /// scatter target. Every word is below 2^`bits` (`WordPacking.bits(through: 0)`).
  /// `orderedBelow`: the count of low bits (the lowest packed fields) in which the items may
  /// already ascend; a read checks it, stopping at the first item that descends, and when
  /// none does only the bits above cost passes. O(n · ⌈b / 9⌉) for the b bits sorted, plus
  /// one read to count the digits.
  func radixSortWords(scratch: inout [UInt64], bits: Int, orderedBelow: Int = 0) {
    let n = count
    guard n >= radixSortThreshold else {
      var items = self
      return items.sort()
    }
    let low: UInt64 = orderedBelow >= 64 ? ~0 : (1 << UInt64(orderedBelow)) &- 1
    var lowest = 0
    if orderedBelow > 0 {
      var p = 1
      while p < n && self[p] & low > self[p &- 1] & low { p &+= 1 }
      if p == n { lowest = orderedBelow }
    }
    let bits = bits - lowest
    guard bits > 0 else { return }
    let passes = (bits + maxDigitBits - 1) / maxDigitBits
    // Digits of even width: 47 bits in 6 passes of 8, not 5 of 9 and one of 2.
    let width = (bits + passes - 1) / passes
    let buckets = 1 << width
    if scratch.count < n { scratch = [UInt64](unsafeUninitializedCapacity: n) { _, initialized in initialized = n } }
    let sortedInScratch = scratch.withUnsafeMutableBufferPointer { other in
      withUnsafeTemporaryAllocation(of: Int.self, capacity: passes * buckets) { counts in
        Radix.lsdDigits(
          self, UnsafeMutableBufferPointer(rebasing: other[0..<n]), counts, lowest: lowest, width: width, passes: passes
        )
      }
    }
    if sortedInScratch { scratch.withUnsafeBufferPointer { _ = update(fromContentsOf: $0[0..<n]) } }
  }
}

extension [UInt64] {
  /// `UnsafeMutableBufferPointer.radixSortWords(scratch:bits:orderedBelow:)` on the array's
  /// items. O(n · ⌈b / 9⌉).
  mutating func radixSortWords(scratch: inout [UInt64], bits: Int, orderedBelow: Int = 0) {
    withUnsafeMutableBufferPointer { $0.radixSortWords(scratch: &scratch, bits: bits, orderedBelow: orderedBelow) }
  }
}

extension Radix {
  /// Counts digit `p` (of `passes`, `width` bits each from bit `lowest`) of every item into
  /// `counts[p · 2^width ..< (p + 1) · 2^width]`. O(n · passes).
  @inline(__always) static func histograms(
    _ items: UnsafeMutableBufferPointer<UInt64>, _ counts: UnsafeMutableBufferPointer<Int>, _ lowest: Int, _ width: Int,
    _ passes: Int
  ) {
    let mask = UInt64(1 << width) &- 1
    let buckets = 1 << width
    for w in items {
      var shifted = w &>> UInt64(lowest)
      for pass in 0..<passes {
        counts[pass &* buckets &+ Int(truncatingIfNeeded: shifted & mask)] &+= 1
        shifted &>>= UInt64(width)
      }
    }
  }

  /// Stable counting passes over `passes` digits of `width` bits from bit `lowest` up,
  /// between `items` and `scratch`; `counts` holds a histogram per digit, all counted in one
  /// read. Returns whether the sorted items ended in `scratch`. O(n · passes).
  static func lsdDigits(
    _ items: UnsafeMutableBufferPointer<UInt64>, _ scratch: UnsafeMutableBufferPointer<UInt64>,
    _ counts: UnsafeMutableBufferPointer<Int>, lowest: Int, width: Int, passes: Int
  ) -> Bool {
    let n = items.count
    let mask = UInt64(1 << width) &- 1
    let buckets = 1 << width
    counts.initialize(repeating: 0)
    // A constant pass count lets the compiler unroll the digits of each word.
    switch passes {
    case 1: histograms(items, counts, lowest, width, 1)
    case 2: histograms(items, counts, lowest, width, 2)
    case 3: histograms(items, counts, lowest, width, 3)
    case 4: histograms(items, counts, lowest, width, 4)
    case 5: histograms(items, counts, lowest, width, 5)
    case 6: histograms(items, counts, lowest, width, 6)
    case 7: histograms(items, counts, lowest, width, 7)
    default: histograms(items, counts, lowest, width, passes)
    }
    var (source, target) = (items, scratch)
    for pass in 0..<passes {
      let base = pass &* buckets
      let shift = UInt64(lowest &+ pass &* width)
      // A digit that is the same in every item leaves the order as it is.
      if counts[base &+ Int(truncatingIfNeeded: (source[0] &>> shift) & mask)] == n { continue }
      var offset = 0
      for d in base..<(base &+ buckets) {
        let c = counts[d]
        counts[d] = offset
        offset &+= c
      }
      for w in source {
        let d = base &+ Int(truncatingIfNeeded: (w &>> shift) & mask)
        target[counts[d]] = w
        counts[d] &+= 1
      }
      swap(&source, &target)
    }
    return source.baseAddress != items.baseAddress
  }
}
