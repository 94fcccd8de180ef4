import Datasets
import Foundation
import GRDB

/// A generated attribute's value, stored as Core Data stores its type (dates as seconds since
/// 2001, booleans as integers, UUIDs as 16 bytes), of the kind its name suggests (`title`,
/// `email`, `…Count`, `url`): a pure function of the row's key and its random stream.
enum ModelValues {
  static let words = [
    "alpha", "harbor", "maple", "quartz", "river", "summit", "cedar", "lantern", "meadow", "orbit", "pepper", "violet",
    "willow", "ember", "falcon", "granite", "island", "juniper", "kettle", "lotus", "marble", "nectar", "opal",
    "prairie",
  ]

  /// Seconds since 2001-01-01 (Core Data's reference date) spanning about ten years.
  static let tenYears: UInt64 = 315_360_000

  /// The value of `a` for the row `key`: one of `shape.distinct` values (drawn by rank, the
  /// same rank giving the same value), or drawn for the row alone. O(1) but for a string's
  /// or data's length, and O(log distinct) with a skew.
  static func value(
    _ a: AttributeDeclaration, shape: ValueShape, ranks: ValueShape.Ranks?, key: Int, random: inout SeededRandom
  ) -> DatabaseValueConvertible? {
    guard let distinct = shape.distinct else { return value(a, shape: shape, key: key, random: &random) }
    let rank = shape.rank(&random, ranks)
    if let range = shape.range {
      // Evenly spaced over the range: the least and the greatest are values.
      let step = distinct == 1 ? 0 : (range.upperBound - range.lowerBound) / Double(distinct - 1)
      return number(a.type, range.lowerBound + step * Double(rank))
    }
    var own = SeededRandom(seed: stableHash(a.name), stream: 0x5EED, index: UInt64(rank))
    return value(a, shape: shape, key: rank, random: &own)
  }

  /// A value of `a` drawn from `random`, within `shape`'s range or length.
  static func value(
    _ a: AttributeDeclaration, shape: ValueShape, key: Int, random: inout SeededRandom
  ) -> DatabaseValueConvertible? {
    let name = a.name.lowercased()
    if let range = shape.range {
      let x =
        a.type.isInteger || a.type == .date
        ? range.lowerBound + Double(random.below(UInt64(range.upperBound - range.lowerBound) + 1))
        : range.lowerBound + random.unit() * (range.upperBound - range.lowerBound)
      return number(a.type, x)
    }
    switch a.type {
    case .integer16: return Int64(random.below(name.hasSuffix("count") ? 100 : 30_000))
    case .integer32, .integer64:
      if name == "id" || name.hasSuffix("id") { return Int64(key) }
      return Int64(random.below(name.hasSuffix("count") ? 1_000 : 1_000_000))
    case .decimal, .double, .float: return Double(random.below(1_000_000)) / 100
    case .boolean: return Int64(random.below(2))
    case .date: return Double(500_000_000 + random.below(tenYears))
    case .string:
      let text = text(name, key: key, random: &random)
      return shape.length.map { fitted(text, to: random.int(in: $0), random: &random) } ?? text
    case .uri: return "https://example.com/\(words[Int(random.below(UInt64(words.count)))])/\(key)"
    case .uuid: return Data((0..<2).flatMap { _ in withUnsafeBytes(of: random.next().bigEndian, Array.init) })
    case .binary, .transformable, .objectID, .undefined:
      let n = shape.length.map { random.int(in: $0) } ?? 16 + Int(random.below(241))
      var bytes: [UInt8] = []
      bytes.reserveCapacity(n + 8)
      while bytes.count < n { withUnsafeBytes(of: random.next(), { bytes += $0 }) }
      return Data(bytes.prefix(n))
    }
  }

  /// `x` as a column of `type` holds it: integers whole, dates and reals as doubles.
  static func number(_ type: AttributeKind, _ x: Double) -> DatabaseValueConvertible {
    type.isInteger ? Int64(x.rounded()) : x
  }

  /// `text` cut or lengthened with words to exactly `length` characters, never ending in a
  /// space. O(length).
  static func fitted(_ text: String, to length: Int, random: inout SeededRandom) -> String {
    var out = text
    while out.count < length { out += " " + words[Int(random.below(UInt64(words.count)))] }
    out = String(out.prefix(length))
    return out.last == " " ? out.dropLast() + "s" : out
  }

  /// FNV-1a of `name`: the same on every machine and run, unlike `Hasher`.
  static func stableHash(_ name: String) -> UInt64 {
    name.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
  }

  /// A name, a title, an address or words, by the attribute's name.
  static func text(_ name: String, key: Int, random: inout SeededRandom) -> String {
    func word() -> String { words[Int(random.below(UInt64(words.count)))] }
    if name.contains("email") { return "\(word()).\(key)@example.com" }
    if name.contains("name") { return word().capitalized + " " + word().capitalized }
    if name.contains("title") || name.contains("subject") {
      return (0..<(2 + Int(random.below(4)))).map { _ in word() }.joined(separator: " ").capitalized
    }
    return (0..<(3 + Int(random.below(12)))).map { _ in word() }.joined(separator: " ")
  }
}
