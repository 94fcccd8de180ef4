import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import PostgresStore
import SQLiteStore
import TestSupport
import Testing

@Suite struct BadInput {
  /// NOTs and parentheses nest at most 100 deep: deeper text is a parse error, never a stack
  /// overflow in the parser, the SQL builder or the evaluator; 100 levels still parse.
  @Test func deepNestingIsAnErrorNotACrash() throws {
    for depth in [101, 10_000, 100_000] {
      for (open, close) in [("NOT ", ""), ("(", ")"), ("NOT (", ")")] {
        let text = String(repeating: open, count: depth) + "state = 'TX'" + String(repeating: close, count: depth)
        #expect(throws: FetchError.self) { try QueryParser.predicate(text) }
        do {
          _ = try QueryParser.predicate(text)
        } catch {
          #expect("\(error)".contains("nest more than 100 deep"), "\(error)")
        }
      }
    }
    let deepest = String(repeating: "(", count: 100) + "state = 'TX'" + String(repeating: ")", count: 100)
    #expect(try QueryParser.predicate(deepest) == QueryParser.predicate("state = 'TX'"))
    _ = try QueryParser.predicate(String(repeating: "NOT ", count: 100) + "state = 'TX'")
  }

  @Test func parseErrorsPointAtTheOffendingPosition() {
    let cases: [(String, Int, String)] = [
      ("state IN {'TX', 'CA'", 20, "expected ',' or '}'"),
      ("state = ", 8, "expected a value"),
      ("name BEGINSWITH 5", 16, "takes a string"),
      ("state == %@", 9, "%@ has no argument"),
      ("name CONTAINS[n] 'x'", 13, "the [n] modifier is not measured"),
      ("name <[c] 'x'", 6, "[c] applies to ==, !=, BEGINSWITH"),
      ("name ==[cd] 5", 12, "==[cd] takes a string"),
      ("ANY name == 'x'", 4, "ANY takes a key path through a to-many relationship"),
      ("tags.@sum > 1", 0, "@sum, @avg, @min and @max are not measured"),
      ("tags.@count > 1.5", 14, "@count compares with a whole number"),
      ("SUBQUERY(tags, $t, $t.name == 'x') > 0", 0, "follow it with .@count"),
      ("SUBQUERY(tags, $t, name == 'x').@count > 0", 19, "name the element's key paths as $t.name"),
      ("SUBQUERY(tags, t, $t.name == 'x').@count > 0", 15, "expected the element's variable"),
      ("SUBQUERY(tags, $t, SUBQUERY(x, $y, $y.a == 1).@count > 0).@count > 0", 19, "inside a SUBQUERY"),
      ("@count > 1", 0, "a collection operator follows"),
      ("details.closeDate > CAST(3, 'NSString')", 28, "casts to \"NSDate\" only"),
      ("cert == %d", 8, "has no argument"),
      ("state == $S", 9, "$S has no value"),
      ("closeDate > 2009-13-01", 12, "is not a date"),
      ("state == 'TX' AND", 17, "expected a key path"),
      ("state ~ 'TX'", 6, "unexpected character"),
      ("state = 'TX", 8, "unterminated string"),
      ("(state = 'TX'", 13, "expected ')'"),
      ("state 'TX'", 6, "expected an operator"),
      ("cert BETWEEN {1}", 13, "expected 2 values"),
    ]
    for (text, position, message) in cases {
      do {
        _ = try QueryParser.predicate(text)
        Issue.record("'\(text)' parsed")
      } catch {
        guard case .parse(let e) = error else {
          Issue.record("\(error)")
          continue
        }
        #expect(e.position == position, "'\(text)': \(e)")
        #expect(e.message.contains(message), "'\(text)': \(e.message)")
        #expect(e.description.contains("^"))
      }
    }
    #expect(throws: FetchError.self) { try QueryParser.sortDescriptors("name sideways") }
    #expect(throws: FetchError.self) { try QueryParser.sortDescriptors("name asc,") }
  }

