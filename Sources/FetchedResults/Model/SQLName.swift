/// A table's or a column's name as it stands in an SQL statement, in SQLite and PostgreSQL
/// alike: a plain word in one case that is no keyword of either stays as it is (`ZFLIGHT`,
/// `t0.Z_PK`, `close_date`, so statements read as Core Data's logs show them); any other name
/// (`order`, `group`, a space, a quote, `createdAt`) is put in double quotes with its quotes
/// doubled. PostgreSQL folds an unquoted name to lower case, where FetchBench creates a table
/// and where it reads one alike; a name in mixed case is quoted so that it keeps its case there.
extension String {
  /// The name, quoted when it must be. O(length).
  public var sqlName: String {
    if SQLName.isPlain(self) { return self }
    var quoted = "\""
    for c in self {
      quoted.append(c)
      if c == "\"" { quoted.append(c) }
    }
    return quoted + "\""
  }

  /// The name as PostgreSQL stores it when FetchBench's statements name it (`sqlName`): an
  /// unquoted word folded to lower case, a quoted one as it is. O(length).
  public var postgresStoredName: String {
    SQLName.isPlain(self) ? lowercased() : self
  }
}

enum SQLName {
  static func isPlain(_ name: String) -> Bool {
    guard let first = name.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
    guard
      name.utf8.allSatisfy({
        $0 == UInt8(ascii: "_") || isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
      })
    else { return false }
    return !keywords.contains(name.uppercased()) && !isMixedCase(name)
  }

  /// Both lower- and upper-case letters: a name PostgreSQL would fold if it stood unquoted.
  static func isMixedCase(_ name: String) -> Bool {
    let upper = (UInt8(ascii: "A")...UInt8(ascii: "Z"))
    let lower = (UInt8(ascii: "a")...UInt8(ascii: "z"))
    return name.utf8.contains(where: upper.contains) && name.utf8.contains(where: lower.contains)
  }

  static func isLetter(_ c: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
  }

  /// SQLite's keywords (sqlite.org/lang_keywords.html) and PostgreSQL's reserved words.
  static let keywords: Set<String> = [
    "ABORT", "ACTION", "ADD", "AFTER", "ALL", "ALTER", "ALWAYS", "ANALYZE", "AND", "AS", "ASC", "ATTACH",
    "AUTOINCREMENT",
    "BEFORE", "BEGIN", "BETWEEN", "BY", "CASCADE", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN", "COMMIT", "CONFLICT",
    "CONSTRAINT", "CREATE", "CROSS", "CURRENT", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "DATABASE",
    "DEFAULT",
    "DEFERRABLE", "DEFERRED", "DELETE", "DESC", "DETACH", "DISTINCT", "DO", "DROP", "EACH", "ELSE", "END", "ESCAPE",
    "EXCEPT",
    "EXCLUDE", "EXCLUSIVE", "EXISTS", "EXPLAIN", "FAIL", "FILTER", "FIRST", "FOLLOWING", "FOR", "FOREIGN", "FROM",
    "FULL",
    "GENERATED", "GLOB", "GROUP", "GROUPS", "HAVING", "IF", "IGNORE", "IMMEDIATE", "IN", "INDEX", "INDEXED",
    "INITIALLY",
    "INNER", "INSERT", "INSTEAD", "INTERSECT", "INTO", "IS", "ISNULL", "JOIN", "KEY", "LAST", "LEFT", "LIKE", "LIMIT",
    "MATCH",
    "MATERIALIZED", "NATURAL", "NO", "NOT", "NOTHING", "NOTNULL", "NULL", "NULLS", "OF", "OFFSET", "ON", "OR", "ORDER",
    "OTHERS", "OUTER", "OVER", "PARTITION", "PLAN", "PRAGMA", "PRECEDING", "PRIMARY", "QUERY", "RAISE", "RANGE",
    "RECURSIVE",
    "REFERENCES", "REGEXP", "REINDEX", "RELEASE", "RENAME", "REPLACE", "RESTRICT", "RETURNING", "RIGHT", "ROLLBACK",
    "ROW",
    "ROWS", "SAVEPOINT", "SELECT", "SET", "TABLE", "TEMP", "TEMPORARY", "THEN", "TIES", "TO", "TRANSACTION", "TRIGGER",
    "UNBOUNDED", "UNION", "UNIQUE", "UPDATE", "USING", "VACUUM", "VALUES", "VIEW", "VIRTUAL", "WHEN", "WHERE", "WINDOW",
    "WITH",
    "WITHOUT",
    // PostgreSQL's reserved words that SQLite does not reserve.
    "ANALYSE", "ANY", "ARRAY", "ASYMMETRIC", "AUTHORIZATION", "BINARY", "BOTH", "COLLATION", "CONCURRENTLY",
    "CURRENT_CATALOG",
    "CURRENT_ROLE", "CURRENT_SCHEMA", "CURRENT_USER", "FALSE", "FETCH", "FREEZE", "GRANT", "ILIKE", "LATERAL",
    "LEADING",
    "LOCALTIME", "LOCALTIMESTAMP", "ONLY", "OVERLAPS", "PLACING", "SESSION_USER", "SIMILAR", "SOME", "SYMMETRIC",
    "TABLESAMPLE",
    "TRAILING", "TRUE", "USER", "VARIADIC", "VERBOSE",
  ]
}
