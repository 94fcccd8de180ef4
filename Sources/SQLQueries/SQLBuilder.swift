import FetchedResults
import Foundation

/// The SQL spellings that differ between the stores' servers.
public enum SQLDialect: Sendable {
  case sqlite, postgres

  /// The n-th parameter (1-based).
  func parameter(_ n: Int) -> String { self == .sqlite ? "?" : "$\(n)" }
  /// NULLs sort first ascending (SQLite's order, and the engine's); PostgreSQL needs telling.
  func direction(ascending: Bool) -> String {
    switch self {
    case .sqlite: ascending ? "ASC" : "DESC"
    case .postgres: ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
    }
  }
  /// `expression` folded as a `[c]`/`[d]` modifier says: SQLite through the model's
  /// collation (`fetchbench_fold`, registered with each connection), PostgreSQL by `lower()`
  /// (its stores refuse `[d]`); itself without a modifier.
  func fold(_ expression: String, _ fold: TextFold) -> String {
    guard !fold.isEmpty else { return expression }
    return self == .sqlite ? "\(SQLDialect.foldFunction)(\(expression), \(fold.rawValue))" : "lower(\(expression))"
  }
  /// The SQL function SQLite folds a string operator's sides with.
  public static let foldFunction = "fetchbench_fold"
  /// The SQL function SQLite matches MATCHES's regular expression with: the memory store's
  /// `TextMatch`, registered with each connection.
  public static let matchesFunction = "fetchbench_matches"
  /// MATCHES: SQLite's registered function (the `TextFold` as its third argument), or
  /// PostgreSQL's `~` (`~*` ignoring case) anchored to the whole string, the nearest of its
  /// own regular expressions (POSIX ARE, whose syntax ICU's shares for classes, quantifiers,
  /// alternation and anchors).
  func matches(_ column: String, _ pattern: String, _ fold: TextFold) -> String {
    switch self {
    case .sqlite: "\(SQLDialect.matchesFunction)(\(column), \(pattern), \(fold.rawValue))"
    case .postgres: "\(column) \(fold.contains(.caseInsensitive) ? "~*" : "~") ('^(?:' || \(pattern) || ')$')"
    }
  }
  /// ` COLLATE …` after a string key ordered under `selector` in `locale` (`en_US`): SQLite's
  /// collation registered for the selector; on PostgreSQL the server's predefined ICU
  /// collation of the locale (`"en-US-x-icu"`) for `localizedCompare:`, which orders as
  /// Foundation's does on the tests' names (its store refuses the other selectors); nothing
  /// for `compare:`.
  public func collateClause(_ selector: SortSelector, locale: String?) -> String {
    guard self == .postgres else { return selector.collateClause }
    guard selector == .localizedCompare else { return "" }
    let tag = (locale ?? "en_US").replacingOccurrences(of: "_", with: "-")
    return " COLLATE \"\(tag)-x-icu\""
  }
  /// The 1-based position of `needle` in `haystack`, 0 if absent.
  func position(_ needle: String, in haystack: String) -> String {
    self == .sqlite ? "instr(\(haystack), \(needle))" : "strpos(\(haystack), \(needle))"
  }
}

extension SortSelector {
  /// The collation the SQL stores order a string key by under this selector: registered
  /// with each SQLite connection, created as an ICU collation on PostgreSQL; nil for
  /// `compare:` (SQLite's BINARY, PostgreSQL's "C").
  public var collationName: String? { self == .compare ? nil : "fetchbench_" + rawValue.dropLast() }

  /// The collation Core Data's statements name where its published logs show one:
  /// `NSCollateLocaleSensitive` for a `localizedCompare:`-style sort.
  public static let coreDataLocaleSensitive = "NSCollateLocaleSensitive"

  /// ` COLLATE …` in Core Data's statements: Core Data's name for `localizedCompare:`,
  /// FetchBench's for the selectors whose collation names Core Data has not published.
  public var coreDataCollateClause: String {
    self == .localizedCompare ? " COLLATE \(Self.coreDataLocaleSensitive)" : collateClause
  }

