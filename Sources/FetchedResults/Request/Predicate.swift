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

/// A filter over an entity's attributes and to-one key paths (a subset of NSPredicate).
///
/// Values compare as SQL does: a comparison with NULL is unknown, and unknown is not true, so
/// `NOT (field > 5)` excludes rows whose field is NULL in every store alike. `= nil` and
/// `!= nil` test for NULL.
public indirect enum FetchPredicate: Sendable, Equatable {
  case comparison(String, ComparisonOperator, Value)
  /// Inclusive, as NSPredicate's BETWEEN.
  case between(String, Value, Value)
  case `in`(String, [Value])
  /// Case- and diacritic-sensitive, byte-wise (NSPredicate without `[cd]`).
  case beginsWith(String, String)
  case contains(String, String)
  case and([FetchPredicate])
  case or([FetchPredicate])
  case not(FetchPredicate)
  case constant(Bool)
}
