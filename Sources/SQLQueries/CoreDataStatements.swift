import FetchedResults

/// Which statements a SQL store issues for a request.
public enum StatementPlan: String, Sendable, CaseIterable, Codable {
  /// FetchBench's own: a tie-breaking primary key in every ORDER BY, the section key beside
  /// every ID in one statement, prefetched relationships joined into every statement.
  case tuned
  /// What Core Data issues on SQLite (`CoreDataStatements`).
  case coreData = "coredata"
}

/// The statements Core Data issues on SQLite for a fetch request, as its SQL debug log shows
/// them (`SELECT 0, t0.Z_PK …`):
/// - the ID query joins only what its WHERE and ORDER BY use, and orders by the sort keys with
///   no tie-breaker, so rows with equal keys come in whatever order SQLite gives them;
/// - a batch reads the entity's own columns by primary key, with no join;
/// - each prefetched relationship is one more statement per batch (or per full fetch) on the
///   destination's table, by the keys the fetched rows hold;
/// - section counts are a separate grouped statement, `COUNT(DISTINCT pk)` per section key.
///
/// Compiled from the request's shape only, like `SQLBuilder`, whose predicate it reuses.
public struct CoreDataStatements: Sendable {
  public let arguments: [Value]
  let table: String
  let primaryKey: String
  let from: String
  let sectionFrom: String
  let whereClause: String
  let orderBy: String
  let ownColumns: String
  let section: String?
  let sectionDescending: Bool
  let limitClause: String

  /// `versioned`: the entity's table has Core Data's `Z_OPT` column, which a batch selects.
  public init(_ r: ResolvedRequest, versioned: Bool = false) {
    let sql = SQLBuilder(r)
    arguments = sql.arguments
    table = r.entity.table.sqlName
    primaryKey = "t0.\(r.entity.primaryKey.sqlName)"
    // Joined: what the predicate, the sort keys and the section use, never a prefetch.
    var joins: [Relationship] = []
    for rel in (r.predicate?.keyPaths.compactMap(\.relationship) ?? []) + r.sorts.compactMap(\.keyPath.relationship)
      + [r.section?.relationship].compactMap({ $0 }) where !joins.contains(rel)
    {
      joins.append(rel)
    }
    func alias(_ rel: Relationship?) -> String { rel.flatMap { joins.firstIndex(of: $0) }.map { "t\($0 + 1)" } ?? "t0" }
    func column(_ k: ResolvedKeyPath) -> String {
      let name = k.attribute.name == "id" && k.entity.attribute("id") == nil ? k.entity.primaryKey : k.attribute.column
      return "\(alias(k.relationship)).\(name.sqlName)"
    }
    func from(_ needed: [Relationship]) -> String {
      var from = "\(r.entity.table.sqlName) t0"
      for (i, rel) in joins.enumerated() where needed.contains(rel) {
        let dest = (try? r.model.entity(rel.destination))?.table ?? rel.destination
        from +=
          """
           LEFT OUTER JOIN \(dest.sqlName) t\(i + 1) ON t0.\(rel.sourceColumn.sqlName) = \
          t\(i + 1).\(rel.destinationColumn.sqlName)
          """
      }
      return from
    }
    self.from = from(joins)
    sectionFrom = from(
      (r.predicate?.keyPaths.compactMap(\.relationship) ?? []) + [r.section?.relationship].compactMap { $0 })
    whereClause = sql.whereClause
    // The engine appends the primary key to make its order total; Core Data does not.
    var sorts = r.sorts
    if let last = sorts.last, last.keyPath.relationship == nil, column(last.keyPath) == primaryKey {
      sorts.removeLast()
    }
    let terms = sorts.map { column($0.keyPath) + $0.selector.coreDataCollateClause + ($0.ascending ? "" : " DESC") }
    orderBy = terms.isEmpty ? "" : " ORDER BY " + terms.joined(separator: ", ")
    ownColumns = ((versioned ? ["t0.Z_OPT"] : []) + r.entity.attributes.map { "t0.\($0.column.sqlName)" }).joined(
      separator: ", ")
    section = r.section.map(column)
    sectionDescending = r.sorts.first.map { !$0.ascending } ?? false
    limitClause = sql.limitClause
  }

  /// The sorted IDs: `SELECT 0, t0.Z_PK FROM … ORDER BY …`.
  public var idQuery: String { "SELECT 0, \(primaryKey) FROM \(from)\(whereClause)\(orderBy)\(limitClause)" }

  /// A full fetch: every own column of every row, in order, without the prefetched ones.
  public var fullQuery: String {
    "SELECT 0, \(primaryKey), \(ownColumns) FROM \(from)\(whereClause)\(orderBy)\(limitClause)"
  }

