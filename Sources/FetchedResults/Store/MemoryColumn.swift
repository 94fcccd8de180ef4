/// One typed column; only the storage of its type is used. Strings are dictionary-encoded:
/// a 4-byte code per row into the column's distinct values, so that a sort ranks the distinct
/// values once instead of comparing strings byte by byte on every comparison.
struct MemoryColumn {
  let type: AttributeType
  let optional: Bool
  /// Integers and bools (0 or 1).
  private(set) var integers: [Int64] = []
  /// Doubles and dates.
  private(set) var doubles: [Double] = []
  /// Strings: the row's index into `dictionary`.
  private(set) var codes: [UInt32] = []
  /// The distinct strings ever stored, in first-seen order (codes never change).
  private(set) var dictionary: [String] = []
  private var codeOf: [String: UInt32] = [:]
  private(set) var nulls: [Bool] = []
  /// How many stored doubles are not whole numbers of magnitude up to 2^53. At zero, every
  /// value is an integer exactly, and a sort takes its integer's word (`SortWord.integer`):
  /// dates at whole seconds then span a few dozen bits instead of a double's 64.
  private(set) var fractionalCount = 0
  /// The bounds of the integer sort words (`SortWord.integer`) of every non-null value ever
  /// stored: integers and bools, and doubles that are whole (`isWhole`).
  private(set) var integerBounds = WordBounds()
  /// The bounds of the double sort words (`SortWord.double`) of every non-null double ever
  /// stored.
  private(set) var doubleBounds = WordBounds()

  init(type: AttributeType, optional: Bool) {
    self.type = type
    self.optional = optional
  }

  func accepts(_ v: Value) -> Bool {
    switch (type, v) {
    case (_, .null): optional
    case (.integer, .integer), (.double, .double), (.string, .string), (.date, .date),
      (.bool, .bool):
      true
    default: false
    }
  }

  @inline(__always) func isNull(_ row: Int) -> Bool { optional && nulls[row] }

  @inline(__always) func value(_ row: Int) -> Value {
    if optional && nulls[row] { return .null }
    switch type {
    case .integer: return .integer(integers[row])
    case .double: return .double(doubles[row])
    case .date: return .date(doubles[row])
    case .bool: return .bool(integers[row] != 0)
    case .string: return .string(dictionary[Int(codes[row])])
    }
  }

  mutating func append(_ v: Value) {
    if optional { nulls.append(v.isNull) }
    widenBounds(v)
    switch type {
    case .integer, .bool: integers.append(Self.integer(v))
    case .double, .date:
      let d = v.numeric ?? 0
      doubles.append(d)
      if !Self.isWhole(d) { fractionalCount += 1 }
    case .string: codes.append(code(Self.string(v)))
    }
  }

  /// A whole number that Int64 holds, and every neighbour as well (so that the integer's
  /// order is the double's). NaN and the infinities are not.
  @inline(__always) static func isWhole(_ d: Double) -> Bool {
    d.magnitude <= 9_007_199_254_740_992 && d.rounded(.towardZero) == d
  }

  mutating func set(_ row: Int, _ v: Value) {
    if optional { nulls[row] = v.isNull }
    widenBounds(v)
    switch type {
    case .integer, .bool: integers[row] = Self.integer(v)
    case .double, .date:
      let d = v.numeric ?? 0
      fractionalCount += (Self.isWhole(d) ? 0 : 1) - (Self.isWhole(doubles[row]) ? 0 : 1)
      doubles[row] = d
    case .string: codes[row] = code(Self.string(v))
    }
  }

  /// Widens the sort words' bounds to hold `v`'s (a null's stored 0 is not a value). O(1).
  private mutating func widenBounds(_ v: Value) {
    guard !v.isNull else { return }
    switch type {
    case .integer, .bool: integerBounds.include(SortWord.integer(Self.integer(v)))
    case .double, .date:
      let d = v.numeric ?? 0
      doubleBounds.include(SortWord.double(d))
      if Self.isWhole(d) { integerBounds.include(SortWord.integer(Int64(d))) }
    case .string: break
    }
  }

  /// The bounds of the words a sort reads from this column: a string's is its rank + 1 (every
  /// code's rank is below the dictionary's size), a double's its integer's while every value
  /// is whole. O(1).
  var sortBounds: WordBounds {
    switch type {
    case .integer, .bool: integerBounds
    case .double, .date: fractionalCount == 0 ? integerBounds : doubleBounds
    case .string: dictionary.isEmpty ? WordBounds() : WordBounds(1...UInt64(dictionary.count))
    }
  }

  private mutating func code(_ s: String) -> UInt32 {
    if let c = codeOf[s] { return c }
    let c = UInt32(dictionary.count)
    dictionary.append(s)
    codeOf[s] = c
    return c
  }

  /// Each code's position among the distinct strings in `Value.compare`'s order (byte-wise
  /// UTF-8), or `order`'s under a selector, where strings it holds equal share a rank (and
  /// the next sort key orders them): `ranks[code]`. O(d log d) comparisons for d distinct
  /// strings, each through the collation under a selector: its cost, paid on every sort.
  func ranks(_ order: KeyOrder = .values) -> [UInt32] {
    let d = dictionary
    // Distinct strings never tie byte-wise: only a collation's ties share a rank.
    let byBytes = order.selector == .compare
    func compare(_ x: String, _ y: String) -> Int {
      byBytes ? Value.compareUTF8(x, y) : order.compare(.string(x), .string(y))
    }
    var sorted = Array(d.indices)
    sorted.sort { compare(d[$0], d[$1]) < 0 }
    var ranks = [UInt32](repeating: 0, count: d.count)
    var rank: UInt32 = 0
    for (i, code) in sorted.enumerated() {
      if i > 0 && compare(d[sorted[i - 1]], d[code]) != 0 { rank += 1 }
      ranks[code] = rank
    }
    return ranks
  }

  private static func integer(_ v: Value) -> Int64 {
    switch v {
    case .integer(let i): i
    case .bool(let b): b ? 1 : 0
    default: 0
    }
  }
  private static func string(_ v: Value) -> String {
    if case .string(let s) = v { s } else { "" }
  }
}

/// Order-preserving 64-bit words: for values a and b of one type, `a < b` in
/// `Value.compare`'s order exactly when `word(a) < word(b)`, so that sorts compare integers.
enum SortWord {
  static let sign: UInt64 = 1 << 63

  @inline(__always) static func integer(_ i: Int64) -> UInt64 { UInt64(bitPattern: i) ^ sign }

  /// IEEE 754 bits with negatives inverted; -0 and 0 compare equal, as in `Value.compare`.
  @inline(__always) static func double(_ d: Double) -> UInt64 {
    let bits = (d == 0 ? 0.0 : d).bitPattern
    return bits & sign != 0 ? ~bits : bits | sign
  }
}