  /// Every collation a SQLite connection registers, by name: each selector's, and Core Data's
  /// name for the one its statements name. O(selectors).
  public static var sqliteCollations: [(name: String, selector: SortSelector)] {
    allCases.compactMap { s in s.collationName.map { ($0, s) } } + [(coreDataLocaleSensitive, .localizedCompare)]
  }

  /// ` COLLATE "fetchbench_…"` after a column, or nothing for `compare:`.
  public var collateClause: String { collationName.map { " COLLATE \"\($0)\"" } ?? "" }
}

/// Compiles a resolved request to SQL, shared by the SQL stores. The text depends only on the
/// request's shape, so a statement cache reuses one prepared statement per shape.
public struct SQLBuilder: Sendable {
  public let dialect: SQLDialect
  /// The predicate's literals, in parameter order.
  public let arguments: [Value]
  let from: String
  /// `from` with only the joins the predicate and the section key use.
  let sectionFrom: String
  let whereClause: String
  let orderBy: String
  let limitClause: String
  let selectColumns: String
  let sectionExpression: String?
  /// How sections are ordered: the first sort's collation (empty for `compare:`).
  let sectionCollate: String
  let sectionDescending: Bool
  let hasLimit: Bool
  /// The sort keys but the final primary key, as select-list expressions.
  let keyColumns: String
  /// The entity's primary key, qualified: `t0.id`, `t0.Z_PK`.
  let primaryKey: String

  public init(_ r: ResolvedRequest, dialect: SQLDialect = .sqlite) {
    self.dialect = dialect
    primaryKey = "t0.\(r.entity.primaryKey.sqlName)"
    // t0 is the entity; t1, t2… the joined destinations, in `joins` order.
    let joins = r.joins
    func alias(_ rel: Relationship?) -> String {
      guard let rel, let i = joins.firstIndex(of: rel) else { return "t0" }
      return "t\(i + 1)"
    }
    let locale = r.model.collation?.locale
    func collate(_ selector: SortSelector) -> String { dialect.collateClause(selector, locale: locale) }
    func column(_ k: ResolvedKeyPath) -> String {
      let name = k.attribute.name == "id" && k.entity.attribute("id") == nil ? k.entity.primaryKey : k.attribute.column
      return "\(alias(k.relationship)).\(name.sqlName)"
    }
    // Only the joins a statement uses: a LEFT JOIN through a to-one relationship neither adds
    // nor drops rows, so the section counts need only the predicate's and the section's.
    func from(_ needed: (Relationship) -> Bool) -> String {
      var from = "\(r.entity.table.sqlName) t0"
      for (i, rel) in joins.enumerated() where needed(rel) {
        let dest = (try? r.model.entity(rel.destination))?.table ?? rel.destination
        from +=
          """
           LEFT JOIN \(dest.sqlName) t\(i + 1) ON t\(i + 1).\(rel.destinationColumn.sqlName) = \
          t0.\(rel.sourceColumn.sqlName)
          """
      }
      return from
    }
    self.from = from { _ in true }
    let countingJoins =
      (r.predicate?.keyPaths.compactMap(\.relationship) ?? []) + [r.section?.relationship].compactMap { $0 }
    sectionFrom = from { countingJoins.contains($0) }
    var values: [Value] = []
    if let p = r.predicate {
      whereClause = " WHERE " + Self.compile(p, column, collate, dialect, &values)
    } else {
      whereClause = ""
    }
    arguments = values
    orderBy =
      " ORDER BY "
      + r.sorts.map {
        "\(column($0.keyPath))\(collate($0.selector)) \(dialect.direction(ascending: $0.ascending))"
      }.joined(separator: ", ")
    let limit = r.request.fetchLimit
    let offset = r.request.fetchOffset
    hasLimit = limit > 0 || offset > 0
    let noLimit = dialect == .sqlite ? "-1" : "ALL"
    limitClause = hasLimit ? " LIMIT \(limit > 0 ? String(limit) : noLimit) OFFSET \(offset)" : ""
    var cols = [primaryKey] + r.entity.attributes.map { "t0.\($0.column.sqlName)" }
    for rel in r.prefetch {
      if let dest = try? r.model.entity(rel.destination) {
        cols += dest.attributes.map { "\(alias(rel)).\($0.column.sqlName)" }
      }
    }
    selectColumns = cols.joined(separator: ", ")
    keyColumns = ([primaryKey] + r.sorts.dropLast().map { column($0.keyPath) }).joined(separator: ", ")
    sectionExpression = r.section.map(column)
    sectionCollate = r.sorts.first.map { collate($0.selector) } ?? ""
    sectionDescending = r.sorts.first.map { !$0.ascending } ?? false
  }

