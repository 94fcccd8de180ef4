import Catalog
import DatasetStores
import FetchedResults
import Foundation
import GRDB
import TestSupport
import Testing
import TextFormatting
import Vocabulary

/// A user's own database, built here: an app's schema (integer ids, declared foreign keys, a
/// many-to-one and a one-to-one, NULL sort keys and ties, a table without an integer key) and
/// a Core Data store of the same rows (Z-tables, Z_PRIMARYKEY, Z_METADATA, an index on each
/// foreign key, dates as seconds since 2001).
enum UserDatabaseFixture {
  static let flights = 1_500
  static let planes = 40

  /// Row `i` of each table, a pure function of `i`.
  static func plane(_ i: Int) -> (tail: String, maker: String?, seats: Int?) {
    ("N\(100 + i)", [nil, "Boeing", "Airbus", "Embraer"][i % 4], i % 5 == 0 ? nil : [150, 180, 76][i % 3])
  }
  static func flight(_ i: Int) -> (carrier: String, departure: Double?, origin: String, plane: Int?) {
    (
      ["AA", "UA", "DL"][i * 7 % 3], i % 9 == 0 ? nil : Double(i * 37 % 40) * 3_600, ["JFK", "LGA", "EWR"][i * 11 % 3],
      i % 13 == 0 ? nil : i * 17 % planes + 1
    )
  }

  static func app(_ path: String) throws {
    let db = try DatabaseQueue(path: path)
    try db.write { db in
      try db.execute(
        sql: """
          CREATE TABLE planes (id INTEGER PRIMARY KEY, tail_number VARCHAR(10) NOT NULL, manufacturer TEXT, seats INT);
          CREATE TABLE plane_specs (id INTEGER PRIMARY KEY, plane_id INTEGER NOT NULL UNIQUE REFERENCES planes(id), engine TEXT);
          CREATE TABLE flights (id INTEGER PRIMARY KEY, carrier TEXT NOT NULL, departure DATETIME, origin TEXT NOT NULL,
            plane_id INTEGER REFERENCES planes(id));
          CREATE INDEX flights_plane ON flights(plane_id);
          CREATE TABLE notes (body TEXT);
          """)
      for i in 1...planes {
        let p = plane(i)
        try db.execute(sql: "INSERT INTO planes VALUES (?, ?, ?, ?)", arguments: [i, p.tail, p.maker, p.seats])
      }
      for i in 1...planes {
        try db.execute(
          sql: "INSERT INTO plane_specs VALUES (?, ?, ?)",
          arguments: [1_000 + i, planes + 1 - i, i % 2 == 0 ? "CFM" : "RR"])
      }
      for i in 1...flights {
        let f = flight(i)
        try db.execute(
          sql: "INSERT INTO flights VALUES (?, ?, ?, ?, ?)", arguments: [i, f.carrier, f.departure, f.origin, f.plane])
      }
    }
  }

