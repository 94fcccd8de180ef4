import DatasetStores
import Foundation
import GRDB
import PostgresStore
import TestSupport
import Testing

/// A to-many relationship that an app's schema implies (planes ← flights.plane_id), filtered
/// through from the planes' side, in an app's SQLite file and a PostgreSQL schema: each
/// store's planes equal the database's own grouped count of their flights.
@Suite(.serialized) struct ToManyInAnAppSchema {
  /// A predicate and the same question as a grouped count over planes LEFT JOIN flights: a
  /// formulation of its own, not the stores' correlated subqueries.
  static let lists: [(predicate: String, having: String)] = [
    ("ANY flights.id BETWEEN {700, 720}", "count(CASE WHEN f.id BETWEEN 700 AND 720 THEN 1 END) > 0"),
    (
      "ANY flights.carrier == 'AA' AND seats > 100",
      "count(CASE WHEN f.carrier = 'AA' THEN 1 END) > 0 AND p.seats > 100"
    ),
    ("flights.@count > 34", "count(f.id) > 34"),
    (
      "SUBQUERY(flights, $f, $f.origin == 'JFK' AND $f.carrier == 'AA').@count >= 12",
      "count(CASE WHEN f.origin = 'JFK' AND f.carrier = 'AA' THEN 1 END) >= 12"
    ),
    (
      "NONE flights.carrier == 'DL' OR manufacturer == nil",
      "count(CASE WHEN f.carrier = 'DL' THEN 1 END) = 0 OR p.manufacturer IS NULL"
    ),
    ("ALL flights.id < 1480", "count(CASE WHEN NOT (f.id < 1480) THEN 1 END) = 0"),
  ]

  static func oracle(_ having: String, schema: String = "") -> String {
    "SELECT p.id FROM \(schema)planes p LEFT JOIN \(schema)flights f ON f.plane_id = p.id GROUP BY p.id HAVING \(having) ORDER BY p.id"
  }

  static func listed(_ db: String, store: String, _ predicate: String) throws -> [String] {
    let out = try TestSupport.run([
      "fetch", "--db", db, "--entity", "planes", "--store", store, "--where", predicate, "--ids",
    ])
    #expect(out.status == 0, "\(predicate) on \(store): \(out.stderr)")
    return out.stdout.split(separator: "\n").map(String.init)
  }

  /// A planes cell with its flights counted: a fault per plane on screen, or one prefetch for
  /// the batch; both show each plane's count as the database's grouped count gives it.
  static func checkCells(_ db: String, store: String, counts: [String]) throws {
    for prefetch in [false, true] {
      let out = try TestSupport.run(
        [
          "fetch", "--db", db, "--entity", "planes", "--store", store, "--batch-size", "20", "--cell",
          "tail_number, flights.@count",
          "--stats",
        ] + (prefetch ? ["--prefetch", "flights"] : []))
      #expect(out.status == 0, "\(store): \(out.stderr)")
      let lines = out.stdout.split(separator: "\n").dropFirst().prefix(20)
      #expect(
        lines.map { $0.split(separator: "\t").last.map(String.init) ?? "" } == Array(counts.prefix(20)), "\(store)")
      #expect(out.stderr.contains("faults\t\(prefetch ? 0 : 20)\n"), "\(store) prefetch \(prefetch): \(out.stderr)")
      #expect(out.stderr.contains("queries\t\(prefetch ? 3 : 22)\n"), "\(store) prefetch \(prefetch): \(out.stderr)")
    }
  }

  static let countsQuery =
    "SELECT count(f.id) FROM planes p LEFT JOIN flights f ON f.plane_id = p.id GROUP BY p.id ORDER BY p.id"

  @Test func anAppsSQLiteFileFiltersThroughItsToMany() throws {
    let dir = TestSupport.temporaryFolder("to-many-app")
    defer { TestSupport.remove(dir) }
    let app = dir + "/app.sqlite"
    try UserDatabaseFixture.app(app)
    let db = try DatabaseQueue(path: app)
    var nonTrivial = 0
    for list in Self.lists {
      let expected = try db.read { try Int64.fetchAll($0, sql: Self.oracle(list.having)) }.map(String.init)
      if !expected.isEmpty && expected.count < UserDatabaseFixture.planes { nonTrivial += 1 }
      for store in ["memory", "sqlite"] {
        #expect(try Self.listed(app, store: store, list.predicate) == expected, "\(list.predicate) on \(store)")
      }
    }
    let counts = try db.read { try Int.fetchAll($0, sql: Self.countsQuery) }.map(String.init)
    for store in ["memory", "sqlite"] { try Self.checkCells(app, store: store, counts: counts) }
    try db.close()
    #expect(nonTrivial == Self.lists.count, "the predicates select neither nothing nor everything")
  }

  @Test func aPostgreSQLSchemaFiltersThroughItsToMany() throws {
    try TestSupport.requirePostgresServer()
    let server = try PostgresLocation.url(nil)
    let admin = try PostgresAdmin(url: server)
    let schema = UserServerSchema.schema(for: "tomany")
    try UserServerSchema.build(admin, schema: schema)
    defer { try? admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
    let db =
      "postgres://\(server.user)@\(server.host):\(server.port)/\(server.database)?schema=\(schema)"
    for list in Self.lists {
      let expected = try admin.column(
        "SELECT q.id::text FROM (\(Self.oracle(list.having, schema: schema + "."))) q ORDER BY q.id")
      for store in ["memory", "postgres"] {
        #expect(try Self.listed(db, store: store, list.predicate) == expected, "\(list.predicate) on \(store)")
      }
    }
    let counts = try admin.column(
      Self.countsQuery.replacingOccurrences(of: "count(f.id)", with: "count(f.id)::text").replacingOccurrences(
        of: "planes p LEFT JOIN flights",
        with: "\(schema).planes p LEFT JOIN \(schema).flights"))
    for store in ["memory", "postgres"] { try Self.checkCells(db, store: store, counts: counts) }
  }
}
