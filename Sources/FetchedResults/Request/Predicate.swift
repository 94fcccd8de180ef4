/// Comparison operators of a predicate.
public enum ComparisonOperator: String, Sendable, Equatable, Codable {
  case equal = "="
  case notEqual = "!="
  case less = "<"
  case lessOrEqual = "<="
  case greater = ">"
  case
    greaterOrEqual = ">="
}

/// NSPredicate's string operators: UTF-8 bytes compared (`LIKE` Unicode scalars: `?` one, `*`
/// any run), after a `TextFold` when the operator carries a `[c]`/`[d]` modifier. `equals` is
/// `==` with a modifier (without one, `==` is a comparison).
public enum TextOperator: String, Sendable, Equatable, CaseIterable, Codable {
  case beginsWith = "BEGINSWITH"
  case contains = "CONTAINS"
  case endsWith = "ENDSWITH"
  case like = "LIKE"
  case equals = "=="
  /// A regular expression matching the whole string (`[c]`: ignoring case).
  case matches = "MATCHES"
}

/// NSPredicate's `[c]` and `[d]` modifiers: both sides of a string operator folded first —
/// case-insensitive (Unicode case folding: `ß` matches `ss`), diacritic-insensitive (`é`
/// matches `e`) — by the model's `StringCollation` (Foundation's `folding(options:locale:)`).
public struct TextFold: OptionSet, Sendable, Hashable, Codable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let caseInsensitive = TextFold(rawValue: 1)
  public static let diacriticInsensitive = TextFold(rawValue: 2)

  /// `[c]`, `[d]`, `[cd]`, or nothing.
  public var modifier: String {
    let letters = (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "")
    return letters.isEmpty ? "" : "[\(letters)]"
  }
}

/// A filter over an entity's attributes, its to-one key paths and its to-many relationships'
/// destination rows (a subset of NSPredicate).
///
/// Values compare as SQL does: a comparison with NULL is unknown, and unknown is not true, so
/// `NOT (field > 5)` excludes rows whose field is NULL in every store alike. `= nil` and
/// `!= nil` test for NULL.
public indirect enum FetchPredicate: Sendable, Equatable, Codable {
  case comparison(String, ComparisonOperator, Value)
  /// A comparison in a sort selector's order (equal: neither orders first), as a keyset page
  /// seeks past the previous page's last key; not in the text form.
  case ordered(String, ComparisonOperator, Value, SortSelector)
  /// Inclusive, as NSPredicate's BETWEEN.
  case between(String, Value, Value)
  case `in`(String, [Value])
  /// A string operator on a key path and a pattern (`TextOperator`), both folded first by
  /// `fold`'s modifiers.
  case text(String, TextOperator, String, TextFold = [])
  case and([FetchPredicate])
  case or([FetchPredicate])
  case not(FetchPredicate)
  case constant(Bool)
  /// A test of a to-many relationship's destination rows (`ANY tags.name == 'x'`,
  /// `tags.@count > 2`), the inner predicates' key paths the destination's own.
  case collection(String, CollectionTest)
}

/// What a predicate asks of a to-many relationship's destination rows. Each is true or false,
/// never unknown, as SQL's `EXISTS` and a count are: an element whose inner predicate is
/// unknown does not match it.
public indirect enum CollectionTest: Sendable, Equatable, Codable {
  /// `ANY`/`SOME`: at least one element matches.
  case any(FetchPredicate)
  /// `ALL`: every element matches (true when there are none).
  case all(FetchPredicate)
  /// `NONE`: no element matches.
  case none(FetchPredicate)
  /// `@count` (every element) or `SUBQUERY(…).@count` (the elements that match) compared
  /// with a number.
  case count(FetchPredicate?, ComparisonOperator, Int64)
}

extension FetchPredicate {
  /// How much of a statement the predicate makes: its comparisons (each a term of the SQL
  /// expression, nested ones counted where they stand) and the values it binds. O(size).
  public var size: (comparisons: Int, values: Int) {
    switch self {
    case .comparison, .ordered, .text: (1, 1)
    case .between: (1, 2)
    case .in(_, let values): (1, values.count)
    case .constant: (1, 0)
    case .not(let p): p.size
    case .and(let ps), .or(let ps):
      ps.reduce((0, 0)) { total, p in
        let s = p.size
        return (total.0 + s.comparisons, total.1 + s.values)
      }
    case .collection(_, let test):
      switch test {
      case .any(let p), .all(let p), .none(let p): p.size
      case .count(let p, _, _):
        p.map { s in (s.size.comparisons + 1, s.size.values + 1) } ?? (1, 1)
      }
    }
  }
}