  /// The app's database (`app.sqlite`) or the Core Data store (`Model.sqlite`) in `dir`, and
  /// its bytes as written.
  static func write(app: Bool, in dir: String) throws -> (path: String, bytes: Data) {
    let path = dir + (app ? "/app.sqlite" : "/Model.sqlite")
    try app ? Self.app(path) : coreData(path)
    return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  static func coreData(_ path: String) throws {
    let db = try DatabaseQueue(path: path)
    try db.write { db in
      try db.execute(
        sql: """
          CREATE TABLE ZFLIGHT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPLANE INTEGER, ZDEPARTURE TIMESTAMP,
            ZCARRIER VARCHAR, ZORIGIN VARCHAR);
          CREATE TABLE ZPLANE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSEATS INTEGER, ZSPEC INTEGER,
            ZTAILNUMBER VARCHAR, ZMANUFACTURER VARCHAR);
          CREATE TABLE ZPLANESPEC (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPLANE INTEGER, ZENGINE VARCHAR);
          CREATE INDEX ZFLIGHT_ZPLANE_INDEX ON ZFLIGHT (ZPLANE);
          CREATE INDEX ZPLANE_ZSPEC_INDEX ON ZPLANE (ZSPEC);
          CREATE INDEX ZPLANESPEC_ZPLANE_INDEX ON ZPLANESPEC (ZPLANE);
          CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
          CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
          INSERT INTO Z_PRIMARYKEY VALUES (1, 'Flight', 0, \(flights)), (2, 'Plane', 0, \(planes)), (3, 'PlaneSpec', 0, \(1_000 + planes));
          INSERT INTO Z_METADATA VALUES (1, 'F00', NULL);
          """)
      for i in 1...planes {
        let p = plane(i)
        try db.execute(
          sql: "INSERT INTO ZPLANE VALUES (?, 2, 1, ?, ?, ?, ?)",
          arguments: [i, p.seats, 1_000 + planes + 1 - i, p.tail, p.maker])
        try db.execute(
          sql: "INSERT INTO ZPLANESPEC VALUES (?, 3, 1, ?, ?)",
          arguments: [1_000 + i, planes + 1 - i, i % 2 == 0 ? "CFM" : "RR"])
      }
      for i in 1...flights {
        let f = flight(i)
        // Core Data's dates: seconds since 2001-01-01.
        try db.execute(
          sql: "INSERT INTO ZFLIGHT VALUES (?, 1, 1, ?, ?, ?, ?)",
          arguments: [i, f.plane, f.departure.map { $0 - 978_307_200 }, f.carrier, f.origin])
      }
    }
  }
}

@Suite(.serialized) struct UserDatabaseCommands {
  /// A list over each database, and the independent answer: the same list as plain SQL through
  /// LEFT JOINs, ending with the primary key (NULLs as SQLite orders them).
  struct List {
    var arguments: [String]
    var oracle: String
  }

  static func lists(app: Bool) -> [List] {
    let (flight, plane, pk, maker, seats, departure, origin, fk) =
      app
      ? ("flights", "planes", "id", "manufacturer", "seats", "departure", "origin", "plane_id")
      : ("ZFLIGHT", "ZPLANE", "Z_PK", "ZMANUFACTURER", "ZSEATS", "ZDEPARTURE", "ZORIGIN", "ZPLANE")
    let join = "FROM \(flight) f LEFT JOIN \(plane) p ON p.\(pk) = f.\(fk)"
    let entity = app ? "flights" : "Flight"
    let (makerKey, seatsKey, departureKey) =
      app ? ("plane.manufacturer", "plane.seats", "departure") : ("plane.manufacturer", "plane.seats", "departure")
    return [
      List(
        arguments: ["--entity", entity, "--sort", "\(makerKey) asc, \(departureKey) desc"],
        oracle: "SELECT f.\(pk) \(join) ORDER BY p.\(maker) ASC, f.\(departure) DESC, f.\(pk)"),
      List(
        arguments: [
          "--entity", entity, "--section", "origin", "--sort", "origin asc, \(seatsKey) desc", "--where",
          "\(makerKey) == 'Boeing'",
        ],
        oracle: "SELECT f.\(pk) \(join) WHERE p.\(maker) = 'Boeing' ORDER BY f.\(origin), p.\(seats) DESC, f.\(pk)"),
      List(arguments: ["--entity", entity], oracle: "SELECT f.\(pk) \(join) ORDER BY f.\(pk)"),
    ]
  }

