/// Comparison operators of a predicate.
public enum ComparisonOperator: String, Sendable, Equatable {
  case equal = "="
  case notEqual = "!="
  case less = "<"
  case lessOrEqual = "<="
  case greater = ">"
  case
    greaterOrEqual = ">="
}

/// NSPredicate's string operators without a `[c]`/`[d]` modifier: case- and
/// diacritic-sensitive, comparing UTF-8 bytes (`LIKE` Unicode scalars: `?` one, `*` any run).
public enum TextOperator: String, Sendable, Equatable, CaseIterable {
  case beginsWith = "BEGINSWITH"
  case contains = "CONTAINS"
  case endsWith = "ENDSWITH"
  case like = "LIKE"
}

/// A filter over an entity's attributes and to-one key paths (a subset of NSPredicate).
///
/// Values compare as SQL does: a comparison with NULL is unknown, and unknown is not true, so
/// `NOT (field > 5)` excludes rows whose field is NULL in every store alike. `= nil` and
/// `!= nil` test for NULL.
public indirect enum FetchPredicate: Sendable, Equatable {
  case comparison(String, ComparisonOperator, Value)
  /// A comparison in a sort selector's order (equal: neither orders first), as a keyset page
  /// seeks past the previous page's last key; not in the text form.
  case ordered(String, ComparisonOperator, Value, SortSelector)
  /// Inclusive, as NSPredicate's BETWEEN.
  case between(String, Value, Value)
  case `in`(String, [Value])
  /// A string operator on a key path and a pattern (`TextOperator`).
  case text(String, TextOperator, String)
  case and([FetchPredicate])
  case or([FetchPredicate])
  case not(FetchPredicate)
  case constant(Bool)
}
