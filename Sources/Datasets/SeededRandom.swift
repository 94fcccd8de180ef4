/// A small, fully specified pseudo-random generator (SplitMix64).
///
/// FetchBench promises byte-identical datasets on every machine and toolchain, so it draws
/// numbers only through the methods here: the standard library's `random(in:using:)`
/// algorithms are not specified and may change between Swift releases.
public struct SeededRandom: Sendable {
  private var state: UInt64

  /// Creates a generator whose sequence depends only on `seed`.
  public init(seed: UInt64) { state = seed }

  /// A generator for one row: rows are independent streams, so any row can be produced alone
  /// and generation needs no state beyond the current row.
  public init(seed: UInt64, stream: UInt64, index: UInt64) {
    var mixer = SeededRandom(seed: seed ^ 0x9E37_79B9_7F4A_7C15)
    let a = mixer.next() ^ stream &* 0xD1B5_4A32_D192_ED03
    var second = SeededRandom(seed: a)
    state = second.next() ^ index &* 0x8CB9_2BA7_2F3D_8DD7
    _ = next()
  }

  /// The next 64 random bits. O(1).
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform integer in `0..<bound` (Lemire's multiply-shift with rejection). O(1) expected.
  public mutating func below(_ bound: UInt64) -> UInt64 {
    precondition(bound > 0)
    var m = next().multipliedFullWidth(by: bound)
    if m.low < bound {
      let threshold = (0 &- bound) % bound
      while m.low < threshold { m = next().multipliedFullWidth(by: bound) }
    }
    return m.high
  }

  /// A uniform integer in `range`. O(1) expected.
  public mutating func int(in range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(below(UInt64(range.upperBound - range.lowerBound) + 1))
  }

  /// A uniform double in `[0, 1)` with 53 random bits. O(1).
  public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

  /// True with probability `p`. O(1).
  public mutating func chance(_ p: Double) -> Bool { unit() < p }

  /// A uniformly chosen element. O(1).
  public mutating func pick<T>(_ items: [T]) -> T { items[Int(below(UInt64(items.count)))] }
}

/// A discrete distribution over indexes, drawn in O(log n) from cumulative integer weights.
///
/// Integer weights keep the draw exact: no floating-point rounding can differ between machines.
public struct WeightedChoice: Sendable {
  private let cumulative: [UInt64]

  /// `weights[i]` is the relative weight of index `i`; at least one must be positive.
  public init(_ weights: [Int]) {
    var total: UInt64 = 0
    cumulative = weights.map {
      total += UInt64($0)
      return total
    }
    precondition(total > 0, "weights must not all be zero")
  }

  /// Draws an index with probability proportional to its weight. O(log n).
  public func draw(_ rng: inout SeededRandom) -> Int {
    let r = rng.below(cumulative[cumulative.count - 1])
    var lo = 0
    var hi = cumulative.count - 1
    while lo < hi {
      let mid = (lo + hi) / 2
      if cumulative[mid] > r { hi = mid } else { lo = mid + 1 }
    }
    return lo
  }
}
