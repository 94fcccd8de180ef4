/// NSSortDescriptor's selector for a string key: how two strings order.
public enum SortSelector: String, Sendable, CaseIterable, Equatable, Codable {
  /// A literal comparison: UTF-8 bytes, as SQLite's BINARY collation (`Value.compare`).
  case compare = "compare:"
  /// Case-insensitive, not locale-aware.
  case caseInsensitiveCompare = "caseInsensitiveCompare:"
  /// The locale's collation.
  case localizedCompare = "localizedCompare:"
  /// The locale's collation, case-insensitive.
  case localizedCaseInsensitiveCompare = "localizedCaseInsensitiveCompare:"
  /// As the Finder sorts names: the locale's collation, case-insensitive, digits as numbers
  /// (`item 2` before `item 10`).
  case localizedStandardCompare = "localizedStandardCompare:"

  /// The selector named `name`, with or without its colon (`localizedStandardCompare:`).
  public init?(named name: String) {
    self.init(rawValue: name.hasSuffix(":") ? name : name + ":")
  }
}

/// The comparison of strings under the selectors other than `compare:`. The engine imports
/// nothing, and these need a locale's collation: the app supplies it on the model
/// (`Model.collation`), as Foundation's comparison with the selector's options and locale.
public protocol StringCollation: Sendable {
  /// The locale it compares in (`en_US`): what an order depends on.
  var locale: String { get }
  /// Negative, zero or positive as `a` orders before, with or after `b` under `selector`.
  func compare(_ a: String, _ b: String, by selector: SortSelector) -> Int
  /// `s` as a `[c]`/`[d]` string operator compares it: case-folded, diacritics removed, as
  /// `fold` says. O(length).
  func fold(_ s: String, _ fold: TextFold) -> String
  /// MATCHES's `pattern`, matched against whole strings, ignoring case when asked; throws
  /// `FetchError.invalidRequest` for text that is not an expression. O(pattern).
  func regularExpression(_ pattern: String, caseInsensitive: Bool) throws(FetchError) -> any RegularExpression
}

/// How one sort key's values order: `Value.compare`, or, for two strings under a selector
/// other than `compare:`, the model's collation (NULLs first, as ever).
public struct KeyOrder: Sendable {
  public let selector: SortSelector
  let collation: (any StringCollation)?

  /// `Value.compare`'s order.
  public static let values = KeyOrder(selector: .compare, collation: nil)

  public init(selector: SortSelector, collation: (any StringCollation)?) {
    self.selector = selector
    self.collation = selector == .compare ? nil : collation
  }

  /// Negative, zero or positive as `a` orders before, with or after `b`. O(length) for
  /// strings, O(1) otherwise.
  @inline(__always) public func compare(_ a: Value, _ b: Value) -> Int {
    if let collation, case .string(let x) = a, case .string(let y) = b { return collation.compare(x, y, by: selector) }
    return Value.compare(a, b)
  }
}
