import FetchedResults

/// A column's type affinity, by SQLite's rules for its declared type (datatype3.html §3.1):
/// what an app's own schema declares (`VARCHAR(255)`, `TIMESTAMP`, `BOOLEAN`) maps to one of
/// five.
public enum Affinity: String, Sendable {
  case integer = "INTEGER"
  case text = "TEXT"
  case blob = "BLOB"
  case real = "REAL"
  case numeric = "NUMERIC"

  /// The affinity of a column declared `declaredType`, by the first rule that applies. O(type).
  public init(declaredType: String) {
    let t = declaredType.uppercased()
    if t.contains("INT") {
      self = .integer
    } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
      self = .text
    } else if t.contains("BLOB") || t.isEmpty {
      self = .blob
    } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
      self = .real
    } else {
      self = .numeric
    }
  }

  /// Whether a column of this affinity can hold an attribute of `type` as the store reads it.
  public func holds(_ type: AttributeType) -> Bool {
    switch type {
    case .string: self != .integer && self != .real
    case .integer, .bool: self == .integer || self == .numeric
    case .double, .date: self == .real || self == .numeric || self == .integer
    }
  }
}
