import DatasetStores
import Foundation
import PostgresStore
import TestSupport
import Testing

/// A user's own PostgreSQL schema, built here from the fixture's rows with the types an app's
/// server schema has (integer and bigint keys, varchar, timestamptz, boolean, numeric, a uuid
/// no list reads, a table whose name needs quoting), read in place and never written.
@Suite(.serialized) struct UserServerSchema {
  static let schema = "fbtest_user_\(getpid())"

  /// A schema of this process for `suite`: suites run in parallel, so each builds and drops
  /// its own.
  static func schema(for suite: String) -> String { "\(schema)_\(suite)" }

  static func build(_ admin: PostgresAdmin, schema: String = Self.schema) throws {
    typealias F = UserDatabaseFixture
    func text(_ s: String?) -> String { s.map(PostgresAdmin.literal) ?? "NULL" }
    func number(_ n: (some Numeric)?) -> String { n.map { "\($0)" } ?? "NULL" }
    let planes = (1...F.planes).map { i in
      let p = F.plane(i)
      return "(\(i), \(text(p.tail)), \(text(p.maker)), \(number(p.seats)))"
    }
    let specs = (1...F.planes).map { i in "(\(1_000 + i), \(F.planes + 1 - i), \(i % 2 == 0 ? "'CFM'" : "'RR'"), \(i * 25 / 10).5)" }
    let flights = (1...F.flights).map { i in
      let f = F.flight(i)
      let departure = f.departure.map { "to_timestamp(\($0))" } ?? "NULL"
      let delayed = i % 4 == 0 ? "NULL" : (i % 2 == 0 ? "true" : "false")
      return "(\(i), \(text(f.carrier)), \(departure), \(text(f.origin)), \(number(f.plane)), \(delayed), NULL)"
    }
    // One statement at a time: the extended protocol takes one per query.
    for statement in [
      "DROP SCHEMA IF EXISTS \(schema) CASCADE", "CREATE SCHEMA \(schema)",
      "CREATE TABLE \(schema).planes (id bigint PRIMARY KEY, tail_number varchar(10) NOT NULL, manufacturer text, seats integer)",
      """
      CREATE TABLE \(schema).plane_specs (id integer PRIMARY KEY, plane_id bigint NOT NULL UNIQUE REFERENCES \(schema).planes(id),
        engine text, thrust numeric(6, 1))
      """,
      """
      CREATE TABLE \(schema).flights (id integer PRIMARY KEY, carrier text NOT NULL, departure timestamptz,
        origin varchar(3) NOT NULL, plane_id bigint REFERENCES \(schema).planes(id), delayed boolean, token uuid)
      """,
      "CREATE INDEX flights_plane ON \(schema).flights (plane_id)",
      "CREATE TABLE \(schema).\"Notes\" (id integer PRIMARY KEY, body text, \"createdAt\" integer, \"select\" text)",
      "CREATE TABLE \(schema).\"SHOUT\" (id integer PRIMARY KEY)", "CREATE TABLE \(schema).tags (name text PRIMARY KEY)",
      "INSERT INTO \(schema).\"Notes\" SELECT i, 'n' || i, i * 7 % 10, chr(97 + i % 3) FROM generate_series(1, 40) i",
      "INSERT INTO \(schema).planes VALUES \(planes.joined(separator: ", "))",
      "INSERT INTO \(schema).plane_specs VALUES \(specs.joined(separator: ", "))",
      "INSERT INTO \(schema).flights VALUES \(flights.joined(separator: ", "))",
      "ANALYZE \(schema).flights", "ANALYZE \(schema).planes",
    ] {
      try admin.execute(statement)
    }
  }

  /// What the schema holds: every table's rows and every relation's name, hashed by the server.
  static func contents(_ admin: PostgresAdmin) throws -> [String] {
    let tables = try ["planes", "plane_specs", "flights", "\"Notes\"", "\"SHOUT\"", "tags"].map { t in
      try admin.scalar("SELECT md5(coalesce(string_agg(r::text, ',' ORDER BY r::text), '')) FROM \(schema).\(t) r") ?? ""
    }
    let relations = try admin.scalar(
      "SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE nspname = '\(schema)'"
    )
    return tables + [relations ?? ""]
  }

  /// The fixture's lists with NULLs ordered as SQLite orders them (first ascending, last
  /// descending), which the stores reproduce.
  static let lists: [(arguments: [String], oracle: String)] = [
    (
      ["--sort", "plane.manufacturer asc, departure desc"],
      "ORDER BY p.manufacturer ASC NULLS FIRST, f.departure DESC NULLS LAST, f.id"
    ),
    (
      ["--section", "origin", "--sort", "origin asc, plane.seats desc", "--where", "plane.manufacturer == 'Embraer' AND delayed == 1"],
      "WHERE p.manufacturer = 'Embraer' AND f.delayed ORDER BY f.origin, p.seats DESC NULLS LAST, f.id"
    ),
    (["--where", "departure > 1970-01-02"], "WHERE f.departure > '1970-01-02' ORDER BY f.id"),
  ]

