import Catalog
import DatasetStores
import FetchBenchKit
import Foundation
import GRDB
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// The gate's matrix as data: the project's own file, a matrix's errors, and a user's matrix
/// of two lists (a database of theirs and a generated one) through `--update` and `check`.
@Suite struct GateMatrixFile {
  func decode(_ json: String) throws -> GateLists {
    let path = TestSupport.temporaryFolder("matrix") + "/m.json"
    defer { TestSupport.remove((path as NSString).deletingLastPathComponent) }
    try Data(json.utf8).write(to: URL(fileURLWithPath: path))
    return try GateLists.read(path)
  }

  func error(_ json: String) -> String {
    do {
      _ = try decode(json)
      return "no error"
    } catch {
      return "\(error)"
    }
  }

  /// The project's matrix is one such file, and its cases are the gate's as they were:
  /// change tracking on banks on each store first, then banks and wells on each store.
  @Test func theProjectsMatrixIsAFile() throws {
    var options = GateOptions()
    options.matrix = try GateLists.read(
      TestSupport.packageRoot.appendingPathComponent(GateOptions.projectMatrixPath).path)
    let lists = try options.resolvedLists()
    #expect(lists.map(\.checksumKey) == ["banks-50000", "wells-50000"])
    let cases = options.cases(lists)
    #expect(
      cases.map { "\($0.gate?.name ?? "?") \($0.store.rawValue) \($0.scenario.csv) \($0.repetitions)" } == [
        "banks memory gate_diff 45", "banks sqlite gate_diff 45", "banks postgres gate_diff 45",
        "banks memory gate 15", "banks sqlite gate 15", "banks postgres gate 15",
        "wells memory gate 15", "wells sqlite gate 15", "wells postgres gate 15",
      ])
    #expect(
      cases.allSatisfy {
        $0.batchSize == 20 && $0.rows == 50_000 && $0.request == nil && $0.gate?.strategies == [.batched]
      })
    // The example the documentation shows is a matrix.
    let example = try GateLists.read(TestSupport.packageRoot.appendingPathComponent("docs/ci/matrix.json").path)
    #expect(example.lists.map(\.figureName) == ["inbox", "banks-by-state"])
    #expect(example.lists[0].measuredStrategies == [.batched, .keyset] && example.lists[1].request?.section == "state")
    // Every file it names is in the package, so that the command the README shows runs as shown.
    for path in example.lists.flatMap({ [$0.db, $0.model].compactMap { $0 } }) {
      #expect(
        FileManager.default.fileExists(atPath: TestSupport.packageRoot.appendingPathComponent(path).path), "\(path)")
    }
    #expect(example.lists[0].model != nil)
  }

  /// Each mistake is named with where it is and what would be right.
  @Test func aMatrixsMistakesAreNamed() {
    #expect(
      error(#"{"lists": [{"dataset": "banks", "sotr": "name"}]}"#).contains(
        #"unknown key "sotr" in list 1; expected name, dataset"#))
    #expect(
      error(#"{"list": []}"#).contains(#"unknown key "list" in the matrix; expected lists, batchSize, repetitions"#))
    #expect(error(#"{"lists": []}"#).contains(#""lists" is empty"#))
    #expect(error(#"{"lists": [{"dataset": "bank"}]}"#).contains("unknown dataset 'bank'; expected banks or wells"))
    #expect(
      error(#"{"lists": [{"dataset": "banks", "db": "a.sqlite"}]}"#).contains(
        #"give one of "dataset", "db" and "model""#))
    #expect(error(#"{"lists": [{"db": "a.sqlite"}]}"#).contains(#""db" needs "entity""#))
    #expect(
      error(#"{"lists": [{"db": "a.sqlite", "entity": "T", "changes": true}]}"#).contains(
        "a database of yours is never written"))
    #expect(error(#"{"lists": [{"dataset": "wells", "changes": true}]}"#).contains(#""changes" is measured on banks"#))
    #expect(
      error(#"{"lists": [{"dataset": "banks", "strategies": ["pages"]}]}"#).contains(
        #"unknown strategy "pages" in "strategies"; expected batched, offset, keyset"#))
    #expect(
      error(#"{"lists": [{"dataset": "banks", "strategies": ["full"]}]}"#).contains("measured against a full fetch"))
    #expect(error(#"{"lists": [{"dataset": "banks", "rows": "many"}]}"#).contains("a wrong value at lists[0].rows"))
    #expect(
      error(#"{"repetitions": 2.5, "lists": [{"dataset": "banks"}]}"#).contains(
        "a wrong value at repetitions (2.5 is not a whole number)"))
    let huge = error(#"{"lists": [{"dataset": "banks", "rows": 1e30}]}"#)
    #expect(huge.contains("a wrong value at lists[0].rows (") && huge.contains(" is not a whole number)"), "\(huge)")
    #expect(error(#"{"lists": [{"dataset": "banks"}, {"dataset": "banks"}]}"#).contains("two lists are named 'banks'"))
    #expect(error(#"{"lists": [{"dataset": "banks", "name": "a/b"}]}"#).contains("without '/'"))
    #expect(error(#"[1]"#).contains("a wrong value at the top level"))
  }

  /// A team's matrix: their own database's list sorted their way, with batched and keyset
  /// against a full fetch, and a generated list filtered to Texas with its change tracking.
  /// Recorded, then judged: exact counters by the lists' names; another batch size is a
  /// regression (2); another sort, another matrix or an edited database cannot be judged (3);
  /// the database is never written.
  @Test func aUsersMatrixIsRecordedAndJudged() throws {
    let dir = TestSupport.temporaryFolder("user-matrix")
    defer { TestSupport.remove(dir) }
    let (db, bytes) = try UserDatabaseFixture.write(app: true, in: dir)
    func matrix(sort: String) -> String {
      """
      {"repetitions": 3, "lists": [
        {"name": "departures", "db": "\(db)", "entity": "flights", "sort": "\(sort)", "strategies": ["batched", "keyset"]},
        {"name": "texas", "dataset": "banks", "rows": 2000, "where": "state == 'TX'", "stores": ["sqlite"], "changes": true}
      ]}
      """
    }
    try Data(matrix(sort: "departure desc, id").utf8).write(to: URL(fileURLWithPath: dir + "/lists.json"))
    let common = ["check", "--matrix", dir + "/lists.json", "--datasets", dir + "/datasets"]
    let record = try TestSupport.run(common + ["--update", "--update-runs", "2"])
    #expect(record.status == 0, "\(record.stderr)")
    #expect(record.stdout.contains("wrote \(dir)/lists.baseline.json"), "\(record.stdout)")

    let same = try TestSupport.run(common)
    #expect(same.status == 0 || same.stdout.contains("not judged: busy machine"), "\(same.stdout)\n\(same.stderr)")
    #expect(
      same.stdout.contains("# fetchbench check: departures (1,500 rows), texas (2,000 rows); batch size 20"),
      "\(same.stdout)")
    for line in [
      "| `departures/sqlite/first_screen/batched/queries` | counter | 2 | 2 |",
      "| `departures/sqlite/first_screen/keyset/queries` | counter | 1 | 1 |",
      "| `departures/sqlite/first_screen/keyset/rows_materialized` | counter | 20 | 20 |",
      "| `departures/memory/perform_fetch/full/rows_materialized` | counter | 1,500 | 1,500 |",
      "| `departures/sqlite/perform_fetch/keyset_over_full_time` | ratio |",
      "| `texas/sqlite/diff_k100/queries_per_transaction` | counter | 1 | 1 |",
      "| `texas/sqlite/first_screen/batched/rows_materialized` | counter | 20 | 20 |",
    ] {
      #expect(same.stdout.contains(line), "\(line)\n\(same.stdout)")
    }
    // The database's list has no sectioned scenario (its sections are its own), and Texas
    // has no memory store.
    #expect(!same.stdout.contains("departures/sqlite/sectioned") && !same.stdout.contains("texas/memory"))

    let worse = try TestSupport.run(common + ["--batch-size", "1"])
    #expect(worse.status == 2, "\(worse.stdout)\n\(worse.stderr)")
    #expect(
      worse.stdout.contains("| `departures/sqlite/first_screen/batched/queries` | counter | 2 | 21 |"),
      "\(worse.stdout)")

    try Data(matrix(sort: "departure asc, id").utf8).write(to: URL(fileURLWithPath: dir + "/resorted.json"))
    let resorted = try TestSupport.run(
      [
        "check", "--matrix", dir + "/resorted.json", "--baseline", dir + "/lists.baseline.json", "--datasets",
        dir + "/datasets",
      ])
    #expect(resorted.status == 3, "\(resorted.stdout)\n\(resorted.stderr)")
    #expect(resorted.stdout.contains("cannot judge: list 'departures' was recorded as"), "\(resorted.stdout)")
    #expect(!resorted.stderr.contains("[1/"), "judged before measuring: \(resorted.stderr)")

    try Data(
      #"{"lists": [{"name": "texas", "dataset": "banks", "rows": 2000, "where": "state == 'TX'", "stores": ["sqlite"], "changes": true}]}"#
        .utf8
    )
    .write(to: URL(fileURLWithPath: dir + "/fewer.json"))
    let fewer = try TestSupport.run(
      [
        "check", "--matrix", dir + "/fewer.json", "--baseline", dir + "/lists.baseline.json", "--datasets",
        dir + "/datasets",
      ])
    #expect(
      fewer.status == 3 && fewer.stdout.contains("the baseline has list 'departures', which the matrix does not"),
      "\(fewer.stdout)")

    #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes, "the user's database was written")
    let queue = try DatabaseQueue(path: db)
    try queue.write { try $0.execute(sql: "UPDATE flights SET carrier = 'ZZ' WHERE id = 7") }
    try queue.close()
    let edited = try TestSupport.run(common)
    #expect(
      edited.status == 3 && edited.stdout.contains("dataset \(db) has checksum"), "\(edited.stdout)\n\(edited.stderr)")
  }
}