  /// A relationship fault on one related object: the destination's primary key and
  /// attributes, by the column the relationship matches (`… FROM dest t0 WHERE t0.info_id = ?`).
  public static func faultQuery(_ destination: Entity, matching column: String, dialect: SQLDialect = .sqlite)
    -> String
  {
    let columns = ([destination.primaryKey] + destination.attributes.map(\.column)).map { "t0.\($0.sqlName)" }
    return
      """
      SELECT \(columns.joined(separator: ", ")) FROM \(destination.table.sqlName) t0 \
      WHERE t0.\(column.sqlName) = \(dialect.parameter(1))
      """
  }

  /// A to-many relationship's elements for a list of source keys: the key each belongs to,
  /// the element's primary key, then the destination's attributes (`SELECT s1.folder_id,
  /// s1.id, … FROM notes s1 WHERE s1.folder_id IN (?,?)`; through the join table for a
  /// many-to-many). The keys: `count` parameters; nil: SQLite's one JSON array (`json_each`),
  /// PostgreSQL's one bigint[].
  public static func elementsQuery(
    _ r: ToManyRelationship, _ destination: Entity, count: Int?, dialect: SQLDialect = .sqlite
  ) -> String {
    let keys =
      switch (dialect, count) {
      case (.postgres, _): "= ANY(\(dialect.parameter(1))::bigint[])"
      case (.sqlite, let n?): "IN (\(Array(repeating: "?", count: n).joined(separator: ",")))"
      case (.sqlite, nil): "IN (SELECT value FROM json_each(?))"
      }
    let columns = ([destination.primaryKey] + destination.attributes.map(\.column)).map { "s1.\($0.sqlName)" }
    // An ordered relationship's elements in its order.
    let order = { (table: String) in r.orderColumn.map { " ORDER BY \(table).\($0.sqlName)" } ?? "" }
    switch r.link {
    case .foreignKey(let column):
      return
        """
        SELECT s1.\(column.sqlName), \(columns.joined(separator: ", ")) FROM \(destination.table.sqlName) s1 WHERE \
        s1.\(column.sqlName) \(keys)\(order("s1"))
        """
    case .joinTable(let join):
      return
        """
        SELECT j1.\(join.sourceColumn.sqlName), \(columns.joined(separator: ", ")) FROM \(join.table.sqlName) j1 JOIN \
        \(destination.table.sqlName) s1 ON s1.\(destination.primaryKey.sqlName) = j1.\(join.destinationColumn.sqlName) \
        WHERE j1.\(join.sourceColumn.sqlName) \(keys)\(order("j1"))
        """
    }
  }

  /// Every row of a join table as (source key, destination key).
  public static func joinRowsQuery(_ join: JoinTable) -> String {
    let order = join.orderColumn.map { " ORDER BY \(join.sourceColumn.sqlName), \($0.sqlName)" } ?? ""
    return "SELECT \(join.sourceColumn.sqlName), \(join.destinationColumn.sqlName) FROM \(join.table.sqlName)\(order)"
  }

