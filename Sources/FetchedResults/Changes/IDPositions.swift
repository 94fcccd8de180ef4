/// ID → position for the whole-list diff: open addressing with linear probing over two flat
/// arrays: no per-entry hashing state and no resizing, where the standard `Dictionary` would
/// take the whole diff's time budget to index a quarter-million IDs (`fetchbench diff`
/// times the diff against the standard library's hash index of the same IDs).
///
/// O(1) expected per operation at a load factor of at most 1/2; O(n) memory (12 bytes ×
/// 2n slots).
struct IDPositions {
  private var keys: [Int64]
  private var values: [Int32]
  private let shift: UInt64
  private static let empty = Int64.min

  init(capacity: Int) {
    var bits: UInt64 = 4
    while (1 << bits) < 2 * max(1, capacity) { bits += 1 }
    shift = 64 - bits
    keys = [Int64](repeating: Self.empty, count: 1 << bits)
    values = [Int32](repeating: 0, count: 1 << bits)
  }

  @inline(__always) private func slot(_ key: Int64) -> Int {
    // Fibonacci hashing: primary keys are dense, and the multiply spreads them.
    Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  /// Sets the position of `key` (which must not be `Int64.min`).
  mutating func set(_ key: Int64, _ value: Int32) {
    let mask = keys.count - 1
    var i = slot(key)
    keys.withUnsafeMutableBufferPointer { k in
      while k[i] != Self.empty && k[i] != key { i = (i + 1) & mask }
      k[i] = key
    }
    values[i] = value
  }

  /// The position of `key`, or nil.
  func get(_ key: Int64) -> Int32? {
    let mask = keys.count - 1
    var i = slot(key)
    return keys.withUnsafeBufferPointer { k in
      while true {
        if k[i] == key { return values[i] }
        if k[i] == Self.empty { return nil }
        i = (i + 1) & mask
      }
    }
  }
}