  @Test func aServerSchemaIsListedInPlaceOnMemoryAndPostgreSQLAndNeverWritten() throws {
    try TestSupport.requirePostgresServer()
    let server = try PostgresLocation.url(nil)
    let admin = try PostgresAdmin(url: server)
    try Self.build(admin)
    defer { try? admin.execute("DROP SCHEMA IF EXISTS \(Self.schema) CASCADE") }
    let before = try Self.contents(admin)
    // A password in the URL reaches the children through the environment, never their
    // arguments or the results (the test server trusts local connections: it is not checked).
    let db = "postgres://\(server.user):s3cret-pw@\(server.host):\(server.port)/\(server.database)?schema=\(Self.schema)"

    for list in Self.lists {
      let oracle = "SELECT f.id::text FROM \(Self.schema).flights f LEFT JOIN \(Self.schema).planes p ON p.id = f.plane_id "
      let expected = try admin.column(oracle + list.oracle)
      #expect(!expected.isEmpty)
      for store in ["memory", "postgres"] {
        for strategy in ["full", "batched", "offset", "keyset"] {
          let out = try TestSupport.run(
            ["fetch", "--db", db, "--entity", "flights", "--store", store, "--strategy", strategy, "--ids"] + list.arguments)
          #expect(out.status == 0, "\(list.arguments) \(store) \(strategy): \(out.stderr)")
          #expect(out.stdout.split(separator: "\n").map(String.init) == expected, "\(list.arguments) \(store) \(strategy)")
        }
      }
    }
    // Names in mixed case and keywords, kept only in double quotes, are read as they are.
    let notes = try admin.column("SELECT n.id::text FROM \(Self.schema).\"Notes\" n ORDER BY n.\"select\", n.\"createdAt\" DESC, n.id")
    #expect(notes.count == 40)
    for store in ["memory", "postgres"] {
      let out = try TestSupport.run(
        ["fetch", "--db", db, "--entity", "Notes", "--sort", "select asc, createdAt desc", "--store", store, "--ids"])
      #expect(out.status == 0 && out.stdout.split(separator: "\n").map(String.init) == notes, "\(store): \(out.stderr)")
    }

    let described = try TestSupport.run(["describe", "--db", db])
    #expect(described.status == 0, "\(described.stderr)")
    for line in [
      "a PostgreSQL schema, read in read-only transactions", "entity flights (table flights, primary key id): 1,500 rows",
      "departure  date, declared timestamp with time zone", "delayed    bool, declared boolean", "not attributes: token (type uuid)",
      "plane → planes (flights.plane_id = planes.id)", "plane_specs → plane_specs (planes.id = plane_specs.plane_id)",
      "thrust    double, declared numeric", "SHOUT: its name is in capitals", "tags: no single-column integer primary key",
    ] {
      #expect(described.stdout.contains(line), "\(line)")
    }

    let dir = TestSupport.temporaryFolder("userpg")
    defer { TestSupport.remove(dir) }
    let run = try TestSupport.run(
      [
        "run", "--db", db, "--entity", "flights", "--sort", "plane.seats desc, departure asc", "--recommend", "--repetitions", "2", "--out",
        dir + "/run",
      ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("flights at 1,500 rows, in-memory store: "), "\(run.stdout)")
    #expect(run.stdout.contains("flights at 1,500 rows, PostgreSQL: "), "\(run.stdout)")
    let report = try String(contentsOfFile: dir + "/run/report.md", encoding: .utf8)
    #expect(report.contains("Your database, read and never written: postgres://"), "\(report)")
    #expect(report.contains("No index was tried: FetchBench creates no index on your server (`--allow-index-trials`"))
    for file in ["report.md", "results.csv", "results.json"] {
      #expect(try !String(contentsOfFile: "\(dir)/run/\(file)", encoding: .utf8).contains("s3cret-pw"), "\(file)")
    }

    // Index candidates only when allowed, in a schema of FetchBench's own that is gone after.
    let trials = try TestSupport.run(
      [
        "run", "--db", db, "--entity", "flights", "--sort", "plane.seats desc, departure asc", "--store", "postgres", "--recommend",
        "--allow-index-trials", "--repetitions", "2", "--out", dir + "/trials",
      ])
    #expect(trials.status == 0, "\(trials.stderr)")
    let advised = try String(contentsOfFile: dir + "/trials/report.md", encoding: .utf8)
    #expect(advised.contains("### Index advice, flights at 1,500 rows (PostgreSQL)"), "\(advised)")
    #expect(advised.contains("`planes(id, seats)`") && advised.contains("copied into a schema of FetchBench's own"), "\(advised)")
    #expect(try admin.column("SELECT nspname::text FROM pg_namespace WHERE nspname LIKE 'fetchbench\\_trials\\_%'") == [])
    let misplaced = try TestSupport.run(["run", "--allow-index-trials", "--quick"])
    #expect(misplaced.status == 64 && misplaced.stderr.contains("--allow-index-trials needs --db on a PostgreSQL server"))

    // What would write, or needs a file, is refused in one line.
    for (arguments, message) in [
      (["fetch", "--db", db, "--entity", "flights", "--store", "sqlite"], "is a PostgreSQL schema: it is measured where it is"),
      (["diff", "--db", db, "--entity", "flights"], "which FetchBench only reads: diff, which writes, needs a SQLite file"),
      (["generate", "--like", db, "--entity", "flights", "--rows", "10", "--datasets", dir], "generate --like needs a SQLite file"),
      (["describe", "--db", db + "_none"], "has no tables; the schemas are: "),
    ] {
      let out = try TestSupport.run(arguments)
      #expect(out.status == 1, "\(arguments): \(out.stdout) \(out.stderr)")
      #expect(out.stderr.hasPrefix("Error: ") && out.stderr.contains(message), "\(arguments): \(out.stderr)")
      #expect(out.stderr.split(separator: "\n").count == 1 && !out.stderr.contains("s3cret-pw"), "\(out.stderr)")
    }
    #expect(try Self.contents(admin) == before, "the user's schema holds what it held, and no table or index more")
  }
}