  public var idQuery: String { "SELECT \(primaryKey) FROM \(from)\(whereClause)\(orderBy)\(limitClause)" }
  /// The ID query with the section key as a second column (NULL without sections).
  public var idAndSectionQuery: String {
    "SELECT \(primaryKey), \(sectionExpression ?? "NULL") FROM \(from)\(whereClause)\(orderBy)\(limitClause)"
  }
  public var fullQuery: String { "SELECT \(selectColumns) FROM \(from)\(whereClause)\(orderBy)\(limitClause)" }
  /// Rows by a list of `count` IDs (SQLite: `IN (?,…)`, one statement per count).
  public func rowsByIDQuery(count: Int) -> String {
    "SELECT \(selectColumns) FROM \(from) WHERE \(primaryKey) IN (\(parameters(from: 1, count: count)))"
  }

  /// Rows by an array of IDs bound as parameter `n` (PostgreSQL: `= ANY($n)`, one statement).
  public func rowsByIDArrayQuery(parameter n: Int) -> String {
    "SELECT \(selectColumns) FROM \(from) WHERE \(primaryKey) = ANY(\(dialect.parameter(n))::bigint[])"
  }

  func parameters(from first: Int, count: Int) -> String {
    (first..<(first + count)).map { dialect.parameter($0) }.joined(separator: ",")
  }
  public var keyQuery: String { "SELECT \(keyColumns) FROM \(from)\(whereClause)\(orderBy)\(limitClause)" }
  /// The predicate's arguments bind first, then the IDs.
  public func keysByIDQuery(count: Int) -> String {
    let ids = "\(primaryKey) IN (\(parameters(from: arguments.count + 1, count: count)))"
    return "SELECT \(keyColumns) FROM \(from)\(whereClause.isEmpty ? " WHERE " : whereClause + " AND ")\(ids)"
  }
  /// Keys of an array of IDs bound after the predicate's arguments (PostgreSQL).
  public var keysByIDArrayQuery: String {
    let ids = "\(primaryKey) = ANY(\(dialect.parameter(arguments.count + 1))::bigint[])"
    return "SELECT \(keyColumns) FROM \(from)\(whereClause.isEmpty ? " WHERE " : whereClause + " AND ")\(ids)"
  }

  public var countQuery: String {
    hasLimit
      ? "SELECT count(*) FROM (SELECT \(primaryKey) FROM \(from)\(whereClause)\(orderBy)\(limitClause)) AS q"
      : "SELECT count(*) FROM \(from)\(whereClause)"
  }
  /// One grouped query; with a limit or offset it groups the limited, ordered rows.
  public var sectionQuery: String {
    let s = sectionExpression ?? "NULL"
    let dir = dialect.direction(ascending: !sectionDescending)
    if hasLimit {
      return
        """
        SELECT s, count(*) FROM (SELECT \(s) AS s FROM \(from)\(whereClause)\(orderBy)\(limitClause)) AS q GROUP BY \
        s ORDER BY s\(sectionCollate) \(dir)
        """
    }
    return "SELECT \(s), count(*) FROM \(sectionFrom)\(whereClause) GROUP BY \(s) ORDER BY \(s)\(sectionCollate) \(dir)"
  }

  /// A sectioned performFetch in one PostgreSQL statement: one row per section value, in list
  /// order, with its count and its IDs as a bigint[]. The rows are sorted once, by the request's
  /// order inside the subquery; the request sorts by the section key first, so the groups arrive
  /// in that order and the plan aggregates them as they come (GroupAggregate, no second sort).
  /// `array_agg` keeps its input's order when, as here, the outer level only groups: PostgreSQL's
  /// documented "sorted subquery" form. A window-numbered CTE instead cost 2.3x the two queries.
  public var idArraysBySectionQuery: String {
    let s = sectionExpression ?? "NULL"
    let dir = dialect.direction(ascending: !sectionDescending)
    return
      """
      SELECT s, count(*), array_agg(id) FROM (SELECT \(primaryKey) AS id, \(s) AS s FROM \
      \(from)\(whereClause)\(orderBy)\(limitClause))
      """
        + " AS q GROUP BY s ORDER BY s\(sectionCollate) \(dir)"
  }

