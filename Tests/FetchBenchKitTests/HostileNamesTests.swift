import Foundation
import GRDB
import ResultModel
import TestSupport
import Testing

/// A model file arrives in a pull request: its names are the app's, not SQL. Every name from
/// a model or a database is quoted where it stands in a statement, and each statement is
/// prepared alone, so that a name holding `; DROP TABLE …` creates an oddly named object and
/// runs nothing else.
@Suite struct HostileNames {
  /// A model whose fetch index name, attribute names and entity names read as SQL: a keyword,
  /// a double quote, a single quote, and a statement list reaching into another file.
  static func model(victim: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Item" representedClassName="Item" syncable="YES">
            <attribute name="select" optional="YES" attributeType="String"/>
            <attribute name="a&quot;b" optional="YES" attributeType="Integer 32"/>
            <relationship name="from" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Order" inverseName="items"/>
            <fetchIndex name="x ON ZITEM (ZSELECT); ATTACH DATABASE '\(victim)' AS v; DROP TABLE v.precious; CREATE INDEX y">
                <fetchIndexElement property="select" type="Binary" order="ascending"/>
            </fetchIndex>
            <fetchIndex name="it's &quot;q&quot;">
                <fetchIndexElement property="a&quot;b" type="Binary" order="descending"/>
            </fetchIndex>
        </entity>
        <entity name="Order" representedClassName="Order" syncable="YES">
            <attribute name="group" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Item" inverseName="from"/>
        </entity>
    </model>
    """
  }

  /// A file of the user's that a statement list would drop a table of.
  static func victim(_ dir: String) throws -> String {
    let path = dir + "/victim.sqlite"
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "CREATE TABLE precious (x INTEGER)")
      try db.execute(sql: "INSERT INTO precious VALUES (42)")
    }
    return path
  }

  static func precious(_ path: String) throws -> [Int] {
    try DatabaseQueue(path: path).read { db in try Int.fetchAll(db, sql: "SELECT x FROM precious") }
  }

  @Test func aModelsNamesCreateOddlyNamedObjectsAndRunNothingElse() throws {
    let dir = TestSupport.temporaryFolder("hostile-model")
    defer { TestSupport.remove(dir) }
    let victim = try Self.victim(dir)
    try Self.model(victim: victim).write(toFile: dir + "/contents", atomically: true, encoding: .utf8)
    let generated = try TestSupport.run([
      "generate", "--model", dir + "/contents", "--entity", "Item", "--rows", "40", "--datasets", dir + "/datasets",
    ])
    #expect(generated.status == 0, "\(generated.stderr)")
    #expect(try Self.precious(victim) == [42])
    let store = dir + "/datasets/contents-item-40-s1.coredata.sqlite"
    let (indexes, items, columns) = try DatabaseQueue(path: store).read { db in
      (
        try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'Z_Item_%'"),
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM"),
        try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('ZITEM')")
      )
    }
    #expect(
      Set(indexes) == [
        "Z_Item_x ON ZITEM (ZSELECT); ATTACH DATABASE '\(victim)' AS v; DROP TABLE v.precious; CREATE INDEX y",
        "Z_Item_it's \"q\"",
      ])
    #expect(items == 40)
    #expect(columns == ["Z_PK", "Z_ENT", "Z_OPT", "ZFROM", "ZSELECT", "ZA\"B"])
    // The list reads through the odd names on every embedded store, in one order.
    var orders: [String] = []
    for store in ["sqlite", "memory"] {
      let out = try TestSupport.run([
        "fetch", "--model", dir + "/contents", "--entity", "Item", "--rows", "40", "--datasets", dir + "/datasets",
        "--store", store, "--sort", "select asc", "--where", "from.group != 'none'", "--ids",
      ])
      #expect(out.status == 0, "\(store): \(out.stderr)")
      orders.append(out.stdout)
    }
    #expect(orders[0] == orders[1] && !orders[0].isEmpty)
    let described = try TestSupport.run(["describe", "--model", dir + "/contents"])
    #expect(described.status == 0 && described.stdout.contains(#"CREATE INDEX "Z_Item_it's ""q""" ON ZITEM"#))
    #expect(try Self.precious(victim) == [42])
  }

