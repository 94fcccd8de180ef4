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
  }

  var fields: [Field]

  /// The packing of `words` (one to four arrays with one word per row, every row's words
  /// ordered lexicographically), or nil when their spans together need more than 64 bits.
  /// O(rows · words): one pass per word.
  init?(_ words: [[UInt64]]) {
    guard (1...4).contains(words.count), let n = words.first?.count, n > 0 else { return nil }
    var fields: [Field] = []
    var total: UInt64 = 0
    for w in words {
      var (least, most, varying) = (w[0], w[0], UInt64(0))
      w.withUnsafeBufferPointer { w in
        let first = w[0]
        for v in w {
          least = Swift.min(least, v)
          most = Swift.max(most, v)
          varying |= v ^ first
        }
      }
      // The bits below the lowest varying bit are equal in every row, so every distance from
      // the least word is a multiple of 2^low.
      let low = varying == 0 ? 0 : UInt64(varying.trailingZeroBitCount)
      let span = (most - least) >> low
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
      for p in 0..<n { packed[p] = f.mask == 0 ? 0 : ((packed[p] &- f.least) &>> f.low) &<< f.shift }
      for (f, w) in zip(fields, words).dropFirst() where f.mask != 0 {
        w.withUnsafeBufferPointer { w in
          for p in 0..<n { packed[p] |= ((w[p] &- f.least) &>> f.low) &<< f.shift }
        }
      }
    }
    return packed
  }

  /// Word `i` of the row whose packed word is `packed`. O(1).
  @inline(__always) func word(_ i: Int, of packed: UInt64) -> UInt64 {
    let f = fields[i]
    return f.least &+ (((packed &>> f.shift) & f.mask) &<< f.low)
  }
}
