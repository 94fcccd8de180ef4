// Sort words packed into one 64-bit word when they fit. A sort's words rarely use their 64 bits:
// 2.4 million IDs span 22 bits, dates at whole days span 32 bits above 7 bits that are the same
// in every row. Each word is stored as its distance from the column's least word, shifted past
// the low bits every row shares, the most significant word highest. That keeps the order and
// halves or thirds what the radix sort moves: at millions of rows each pass scatters through
// memory, and each byte that varies in no row costs no pass at all.

/// Where each of up to four sort words keeps its varying bits inside one packed word.
struct WordPacking {
  struct Field {
    /// The least word of the column.
    var least: UInt64
    /// The bits below this one are the same in every row.
    var low: UInt64
    /// The span (word - least) >> low fits in these bits.
    var mask: UInt64
    /// Where the field sits in the packed word.
    var shift: UInt64

    /// A word's bits in this field, at their place in the packed word; the word must lie in
    /// the bounds the field was made for. O(1).
    @inline(__always) func bits(of word: UInt64) -> UInt64 { ((word &- least) &>> low) &<< shift }
  }

  var fields: [Field]

  /// The packing of `words` (one to four arrays with one word per row, every row's words
  /// ordered lexicographically), or nil when their spans together need more than 64 bits.
  /// O(rows · words): one pass per word.
  init?(_ words: [[UInt64]]) {
    guard (1...4).contains(words.count), let n = words.first?.count, n > 0 else { return nil }
    self.init(
      bounds: words.map { w in
        var bounds = WordBounds()
        w.withUnsafeBufferPointer { w in
          for v in w { bounds.include(v) }
        }
        return bounds
      })
  }

  /// The packing of words within `bounds` (one to four, the most significant first), or nil
  /// when their spans together need more than 64 bits. Bounds wider than the words packed
  /// only cost bits: the radix sort skips the bytes that vary in no row. O(words).
  init?(bounds: [WordBounds]) {
    guard (1...4).contains(bounds.count) else { return nil }
    var fields: [Field] = []
    var total: UInt64 = 0
    for b in bounds {
      let least = b.isEmpty ? 0 : b.least
      // The bits below the lowest varying bit are equal in every word, so every distance from
      // the least word is a multiple of 2^low.
      let low = b.varying == 0 ? 0 : UInt64(b.varying.trailingZeroBitCount)
      let span = b.isEmpty ? 0 : (b.most - least) >> low
      let width = UInt64(64 - span.leadingZeroBitCount)
      // `shift` holds the width until the fields are placed.
      fields.append(Field(least: least, low: low, mask: width == 64 ? ~0 : (1 << width) - 1, shift: width))
      total += width
    }
    guard total <= 64 else { return nil }
    var shift: UInt64 = 0
    for i in fields.indices.reversed() {
      let width = fields[i].shift
      fields[i].shift = shift
      shift += width
    }
    self.fields = fields
  }

  /// One packed word per row, ordered as the rows' words are lexicographically, written over
  /// `words[0]`'s storage, which is taken out of `words` (the other arrays stay, for the caller
  /// to reuse): at millions of rows a fresh array is pages the kernel must fault in and zero.
  /// O(rows · words).
  func pack(_ words: inout [[UInt64]]) -> [UInt64] {
    var packed: [UInt64] = []
    swap(&packed, &words[0])
    let n = packed.count
    packed.withUnsafeMutableBufferPointer { packed in
      let f = fields[0]
      for p in 0..<n { packed[p] = f.mask == 0 ? 0 : f.bits(of: packed[p]) }
      for (f, w) in zip(fields, words).dropFirst() where f.mask != 0 {
        w.withUnsafeBufferPointer { w in
          for p in 0..<n { packed[p] |= f.bits(of: w[p]) }
        }
      }
    }
    return packed
  }

  /// How many low bits of a packed word hold field `i` and the fields below it: the bits in
  /// which rows read in the order of those fields already ascend (`radixSortWords`). O(1).
  func bits(through i: Int) -> Int {
    let f = fields[i]
    return Int(f.shift) + (f.mask == 0 ? 0 : 64 - f.mask.leadingZeroBitCount)
  }

  /// Word `i` of the row whose packed word is `packed`. O(1).
  @inline(__always) func word(_ i: Int, of packed: UInt64) -> UInt64 {
    let f = fields[i]
    return f.least &+ (((packed &>> f.shift) & f.mask) &<< f.low)
  }
}

/// The least and the most of a set of words, and the bits in which any two of them differ:
/// what `WordPacking` needs to place their field. Columns keep the bounds of the words of every
/// value they have held, widened as values are written and never narrowed, so a sort packs its
/// keys without a pass over them to find their span.
struct WordBounds: Equatable {
  private(set) var least = UInt64.max
  private(set) var most = UInt64.min
  /// The OR of every word XOR an earlier one: each bit that differs between two words.
  private(set) var varying: UInt64 = 0

  var isEmpty: Bool { least > most }

  /// Widens the bounds to hold `word`. O(1).
  @inline(__always) mutating func include(_ word: UInt64) {
    // XOR with any word already held: the bits that differ from it are in `varying` already.
    if least <= most { varying |= word ^ least }
    least = Swift.min(least, word)
    most = Swift.max(most, word)
  }

  /// Bounds holding every word in `range`. O(1).
  init(_ range: ClosedRange<UInt64>) {
    least = range.lowerBound
    most = range.upperBound
    let top = least ^ most
    varying = top == 0 ? 0 : ~0 &>> UInt64(top.leadingZeroBitCount)
  }

  init() {}

  /// The bounds of these words XORed with `flip` (0, or every bit for a descending sort).
  /// O(1).
  func flipped(_ flip: UInt64) -> WordBounds {
    guard flip != 0, !isEmpty else { return self }
    var b = self
    (b.least, b.most) = (~most, ~least)
    return b
  }
}