  @Test(arguments: [true, false])
  func fetchEqualsTheSQLOracleOnEveryStoreAndStrategyAndLeavesTheFileAsItWas(app: Bool) throws {
    let dir = TestSupport.temporaryFolder("userdb")
    defer { TestSupport.remove(dir) }
    let (path, before) = try UserDatabaseFixture.write(app: app, in: dir)
    let oracleDB = try DatabaseQueue(
      path: path,
      configuration: {
        var c = Configuration()
        c.readonly = true
        return c
      }())

    for list in Self.lists(app: app) {
      let expected = try oracleDB.read { db in try Int64.fetchAll(db, sql: list.oracle) }.map(String.init)
      #expect(!expected.isEmpty)
      // PostgreSQL: the file's tables copied into FetchBench's own database by COPY.
      for store in ["memory", "sqlite"] + (TestSupport.postgresServerUp ? ["postgres"] : []) {
        for strategy in ["full", "batched", "offset", "keyset"] {
          let out = try TestSupport.run(
            ["fetch", "--db", path, "--store", store, "--strategy", strategy, "--ids"] + list.arguments)
          #expect(out.status == 0, "\(list.arguments) \(store) \(strategy): \(out.stderr)")
          #expect(
            out.stdout.split(separator: "\n").map(String.init) == expected, "\(list.arguments) \(store) \(strategy)")
        }
      }
    }
    let described = try TestSupport.run(["describe", "--db", path, "--relationship", "spec=PlaneSpec"])
    #expect(described.status == 0, "\(described.stderr)")
    if app {
      #expect(
        described.stdout.contains("entity flights (table flights, primary key id): 1,500 rows"), "\(described.stdout)")
      #expect(described.stdout.contains("plane → planes (flights.plane_id = planes.id)"), "\(described.stdout)")
      #expect(
        described.stdout.contains("plane_specs → plane_specs (planes.id = plane_specs.plane_id)"), "\(described.stdout)"
      )
      #expect(described.stdout.contains("notes: no INTEGER PRIMARY KEY"), "\(described.stdout)")
    } else {
      #expect(described.stdout.contains("a Core Data store"), "\(described.stdout)")
      #expect(
        described.stdout.contains("entity Flight (table ZFLIGHT, primary key Z_PK): 1,500 rows"), "\(described.stdout)")
      #expect(described.stdout.contains("spec → PlaneSpec (ZPLANE.ZSPEC = PlaneSpec.Z_PK)"), "\(described.stdout)")
      #expect(described.stdout.contains("seconds since 2001-01-01"), "\(described.stdout)")
      #expect(!described.stdout.contains("z_ent") && !described.stdout.contains("z_opt"), "\(described.stdout)")
      // Core Data's seconds since 2001 print as the dates they are.
      let shown = try TestSupport.run([
        "fetch", "--db", path, "--entity", "Flight", "--sort", "departure desc", "--show", "1",
      ])
      #expect(shown.stdout.contains("\t1970-01-02T15:00:00Z\t"), "\(shown.stdout)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the user's file is byte-identical")
    #expect(
      !FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"))
  }

  @Test(arguments: [true, false])
  func runRecommendsForTheUsersListAndTheReportRendersAgain(app: Bool) throws {
    let dir = TestSupport.temporaryFolder("userdb-run")
    defer { TestSupport.remove(dir) }
    let (path, before) = try UserDatabaseFixture.write(app: app, in: dir)
    let entity = app ? "flights" : "Flight"
    let stores = ["memory", "sqlite"] + (TestSupport.postgresServerUp ? ["postgres"] : [])
    let out = try TestSupport.run([
      "run", "--db", path, "--entity", entity, "--sort", "plane.manufacturer asc, departure desc", "--where",
      "carrier != 'AA'",
      "--recommend", "--repetitions", "1",
      "--out", dir + "/out", "--store", stores.joined(separator: ","),
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let lines = out.stdout.split(separator: "\n")
    #expect(
      lines.count == stores.count && lines.allSatisfy { $0.hasPrefix("\(entity) at 1,500 rows, ") }, "\(out.stdout)")
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    // The list is the predicate's rows, not the table's.
    let listed = (1...UserDatabaseFixture.flights).filter { UserDatabaseFixture.flight($0).carrier != "AA" }.count
    #expect(
      report.contains(
        "## \(entity), 1,500 rows, your list: `sort: plane.manufacturer asc, departure desc; where: carrier != 'AA'` (\(listed.grouped) rows in it)"
      ), "\(report)")
    #expect(report.contains("Your database, read and never written: \(path), entity \(entity), SHA-256 "))
    // The index advice's candidates, each built in a copy of the file, removed after.
    #expect(
      report.contains(app ? "| `planes(manufacturer)` | sort key |" : "| `ZPLANE(ZMANUFACTURER)` | sort key |"),
      "\(report)")
    let scratch = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
      $0.hasPrefix("fetchbench-index")
    }
    #expect(scratch.isEmpty, "\(scratch)")
    // A new process, which knows the database only by the name the results recorded.
    let again = try TestSupport.run(["report", dir + "/out"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8) == report)
    // The report is the results' alone: with the database moved away it reads the same,
    // the list and its index candidates named as the run named them.
    try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")
    let moved = try TestSupport.run(["report", dir + "/out"])
    try FileManager.default.moveItem(atPath: path + ".moved", toPath: path)
    #expect(moved.status == 0, "\(moved.stderr)")
    let away = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(away.contains("### Recommendation, \(entity) at 1,500 rows"), "\(away)")
    #expect(away == report, "\(Self.firstDifference(away, report))")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the user's file is byte-identical")
  }

  /// The first line where `a` and `b` differ, each as it reads there.
  static func firstDifference(_ a: String, _ b: String) -> String {
    let (x, y) = (
      a.split(separator: "\n", omittingEmptySubsequences: false),
      b.split(separator: "\n", omittingEmptySubsequences: false)
    )
    guard let i = zip(x, y).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else {
      return "lines \(x.count) and \(y.count)"
    }
    return "line \(i + 1):\n\(x[i])\n\(y[i])"
  }

  /// The sort key's NULL share and tie share (in %), and the mean fan-out of the many-to-one.
  static func shape(_ path: String, app: Bool) throws -> (nulls: Double, ties: Double, fanOut: Double) {
    let (flight, plane, departure, fk) =
      app ? ("flights", "planes", "departure", "plane_id") : ("ZFLIGHT", "ZPLANE", "ZDEPARTURE", "ZPLANE")
    let db = try DatabaseQueue(
      path: path,
      configuration: {
        var c = Configuration()
        c.readonly = true
        return c
      }())
    return try db.read { db in
      let row = try Row.fetchOne(
        db,
        sql: """
          SELECT 100.0 * sum(\(departure) IS NULL) / count(*), 100.0 * (1 - 1.0 * count(DISTINCT \(departure)) / count(\(departure))),
            1.0 * count(\(fk)) / (SELECT count(*) FROM \(plane)) FROM \(flight)
          """)!
      return (row[0], row[1], row[2])
    }
  }

  @Test(arguments: [true, false])
  func generateLikeDrawsTenTimesTheRowsWithTheSameShape(app: Bool) throws {
    let dir = TestSupport.temporaryFolder("userdb-like")
    defer { TestSupport.remove(dir) }
    let (path, before) = try UserDatabaseFixture.write(app: app, in: dir)
    let entity = app ? "flights" : "Flight"
    let rows = UserDatabaseFixture.flights * 10
    let out = try TestSupport.run([
      "generate", "--like", path, "--entity", entity, "--rows", String(rows), "--datasets", dir + "/like",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let synthetic = dir + "/like/\(entity.lowercased())-like-\(rows)-s1.sqlite"
    let (mine, drawn) = (try Self.shape(path, app: app), try Self.shape(synthetic, app: app))
    #expect(abs(mine.nulls - drawn.nulls) <= 1, "NULL share \(mine.nulls) % → \(drawn.nulls) %")
    #expect(abs(mine.ties - drawn.ties) <= 1, "tie share \(mine.ties) % → \(drawn.ties) %")
    #expect(abs(drawn.fanOut / mine.fanOut - 1) <= 0.05, "fan-out \(mine.fanOut) → \(drawn.fanOut)")
    // The synthetic database is read as the user's is, and says what it is.
    let listed = try TestSupport.run([
      "fetch", "--db", synthetic, "--entity", entity, "--sort", "plane.manufacturer asc, departure desc", "--ids",
    ])
    #expect(listed.stdout.split(separator: "\n").count == rows, "\(listed.stderr)")
    let described = try TestSupport.run(["describe", "--db", synthetic])
    #expect(described.stdout.contains("synthetic: \(rows.grouped) rows of "), "\(described.stdout)")
    // The same command again keeps what it drew, rewriting nothing; a file of the user's at
    // the name it writes is never replaced; the user's database is as it was.
    let drawnBytes = try Data(contentsOf: URL(fileURLWithPath: synthetic))
    let again = try TestSupport.run([
      "generate", "--like", path, "--entity", entity, "--rows", String(rows), "--datasets", dir + "/like",
    ])
    #expect(again.status == 0 && again.stdout.hasPrefix("kept \(synthetic): synthetic: "), "\(again.stdout)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: synthetic)) == drawnBytes)
    let users = dir + "/like/\(entity.lowercased())-like-\(rows)-s2.sqlite"
    try Data("mine".utf8).write(to: URL(fileURLWithPath: users))
    let refused = try TestSupport.run([
      "generate", "--like", path, "--entity", entity, "--rows", String(rows), "--seed", "2", "--datasets",
      dir + "/like",
    ])
    #expect(refused.status == 1 && refused.stderr.contains("FetchBench does not replace it"), "\(refused.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: users)) == Data("mine".utf8))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
  }

  @Test(arguments: [true, false])
  func diffKeepsTheUsersListInSyncOnACopy(app: Bool) throws {
    let dir = TestSupport.temporaryFolder("userdb-diff")
    defer { TestSupport.remove(dir) }
    let (path, before) = try UserDatabaseFixture.write(app: app, in: dir)
    let entity = app ? "flights" : "Flight"
    let stores = ["memory", "sqlite"] + (TestSupport.postgresServerUp ? ["postgres"] : [])
    let out = try TestSupport.run([
      "diff", "--db", path, "--entity", entity, "--sort", "plane.manufacturer asc, departure desc", "--section",
      "origin", "--k", "1,100",
      "--repetitions", "2", "--store", stores.joined(separator: ","), "--out", dir + "/out",
    ])
    // Every change set was replayed under UIKit's rules and equalled a fresh fetch, or the case failed.
    #expect(out.status == 0, "\(out.stderr)")
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(
      report.contains("\(entity) of your database sorted by `plane.manufacturer` ascending, `departure` descending"),
      "\(report)")
    #expect(report.contains("rows, sections by origin") && !report.contains("## Failed"), "\(report)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the writes went to a copy")
  }

  @Test func aCoreDataIndexReadsAsTheFetchIndexToDeclare() throws {
    let dir = TestSupport.temporaryFolder("userdb-index")
    defer { TestSupport.remove(dir) }
    try UserDatabaseFixture.coreData(dir + "/Model.sqlite")
    let (kind, _) = try UserList(database: UserDatabase(path: dir + "/Model.sqlite"), entity: "flight").register(
      sort: [FetchedResults.SortDescriptor("departure", ascending: false)], section: nil)
    let definition = try #require(kind.definition as? DatabaseDataset)
    let index = IndexSpec(table: "ZFLIGHT", columns: [.init("ZDEPARTURE", descending: true), .init("Z_PK")])
    let declared = try #require(definition.coreDataFetchIndex(index))
    #expect(declared.hasPrefix("a fetch index on Flight over departure (descending) ("), "\(declared)")
    #expect(
      declared.hasSuffix(
        #"inside <entity name="Flight">: <fetchIndex name="byDeparture"><fetchIndexElement property="departure" type="Binary" order="descending"/></fetchIndex>)"#
      ), "\(declared)")
    #expect(definition.coreDataFetchIndex(IndexSpec(table: "ZFLIGHT", columns: [.init("Z_PK")])) == nil)
  }

  @Test func anIndexCandidateIsBuiltInACopyOfOnlyTheListsTables() throws {
    let dir = TestSupport.temporaryFolder("userdb-scratch")
    defer { TestSupport.remove(dir) }
    let (path, _) = try UserDatabaseFixture.write(app: true, in: dir)
    // A table the list does not reach, and rows in it that the copy must leave out.
    try DatabaseQueue(path: path).write { db in
      try db.execute(
        sql: "CREATE TABLE attachments (id INTEGER PRIMARY KEY, data BLOB); INSERT INTO notes VALUES ('kept out')")
      for i in 1...50 { try db.execute(sql: "INSERT INTO attachments VALUES (?, zeroblob(4096))", arguments: [i]) }
    }
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let database = UserDatabase(path: path)
    let (kind, _) = try database.register(entity: "flights", sort: [.init("plane.seats", ascending: false)])
    var location = DatasetLocation(kind: kind)
    location.database = database
    let index = IndexSpec(table: "planes", columns: [.init("id"), .init("seats", descending: true)])
    let scratch = try SQLiteScratch.indexed(location, index)
    defer { scratch.remove() }
    let counts = try DatabaseQueue(path: scratch.path).read { db in
      try ["flights", "planes", "plane_specs", "notes", "attachments"].map {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)")!
      }
    }
    #expect(counts == [UserDatabaseFixture.flights, UserDatabaseFixture.planes, UserDatabaseFixture.planes, 0, 0])
    let indexes = try DatabaseQueue(path: scratch.path).read { db in
      try db.indexes(on: "planes").map(\.name) + db.indexes(on: "flights").map(\.name)
    }
    #expect(indexes.contains(index.name) && indexes.contains("flights_plane"), "\(indexes)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the user's file is byte-identical")
  }

  @Test func badDatabasesGetOneClearErrorAndNothingIsWritten() throws {
    let dir = TestSupport.temporaryFolder("userdb-bad")
    defer { TestSupport.remove(dir) }
    let app = dir + "/app.sqlite"
    try UserDatabaseFixture.app(app)
    try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: dir + "/text.sqlite"))
    let cases: [(arguments: [String], message: String)] = [
      (["--db", dir + "/missing.sqlite", "--entity", "flights"], "no such file"),
      (["--db", dir + "/text.sqlite", "--entity", "flights"], "is not a SQLite database"),
      (["--db", app, "--entity", "trains"], "its entities are: flights, plane_specs, planes"),
      (["--db", app, "--entity", "notes"], "no INTEGER PRIMARY KEY"),
      (["--db", app, "--entity", "flights", "--sort", "pilot.name asc"], "known: carrier"),
      (["--db", app, "--entity", "flights", "--relationship", "plane"], "is not column=Entity"),
      (
        ["--db", app, "--entity", "planes", "--sort", "flights.carrier asc"],
        "reads through flights, a to-many relationship"
      ),
      (["--db", app, "--entity", "planes", "--sort", "flight.carrier asc"], "a to-many relationship of planes"),
      (
        ["--db", app, "--entity", "planes", "--sort", "seats.count asc"],
        "goes through seats, which is a column of planes here, not a relationship: FetchBench found none from its name; if it holds another entity's key, declare it with --relationship seats=ENTITY (one of "
      ),
      (["--db", dir + "/locked.sqlite", "--entity", "flights"], "is locked by another process"),
    ]
    // An app holding its database: WAL, exclusive locking, a write under way.
    try FileManager.default.copyItem(atPath: app, toPath: dir + "/locked.sqlite")
    var holding = Configuration()
    holding.allowsUnsafeTransactions = true
    let holder = try DatabaseQueue(path: dir + "/locked.sqlite", configuration: holding)
    try holder.inDatabase { db in
      try db.execute(
        sql:
          "PRAGMA journal_mode = WAL; PRAGMA locking_mode = EXCLUSIVE; BEGIN IMMEDIATE; UPDATE flights SET carrier = 'ZZ' WHERE id = 1"
      )
    }
    defer { try? holder.inDatabase { db in try db.execute(sql: "ROLLBACK") } }
    for c in [["run", "--db", app, "--dataset", "banks", "--entity", "flights"], ["run", "--entity", "flights"]] {
      let out = try TestSupport.run(c + ["--out", dir + "/out"])
      #expect(out.status == 64 && (out.stderr.contains("--db")), "\(c): \(out.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    let listing = TestSupport.listing(dir)
    for c in cases {
      let out = try TestSupport.run(["fetch", "--ids"] + c.arguments)
      #expect(out.status != 0, "\(c.arguments)")
      let errors = out.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
      #expect(errors.count == 1 && errors[0].contains(c.message), "\(c.arguments): \(out.stderr)")
      #expect(out.stdout.isEmpty)
    }
    #expect(TestSupport.listing(dir) == listing, "nothing written beside the files")
  }
}