  private static func compile(
    _ p: BoundPredicate, _ column: (ResolvedKeyPath) -> String, _ collate: (SortSelector) -> String,
    _ dialect: SQLDialect, _ values: inout [Value]
  ) -> String {
    func bind(_ v: Value) -> String {
      values.append(v)
      return dialect.parameter(values.count)
    }
    switch p {
    // PostgreSQL takes no integer where a condition goes; SQLite has no TRUE before 3.23.
    case .constant(let b): return dialect == .sqlite ? (b ? "1" : "0") : (b ? "TRUE" : "FALSE")
    case .comparison(let k, let op, let v):
      return compile(.ordered(k, op, v, .values), column, collate, dialect, &values)
    case .ordered(let k, let op, let v, let order):
      if v.isNull {
        switch op {
        case .equal: return "\(column(k)) IS NULL"
        case .notEqual: return "\(column(k)) IS NOT NULL"
        default: return "NULL"
        }
      }
      return "\(column(k))\(collate(order.selector)) \(op.rawValue) \(bind(v))"
    case .between(let k, let lo, let hi):
      return "\(column(k)) BETWEEN \(bind(lo)) AND \(bind(hi))"
    case .in(let k, let values):
      if values.isEmpty { return "0" }
      return "\(column(k)) IN (\(values.map(bind).joined(separator: ",")))"
    case .text(let k, let op, let s, let fold):
      return text(column(k), op, s, fold, dialect, bind)
    case .and(let ps):
      return "(" + ps.map { compile($0, column, collate, dialect, &values) }.joined(separator: " AND ") + ")"
    case .or(let ps):
      return "(" + ps.map { compile($0, column, collate, dialect, &values) }.joined(separator: " OR ") + ")"
    case .not(let q): return "NOT (" + compile(q, column, collate, dialect, &values) + ")"
    case .collection(let c): return collection(c, owner: column, collate, dialect, &values)
    }
  }

  /// A test of a to-many relationship as a correlated subquery on the destination (`s1`),
  /// through the join table (`j1`) for a many-to-many: `EXISTS` for ANY, `NOT EXISTS` for NONE
  /// and for ALL (no element the test does not make true), a counting subquery compared with
  /// the number for `@count` and `SUBQUERY(…).@count`. Core Data's own statements for these
  /// are not published; this is the translation its SQL for to-one key paths suggests.
  private static func collection(
    _ c: BoundCollection, owner: (ResolvedKeyPath) -> String, _ collate: (SortSelector) -> String,
    _ dialect: SQLDialect, _ values: inout [Value]
  ) -> String {
    let r = c.relationship
    let source = "t0.\(r.sourceColumn.sqlName)"
    let destination = "\(c.destination.table.sqlName) s1"
    var from: String
    var conditions: [String]
    switch r.link {
    case .foreignKey(let column):
      from = destination
      conditions = ["s1.\(column.sqlName) = \(source)"]
    case .joinTable(let join):
      from = "\(join.table.sqlName) j1"
      conditions = ["j1.\(join.sourceColumn.sqlName) = \(source)"]
      // Joined even for a bare count: a pair whose destination row is gone is no element.
      from += " JOIN \(destination) ON s1.\(c.destination.primaryKey.sqlName) = j1.\(join.destinationColumn.sqlName)"
    }
    func inner(_ k: ResolvedKeyPath) -> String {
      let name = k.attribute.name == "id" && k.entity.attribute("id") == nil ? k.entity.primaryKey : k.attribute.column
      return "s1.\(name.sqlName)"
    }
    if let rows = c.rows { conditions.append(compile(rows, inner, collate, dialect, &values)) }
    if let test = c.test {
      let sql = compile(test, inner, collate, dialect, &values)
      conditions.append(c.negated ? "(\(sql)) IS NOT TRUE" : sql)
    }
    let body = "FROM \(from) WHERE \(conditions.joined(separator: " AND "))"
    switch (c.comparison, c.count) {
    case (.greater, 0): return "EXISTS (SELECT 1 \(body))"
    case (.equal, 0): return "NOT EXISTS (SELECT 1 \(body))"
    default:
      values.append(.integer(c.count))
      return "(SELECT count(*) \(body)) \(c.comparison.rawValue) \(dialect.parameter(values.count))"
    }
  }
}

