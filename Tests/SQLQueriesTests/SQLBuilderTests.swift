import Collation
import FetchedResults
import Foundation
import SQLQueries
import Testing

/// The SQL both SQL stores run, as exact text: one assertion per statement and dialect, so a
/// change to a statement is a change to a test (as postgres-nio asserts each action).
@Suite struct SQLBuilderStatements {
  static let model = Model(entities: [
    Entity(
      name: "Bank", table: "banks",
      attributes: [
        Attribute("name", .string), Attribute("state", .string),
        Attribute("detailsID", column: "details_id", .integer, optional: true),
      ],
      relationships: [Relationship("details", to: "Details", sourceColumn: "details_id", destinationColumn: "id")]),
    Entity(name: "Details", table: "details", attributes: [Attribute("closeDate", column: "close_date", .date)]),
  ])

  static func builder(
    sort: [FetchedResults.SortDescriptor], predicate: String? = nil, section: String? = nil,
    dialect: SQLDialect = .sqlite
  ) throws -> SQLBuilder {
    var request = FetchRequest(entityName: "Bank", sortDescriptors: sort)
    if let predicate { request.predicate = try QueryParser.predicate(predicate) }
    if let section { request.sectionNameKeyPath = section }
    return SQLBuilder(try request.resolve(in: model), dialect: dialect)
  }

  /// A sort through a to-one relationship joins its destination once; the primary key ends
  /// the order as the tie-breaker; a predicate's literal is a parameter.
  @Test func theIDQueryJoinsASortsRelationshipAndBindsThePredicate() throws {
    let b = try Self.builder(
      sort: [
        FetchedResults.SortDescriptor("state"), FetchedResults.SortDescriptor("details.closeDate", ascending: false),
      ],
      predicate: "state == 'TX'")
    #expect(
      b.idQuery
        == """
        SELECT t0.id FROM banks t0 LEFT JOIN details t1 ON t1.id = t0.details_id WHERE t0.state = ? \
        ORDER BY t0.state ASC, t1.close_date DESC, t0.id ASC
        """)
    #expect(b.arguments == [.string("TX")])
  }

  /// `[c]`/`[d]` fold both sides of a string operator: SQLite through the function registered
  /// on each connection (the fold's options as its second argument), PostgreSQL by `lower()`.
  @Test func modifiersFoldBothSides() throws {
    var model = Self.model
    model.collation = FoundationCollation(locale: "en_US")
    func where_(_ predicate: String, _ dialect: SQLDialect) throws -> String {
      var request = FetchRequest(entityName: "Bank", sortDescriptors: [FetchedResults.SortDescriptor("name")])
      request.predicate = try QueryParser.predicate(predicate)
      let sql = SQLBuilder(try request.resolve(in: model), dialect: dialect).idQuery
      return String(sql[sql.range(of: " WHERE ")!.upperBound..<sql.range(of: " ORDER BY")!.lowerBound])
    }
    #expect(
      try where_("name CONTAINS[cd] 'x'", .sqlite) == "instr(fetchbench_fold(t0.name, 3), fetchbench_fold(?, 3)) > 0")
    #expect(try where_("name ==[c] 'x'", .sqlite) == "fetchbench_fold(t0.name, 1) = fetchbench_fold(?, 1)")
    #expect(try where_("name !=[d] 'x'", .sqlite) == "NOT (fetchbench_fold(t0.name, 2) = fetchbench_fold(?, 2))")
    #expect(try where_("name BEGINSWITH[c] 'x'", .postgres) == "strpos(lower(t0.name), lower($1)) = 1")
    #expect(try where_("name LIKE[c] 'x_*'", .postgres) == "lower(t0.name) LIKE lower($1)")
    // Without a collation to fold by, a modifier is refused.
    var request = FetchRequest(entityName: "Bank")
    request.predicate = try QueryParser.predicate("name ==[c] 'x'")
    #expect(throws: FetchError.self) { try request.resolve(in: Self.model) }
  }

  /// PostgreSQL numbers its parameters and is told where NULLs sort, to sort as SQLite and
  /// the engine do (first ascending, last descending).
  @Test func postgreSQLNumbersParametersAndPlacesNulls() throws {
    let b = try Self.builder(
      sort: [FetchedResults.SortDescriptor("name", ascending: false)], predicate: "state == 'TX' OR state == 'CA'",
      dialect: .postgres)
    #expect(
      b.idQuery
        == "SELECT t0.id FROM banks t0 WHERE (t0.state = $1 OR t0.state = $2) ORDER BY t0.name DESC NULLS LAST, t0.id ASC NULLS FIRST"
    )
    #expect(
      b.keysByIDArrayQuery
        == "SELECT t0.id, t0.name FROM banks t0 WHERE (t0.state = $1 OR t0.state = $2) AND t0.id = ANY($3::bigint[])")
  }

  /// A batch by IDs binds one parameter per ID after none (rows) or after the predicate's
  /// (keys).
  @Test func batchStatementsBindTheIDsAfterThePredicate() throws {
    let b = try Self.builder(sort: [FetchedResults.SortDescriptor("name")], predicate: "state == 'TX'")
    #expect(
      b.rowsByIDQuery(count: 3) == "SELECT t0.id, t0.name, t0.state, t0.details_id FROM banks t0 WHERE t0.id IN (?,?,?)"
    )
    #expect(b.keysByIDQuery(count: 2) == "SELECT t0.id, t0.name FROM banks t0 WHERE t0.state = ? AND t0.id IN (?,?)")
  }
}