  /// A batch of `count` IDs: own columns only, no join, no order (the caller keeps the IDs').
  public func batchQuery(count: Int) -> String {
    """
    SELECT 0, \(primaryKey), \(ownColumns) FROM \(table) t0 WHERE \(primaryKey) IN \
    (\(Array(repeating: "?", count: count).joined(separator: ",")))
    """
  }

  /// Each section key's count of distinct objects, in the section order.
  public var sectionQuery: String {
    let s = section ?? "NULL"
    return
      """
      SELECT \(s), COUNT(DISTINCT \(primaryKey)) FROM \(sectionFrom)\(whereClause) GROUP BY \(s) ORDER BY \
      \(s)\(sectionDescending ? " DESC" : "")
      """
  }

  /// `COUNT(DISTINCT pk)` of the request's rows.
  public var countQuery: String { "SELECT COUNT(DISTINCT \(primaryKey)) FROM \(from)\(whereClause)" }

  /// A prefetched relationship's rows, by the keys of `count` fetched rows (nil: the keys
  /// bound as one JSON array, where Core Data binds a long list as an int array,
  /// `_Z_intarray0`): the destination's own columns, then the column the keys match unless it
  /// is among them or is the primary key.
  public static func prefetchQuery(_ destination: Entity, matching column: String, count: Int?, versioned: Bool = false)
    -> String
  {
    let keys = count.map { Array(repeating: "?", count: $0).joined(separator: ",") } ?? "SELECT value FROM json_each(?)"
    return destinationQuery(destination, matching: column, versioned: versioned, condition: "IN (\(keys))")
  }

  /// A to-many relationship's elements for `count` source keys (nil: one JSON array): a
  /// to-many fault (one key) or its prefetch for a batch. The destination's columns as a fault
  /// reads them, then the key each element belongs to: its own column (`… FROM ZITEM t0 WHERE
  /// t0.ZFOLDER IN (?)`) or the join table's (`… FROM ZTAG t0 JOIN Z_2TAGS t1 ON t0.Z_PK =
  /// t1.Z_5TAGS WHERE t1.Z_2ITEMS IN (?)`). The shape follows Core Data's to-one statements;
  /// its to-many fault's own text is not published.
  public static func elementsQuery(_ r: ToManyRelationship, _ destination: Entity, count: Int?, versioned: Bool = false)
    -> String
  {
    let keys = count.map { Array(repeating: "?", count: $0).joined(separator: ",") } ?? "SELECT value FROM json_each(?)"
    let own = ((versioned ? ["t0.Z_OPT"] : []) + destination.attributes.map { "t0.\($0.column.sqlName)" })
    let head = "SELECT 0, t0.\(destination.primaryKey.sqlName), \(own.joined(separator: ", "))"
    // An ordered relationship's elements in its order.
    let order = { (table: String) in r.orderColumn.map { " ORDER BY \(table).\($0.sqlName)" } ?? "" }
    switch r.link {
    case .foreignKey(let column):
      return
        """
        \(head), t0.\(column.sqlName) FROM \(destination.table.sqlName) t0 WHERE t0.\(column.sqlName) IN \
        (\(keys))\(order("t0"))
        """
    case .joinTable(let join):
      return
        """
        \(head), t1.\(join.sourceColumn.sqlName) FROM \(destination.table.sqlName) t0 JOIN \(join.table.sqlName) t1 ON \
        t0.\(destination.primaryKey.sqlName) = t1.\(join.destinationColumn.sqlName) WHERE t1.\(join.sourceColumn.sqlName) \
        IN (\(keys))\(order("t1"))
        """
    }
  }

  /// A relationship fault on one related object: the prefetch's columns, by one key
  /// (`… WHERE t0.Z_PK = ?`).
  public static func faultQuery(_ destination: Entity, matching column: String, versioned: Bool = false) -> String {
    destinationQuery(destination, matching: column, versioned: versioned, condition: "= ?")
  }

  private static func destinationQuery(
    _ destination: Entity, matching column: String, versioned: Bool, condition: String
  )
    -> String
  {
    let read = column == destination.primaryKey || destination.attributes.contains { $0.column == column }
    let matched = read ? [] : ["t0.\(column.sqlName)"]
    let own = ((versioned ? ["t0.Z_OPT"] : []) + destination.attributes.map { "t0.\($0.column.sqlName)" } + matched)
      .joined(separator: ", ")
    return
      """
      SELECT 0, t0.\(destination.primaryKey.sqlName), \(own) FROM \(destination.table.sqlName) t0 WHERE \
      t0.\(column.sqlName) \(condition)
      """
  }
}