  /// A date past Int64's seconds or ISO 8601's years is a value like any other: compared with
  /// a string it is the clear type error, its text the CAST it was written as.
  @Test func aDateBeyondEveryCalendarIsAnErrorNotATrap() throws {
    let model = DatasetModels.banks
    for seconds in ["1e19", "-1e19", "1e300"] {
      let predicate = try QueryParser.predicate("state == CAST(\(seconds), \"NSDate\")")
      #expect(throws: FetchError.self) {
        try FetchRequest(entityName: "FailedBankInfo", predicate: predicate).resolve(in: model)
      }
    }
    #expect(Value.date(1e19).literalText.hasPrefix("CAST("))
    #expect(Value.date(0).literalText == "1970-01-01T00:00:00Z")
  }

  /// MATCHES with an expression that backtracks without end (`(.+)+!` on names that never end
  /// in `!`) fails once the expression's time is spent, naming it, on the memory store and on
  /// SQLite alike, instead of never returning; a plain expression still matches.
  @Test func aRunawayRegularExpressionIsAnErrorNotAHang() throws {
    let model = DatasetModels.banks
    let runaway = try FetchRequest(
      entityName: "FailedBankInfo", predicate: QueryParser.predicate("name MATCHES '(.+)+!'"),
      sortDescriptors: [SortDescriptor("name")]
    ).resolve(in: model)
    let plain = try FetchRequest(
      entityName: "FailedBankInfo", predicate: QueryParser.predicate("name MATCHES[c] '.*bank.*'"),
      sortDescriptors: [SortDescriptor("name")]
    ).resolve(in: model)
    var counts: [Int] = []
    for type in ["memory", "sqlite"] {
      let store = try EngineFixture.shared.store(.banks, type)
      do {
        _ = try store.fetchIDs(runaway)
        Issue.record("\(type): the runaway expression returned")
      } catch {
        #expect("\(error)".contains("MATCHES '(.+)+!' ran past"), "\(type): \(error)")
      }
      counts.append(try store.fetchIDs(plain).count)
    }
    #expect(counts[0] == counts[1] && counts[0] > 0)
  }

  /// A request as large as every store takes runs on each alike (SQLite's expression depth and
  /// bound parameters are the tightest); one comparison, sort key or value more is one clear
  /// error on every store, not an 18 KB "Expression tree is too large" on one of them.
  @Test func theLargestRequestRunsEverywhereAndOneMoreIsAClearError() throws {
    let model = DatasetModels.banks
    func request(comparisons: Int, sortKeys: Int, values: Int = 1) throws -> FetchRequest {
      let names = (0..<comparisons - 1).map { "name != 'x\($0)'" }
      let list = (0..<values).map { "'s\($0)'" }.joined(separator: ", ")
      let text = (names + ["NOT (state IN {\(list)})"]).joined(separator: " AND ")
      return FetchRequest(
        entityName: "FailedBankInfo", predicate: try QueryParser.predicate(text),
        sortDescriptors: Array(repeating: SortDescriptor("name"), count: sortKeys))
    }
    let largest = try request(comparisons: FetchRequest.maxComparisons, sortKeys: FetchRequest.maxSortKeys).resolve(
      in: model)
    let many = try request(comparisons: 1, sortKeys: 1, values: FetchRequest.maxValues).resolve(in: model)
    var counts: [[Int]] = []
    for type in ["memory", "sqlite"] {
      let store = try EngineFixture.shared.store(.banks, type)
      counts.append([try store.fetchIDs(largest).count, try store.fetchIDs(many).count])
    }
    #expect(counts[0] == counts[1] && counts[0][0] > 0, "\(counts)")
    for (tooLarge, message) in [
      (try request(comparisons: FetchRequest.maxComparisons + 1, sortKeys: 1), "at most 500 comparisons"),
      (try request(comparisons: 1, sortKeys: FetchRequest.maxSortKeys + 1), "at most 64 keys; this one gives 65"),
      (try request(comparisons: 1, sortKeys: 1, values: FetchRequest.maxValues + 1), "at most 30,000 values"),
    ] {
      #expect(throws: FetchError.self) { try tooLarge.resolve(in: model) }
      do { _ = try tooLarge.resolve(in: model) } catch { #expect("\(error)".contains(message), "\(error)") }
    }
  }

  @Test func invalidRequestsAreClearErrors() throws {
    let model = DatasetModels.banks
    func resolve(_ r: FetchRequest) -> FetchError? {
      do {
        _ = try r.resolve(in: model)
        return nil
      } catch { return error }
    }
    let sort = [SortDescriptor("name")]
    #expect(
      resolve(FetchRequest(entityName: "Bank"))
        == .unknownEntity("Bank", known: ["FailedBankInfo", "FailedBankDetails"]))
    if case .unknownKeyPath(let k, _, _)? = resolve(
      FetchRequest(entityName: "FailedBankInfo", sortDescriptors: [SortDescriptor("nope")]))
    {
      #expect(k == "nope")
    } else {
      Issue.record("unknown sort key accepted")
    }
    // A relationship where an attribute belongs is named as one, with an attribute to use.
    #expect(
      resolve(FetchRequest(entityName: "FailedBankInfo", sortDescriptors: [SortDescriptor("details", ascending: true)]))
        == .invalidRequest(
          "'details' is a to-one relationship of FailedBankInfo, not an attribute: name one of FailedBankDetails's attributes, e.g. details.\(try model.entity("FailedBankDetails").attributes[0].name)"
        ))
    if case .unknownKeyPath(let k, _, _)? = resolve(
      FetchRequest(entityName: "FailedBankInfo", sortDescriptors: [SortDescriptor("details.nope")]))
    {
      #expect(k == "details.nope")
    } else {
      Issue.record("unknown to-one key accepted")
    }
    // MATCHES takes a regular expression, ignoring case at most.
    for (text, message) in [
      ("name MATCHES 'Bank (of'", "MATCHES 'Bank (of' is not a regular expression"),
      ("name MATCHES[cd] 'b.*'", "MATCHES[cd]: FetchBench matches a regular expression ignoring case ([c]) only"),
    ] {
      let error = resolve(FetchRequest(entityName: "FailedBankInfo", predicate: try QueryParser.predicate(text)))
      #expect(error.map { "\($0)".contains(message) } == true, "\(text): \(error.map { "\($0)" } ?? "accepted")")
    }
    #expect(
      resolve(FetchRequest(entityName: "FailedBankInfo", sortDescriptors: sort, sectionNameKeyPath: "state"))
        == .sectionSortMismatch(section: "state", firstSort: "name"))
    #expect(
      resolve(FetchRequest(entityName: "FailedBankInfo", sectionNameKeyPath: "state"))
        == .sectionSortMismatch(section: "state", firstSort: nil))
    #expect(
      resolve(
        FetchRequest(
          entityName: "FailedBankInfo", predicate: .comparison("details.closeDate", .greater, .string("soon"))))
        == .typeMismatch(keyPath: "details.closeDate", expected: .date, literal: "'soon'"))
    #expect(
      resolve(FetchRequest(entityName: "FailedBankInfo", predicate: .text("details.cert", .beginsWith, "1"))) != nil)
    #expect(
      resolve(FetchRequest(entityName: "FailedBankInfo", fetchBatchSize: -1))
        == .invalidRequest("fetchBatchSize must be ≥ 0, got -1"))
    #expect(resolve(FetchRequest(entityName: "FailedBankInfo", relationshipKeyPathsForPrefetching: ["owner"])) != nil)
    // The controller surfaces the same error from performFetch, as Core Data does.
    let c = FetchedResultsController(
      fetchRequest: FetchRequest(entityName: "FailedBankInfo", sortDescriptors: sort, sectionNameKeyPath: "city"),
      store: MemoryStore(model: model))
    #expect(throws: FetchError.sectionSortMismatch(section: "city", firstSort: "name")) { try c.performFetch() }
  }

  @Test func missingCorruptAndMismatchedFilesAreClearErrors() throws {
    let dir = TestSupport.temporaryFolder("corrupt")
    defer { TestSupport.remove(dir) }
    #expect(throws: SQLiteStoreError.missingFile("\(dir)/none.sqlite")) {
      try SQLiteStore(path: "\(dir)/none.sqlite", model: DatasetModels.banks)
    }
    let garbage = "\(dir)/garbage.sqlite"
    try Data((0..<8192).map { UInt8($0 % 251) }).write(to: URL(fileURLWithPath: garbage))
    do {
      _ = try SQLiteStore(path: garbage, model: DatasetModels.banks)
      Issue.record("a corrupt file opened")
    } catch let e as SQLiteStoreError {
      guard case .notADatabase(let p, _) = e else {
        Issue.record("\(e)")
        return
      }
      #expect(p == garbage)
    }
    // A wells file opened as banks: the schema check names the missing table.
    do {
      _ = try SQLiteStore(path: EngineFixture.shared.path(.wells), model: DatasetModels.banks)
      Issue.record("a wells file opened as banks")
    } catch let e as SQLiteStoreError {
      #expect("\(e)".contains("table failed_bank_info (entity FailedBankInfo) is missing"))
    }
  }

}