extension SQLBuilder {
  /// A string operator as `TextMatch` defines it. BEGINSWITH and CONTAINS by position, not
  /// LIKE, which ignores ASCII case in SQLite; ENDSWITH by the column's last characters (an
  /// empty pattern matches, as its empty suffix); LIKE's `?` and `*` as SQLite's GLOB (its
  /// `[` escaped) and PostgreSQL's LIKE (`_` and `%`, theirs escaped).
  static func text(
    _ column: String, _ op: TextOperator, _ pattern: String, _ fold: TextFold, _ dialect: SQLDialect,
    _ bind: (Value) -> String
  ) -> String {
    if op == .matches { return dialect.matches(column, bind(.string(pattern)), fold) }
    // With a modifier, both sides folded as the memory store folds them.
    let column = dialect.fold(column, fold)
    return withoutActuallyEscaping(bind) { bound in
      let bind = { (v: Value) in dialect.fold(bound(v), fold) }
      return text(column, op, pattern, dialect, bind)
    }
  }

  private static func text(
    _ column: String, _ op: TextOperator, _ pattern: String, _ dialect: SQLDialect, _ bind: (Value) -> String
  ) -> String {
    switch op {
    case .matches: return dialect.matches(column, bind(.string(pattern)), [])
    case .equals: return "\(column) = \(bind(.string(pattern)))"
    case .beginsWith: return "\(dialect.position(bind(.string(pattern)), in: column)) = 1"
    case .contains: return "\(dialect.position(bind(.string(pattern)), in: column)) > 0"
    case .endsWith:
      // Bound twice: SQLite's `?`s are positional.
      let (length, suffix) = (bind(.string(pattern)), bind(.string(pattern)))
      return "substr(\(column), length(\(column)) - length(\(length)) + 1) = \(suffix)"
    case .like:
      switch dialect {
      case .sqlite:
        return "\(column) GLOB \(bind(.string(pattern.map { $0 == "[" ? "[[]" : String($0) }.joined())))"
      case .postgres:
        var escaped = ""
        for c in pattern {
          switch c {
          case "\\", "%", "_": escaped += "\\\(c)"
          case "*": escaped += "%"
          case "?": escaped += "_"
          default: escaped.append(c)
          }
        }
        return "\(column) LIKE \(bind(.string(escaped)))"
      }
    }
  }

  /// `sql` (one of this request's PostgreSQL statements) with each `$n` replaced by the
  /// predicate's n-th argument as a literal: for EXPLAIN, which plans no unbound parameter.
  /// O(sql × arguments).
  public func inliningArguments(_ sql: String) -> String {
    var out = sql
    // From the last: `$1` must not match the start of `$10`.
    for (i, v) in arguments.enumerated().reversed() { out = out.replacing("$\(i + 1)", with: Self.literal(v)) }
    return out
  }

  /// `v` as an SQL literal; text quoted with its quotes doubled, dates as their seconds.
  static func literal(_ v: Value) -> String {
    switch v {
    case .null: "NULL"
    case .integer(let n): String(n)
    case .double(let d), .date(let d): String(d)
    case .string(let s): "'" + s.replacing("'", with: "''") + "'"
    case .bool(let b): b ? "TRUE" : "FALSE"
    }
  }
}
