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

  static func value(_ a: AttributeDeclaration, key: Int, random: inout SeededRandom) -> DatabaseValueConvertible? {
    let name = a.name.lowercased()
    switch a.type {
    case .integer16: return Int64(random.below(name.hasSuffix("count") ? 100 : 30_000))
    case .integer32, .integer64:
      if name == "id" || name.hasSuffix("id") { return Int64(key) }
      return Int64(random.below(name.hasSuffix("count") ? 1_000 : 1_000_000))
    case .decimal, .double, .float: return Double(random.below(1_000_000)) / 100
    case .boolean: return Int64(random.below(2))
    case .date: return Double(500_000_000 + random.below(tenYears))
    case .string: return text(name, key: key, random: &random)
    case .uri: return "https://example.com/\(words[Int(random.below(UInt64(words.count)))])/\(key)"
    case .uuid: return Data((0..<2).flatMap { _ in withUnsafeBytes(of: random.next().bigEndian, Array.init) })
    case .binary, .transformable, .objectID, .undefined:
      let n = 16 + Int(random.below(241))
      var bytes: [UInt8] = []
      bytes.reserveCapacity(n + 8)
      while bytes.count < n { withUnsafeBytes(of: random.next(), { bytes += $0 }) }
      return Data(bytes.prefix(n))
    }
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