/// Tests open stores on one file from several threads at once, as users' apps and the load
/// test do. WAL recovery and the last connection's checkpoint take the file's locks briefly;
/// an opener must wait for them instead of failing with "database is locked".
@Suite struct ConcurrentOpen {
  @Test func storesOpenAndReadConcurrently() async throws {
    let path = EngineFixture.shared.path(.wells)
    let model = DatasetModels.wells
    let failures = try await withThrowingTaskGroup(of: String?.self) { group in
      for worker in 0..<8 {
        group.addTask {
          for _ in 0..<25 {
            do {
              let store = try SQLiteStore(path: path, model: model, readOnly: worker % 2 == 0)
              _ = try store.count(try FetchRequest(entityName: "Well").resolve(in: model))
            } catch { return String(describing: error) }
          }
          return nil
        }
      }
      var failures: [String] = []
      for try await f in group { if let f { failures.append(f) } }
      return failures
    }
    #expect(failures == [])
  }
}

/// A server that is down, an unknown user, a database without the tables, a table with the
/// wrong column type: each a clear error naming the server and the problem.
@Suite struct PostgresBadInput {
  @Test func badServersAndSchemasAreClearErrors() throws {
    try EngineFixture.shared.requirePostgres()
    let good = try #require(EngineFixture.shared.postgres.url)
    let model = DatasetModels.banks
    func message(_ body: () throws -> Void) -> String {
      do {
        try body()
        return "no error"
      } catch {
        return String(describing: error)
      }
    }
    // Nothing listens on port 1 of loopback: refused at once.
    let t0 = Date()
    let down = message {
      _ = try PostgresStore(url: try PostgresURL("postgres://postgres@127.0.0.1:1/fetchbench"), model: model)
    }
    #expect(
      down.contains("cannot connect to PostgreSQL at 127.0.0.1:1") && down.contains("scripts/postgres start"), "\(down)"
    )
    #expect(Date().timeIntervalSince(t0) < Double(PostgresURL.connectTimeout) + 1)
    #expect(message { _ = try PostgresURL("http://x/y") }.contains("is not a PostgreSQL URL"))
    #expect(message { _ = try PostgresURL("postgres://u@h:5432/") }.contains("database name is missing"))
    var nobody = good
    nobody.user = "nobody_here"
    let role = message { _ = try PostgresStore(url: nobody, model: model) }
    #expect(role.contains("127.0.0.1") && role.contains("nobody_here"), "\(role)")
    // A database without the dataset, then with a wrong column type.
    let empty = try TestDatabases.create("empty")
    let missing = message { _ = try PostgresStore(url: empty, model: model) }
    #expect(
      missing.contains("table failed_bank_info") && missing.contains("fetchbench generate --store postgres"),
      "\(missing)")
    let admin = try PostgresAdmin(url: empty)
    for table in DatasetKind.banks.tables { try admin.execute(table.postgresCreateSQL) }
    try admin.execute("ALTER TABLE failed_bank_details ALTER COLUMN cert TYPE TEXT")
    let wrong = message { _ = try PostgresStore(url: empty, model: model) }
    #expect(wrong.contains("failed_bank_details.cert is text, the model expects bigint"), "\(wrong)")
    try admin.execute("ALTER TABLE failed_bank_details ALTER COLUMN cert TYPE BIGINT USING 0")
    let noLog = message { _ = try PostgresStore(url: empty, model: model) }
    #expect(noLog.contains("change log"), "\(noLog)")
  }

}