  /// The same model through every other command that builds statements from its names: run's
  /// cases on both SQLite plans with the index advice, diff's saves, a gate matrix's list, and
  /// the list loaded into PostgreSQL. Each reads the odd names as names and runs nothing else.
  @Test func everyCommandReadsTheModelsNamesAsNames() throws {
    let dir = TestSupport.temporaryFolder("hostile-paths")
    defer { TestSupport.remove(dir) }
    let victim = try Self.victim(dir)
    let model = dir + "/contents"
    try Self.model(victim: victim).write(toFile: model, atomically: true, encoding: .utf8)
    let list = [
      "--model", model, "--entity", "Item", "--rows", "40", "--datasets", dir + "/datasets", "--sort", "select asc",
    ]
    let run = try TestSupport.run(
      ["run"] + list + [
        "--where", "from.group != 'none'", "--store", "sqlite,sqlite-coredata", "--quick", "--out", dir + "/run",
      ])
    #expect(run.status == 0, "run: \(run.stderr)")
    let diff = try TestSupport.run(
      ["diff"] + list + [
        "--store", "sqlite", "--k", "10", "--repetitions", "1", "--sections", "none", "--out", dir + "/diff",
      ])
    #expect(diff.status == 0, "diff: \(diff.stderr)")
    for folder in ["run", "diff"] {
      let csv = try String(contentsOfFile: "\(dir)/\(folder)/results.csv", encoding: .utf8)
      let rows = try ResultsCSV.decode(csv)
      let failed = rows.filter { $0.status == .failed }
      #expect(rows.contains { $0.isOK && $0.key.rows == 40 }, "\(folder): nothing measured")
      #expect(failed.isEmpty, "\(folder): \(failed.map(\.error))")
    }
    let matrix = dir + "/lists.json"
    let entry = #"{"model": "\#(model)", "entity": "Item", "rows": 1000, "sort": "select asc"}"#
    try Data(#"{"repetitions": 3, "lists": [\#(entry)]}"#.utf8).write(to: URL(fileURLWithPath: matrix))
    let gate = try TestSupport.run([
      "check", "--matrix", matrix, "--datasets", dir + "/datasets", "--update", "--update-runs", "1", "--baseline",
      dir + "/baseline.json",
    ])
    #expect(gate.status == 0, "check: \(gate.stdout)\(gate.stderr)")
    if TestSupport.postgresServerUp {
      let url = try TestDatabases.create("hostile_model")
      var orders: [String] = []
      for store in ["sqlite", "postgres"] {
        let out = try TestSupport.run(
          ["fetch"] + list + ["--store", store, "--postgres-url", "\(url)", "--where", "from.group != 'none'", "--ids"])
        #expect(out.status == 0, "\(store): \(out.stderr)")
        orders.append(out.stdout)
      }
      #expect(orders[0] == orders[1] && !orders[0].isEmpty)
    }
    #expect(try Self.precious(victim) == [42])
  }

  /// A user's database (beside a table it must keep) whose table and column names read as SQL: `generate --like` copies
  /// its schema, and nothing of the names runs.
  @Test func aDatabasesNamesAreDataToo() throws {
    let dir = TestSupport.temporaryFolder("hostile-db")
    defer { TestSupport.remove(dir) }
    let db = try Self.victim(dir)
    try DatabaseQueue(path: db).write { db in
      try db.execute(
        sql: """
          CREATE TABLE "it's; DROP TABLE precious" (id INTEGER PRIMARY KEY, "na""me" TEXT NOT NULL, "order" INTEGER)
          """)
      for i in 1...30 {
        try db.execute(
          sql: #"INSERT INTO "it's; DROP TABLE precious" VALUES (?, ?, ?)"#, arguments: [i, "n\(i % 7)", i % 3])
      }
    }
    let like = try TestSupport.run([
      "generate", "--like", db, "--entity", "it's; DROP TABLE precious", "--rows", "50", "--datasets", dir + "/out",
    ])
    #expect(like.status == 0, "\(like.stderr)")
    let fetched = try TestSupport.run([
      "fetch", "--db", db, "--entity", "it's; DROP TABLE precious", "--sort", "order asc", "--ids",
    ])
    #expect(fetched.status == 0 && fetched.stdout.split(separator: "\n").count >= 30, "\(fetched.stderr)")
    #expect(try Self.precious(db) == [42])
  }
}

/// `report A… --out B` joins runs' figures: B may be new or an earlier join, never a run's
/// folder, whose measured results would be lost.
@Suite struct JoinedReports {
  @Test func aJoinReplacesAnEarlierJoinAndNeverARunsFolder() throws {
    let dir = TestSupport.temporaryFolder("join-out")
    defer { TestSupport.remove(dir) }
    let root = TestSupport.packageRoot.path + "/results/"
    for (name, copy) in [("reference-cells", "a"), ("reference-recommend", "b")] {
      try FileManager.default.copyItem(atPath: root + name, toPath: "\(dir)/\(copy)")
    }
    let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/b/results.json"))
    let refused = try TestSupport.run(["report", dir + "/a", "--out", dir + "/b"])
    #expect(refused.status == 1, "\(refused.stderr)")
    #expect(refused.stderr.contains("it is the output of `fetchbench run`"), "\(refused.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/b/results.json")) == before)
    for _ in 1...2 {
      let joined = try TestSupport.run(["report", dir + "/a", dir + "/b", "--out", dir + "/joined"])
      #expect(joined.status == 0, "\(joined.stderr)")
    }
    let rendered = try TestSupport.run(["report", dir + "/joined"])
    #expect(rendered.status == 0, "\(rendered.stderr)")
  }
}
