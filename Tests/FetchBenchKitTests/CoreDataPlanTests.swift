import Foundation
import GRDB
import TestSupport
import Testing

/// `--plan coredata`: the statements Core Data issues on SQLite, in sequence and shape (as its
/// SQL debug log shows them), beside FetchBench's tuned plan, which is unchanged; and the IDs
/// they list equal the SQL oracle's, as sets within each group of equal sort keys (Core Data
/// orders by the sort keys alone).
@Suite(.serialized) struct CoreDataPlan {
  static let rows = "1500"

  /// A folder with banks and wells in both schemas, made once.
  static let datasets: String = {
    let dir = TestSupport.temporaryFolder("coredata-plan")
    _ = try? TestSupport.run([
      "generate", "--rows", rows, "--datasets", dir, "--format", "sqlite", "--schema", "coredata",
    ])
    return dir
  }()

  /// The statements `fetch` issues, as `--sql-debug` prints them.
  static func statements(_ arguments: [String]) throws -> [String] {
    let out = try TestSupport.run(["fetch", "--rows", rows, "--datasets", datasets, "--sql-debug"] + arguments)
    #expect(out.status == 0, "\(arguments): \(out.stderr)")
    return out.stderr.split(separator: "\n").filter { $0.hasPrefix("FetchBench: sql: ") }.map {
      String($0.dropFirst(17))
    }
  }

  static func binds(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ",") }

  /// Banks' statements under Core Data's plan: the ID query by close date, a batch of 20 by
  /// key, and the details' columns (their WHERE clause per statement).
  static let idQuery =
    "SELECT 0, t0.Z_PK FROM ZFAILEDBANKINFO t0 LEFT OUTER JOIN ZFAILEDBANKDETAILS t1 ON t0.ZDETAILS = t1.Z_PK ORDER BY t1.ZCLOSEDATE DESC"
  static let batch =
    "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZDETAILS, t0.ZNAME, t0.ZCITY, t0.ZSTATE FROM ZFAILEDBANKINFO t0 WHERE t0.Z_PK IN (\(binds(20)))"
  static let details =
    "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZINFO, t0.ZCLOSEDATE, t0.ZUPDATEDDATE, t0.ZZIP, t0.ZCERT, t0.ZACQUIRINGINSTITUTION, t0.ZFUND FROM ZFAILEDBANKDETAILS t0"

  @Test func banksInCoreDatasSchemaIssueCoreDatasStatements() throws {
    let list = ["--dataset", "banks", "--schema", "coredata", "--plan", "coredata"]
    let (idQuery, batch, details) = (Self.idQuery, Self.batch, Self.details)
    // The first screen, batched: the ID query, the batch without a join, the prefetch by key.
    #expect(
      try Self.statements(list + ["--show", "20"]) == [
        idQuery, batch, details + " WHERE t0.Z_PK IN (\(Self.binds(20)))",
      ])
    // Sectioned: the ID query, the grouped count, then the batch and its prefetch.
    #expect(
      try Self.statements(list + ["--sort", "state asc, details.closeDate desc", "--section", "state", "--show", "20"])
        == [
          "SELECT 0, t0.Z_PK FROM ZFAILEDBANKINFO t0 LEFT OUTER JOIN ZFAILEDBANKDETAILS t1 ON t0.ZDETAILS = t1.Z_PK ORDER BY t0.ZSTATE, t1.ZCLOSEDATE DESC",
          "SELECT t0.ZSTATE, COUNT(DISTINCT t0.Z_PK) FROM ZFAILEDBANKINFO t0 GROUP BY t0.ZSTATE ORDER BY t0.ZSTATE",
          batch,
          details + " WHERE t0.Z_PK IN (\(Self.binds(20)))",
        ])
    // A full fetch: every row's own columns, then the prefetch of all their keys as one array.
    #expect(
      try Self.statements(list + ["--strategy", "full", "--show", "1"]) == [
        "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZDETAILS, t0.ZNAME, t0.ZCITY, t0.ZSTATE FROM ZFAILEDBANKINFO t0 LEFT OUTER JOIN ZFAILEDBANKDETAILS t1 ON t0.ZDETAILS = t1.Z_PK ORDER BY t1.ZCLOSEDATE DESC",
        details + " WHERE t0.Z_PK IN (SELECT value FROM json_each(?))",
      ])
  }

  @Test func cellsFaultEachRelatedObjectAsCoreDataDoes() throws {
    let list = ["--dataset", "banks", "--schema", "coredata", "--plan", "coredata", "--show", "20"]
    let (idQuery, batch, details) = (Self.idQuery, Self.batch, Self.details)
    // Nothing prefetched: the ID query, the batch, then one fault per bank's details.
    let faulting = try Self.statements(list + ["--prefetch", "", "--cell", "name, details.closeDate"])
    #expect(faulting == [idQuery, batch] + Array(repeating: details + " WHERE t0.Z_PK = ?", count: 20))
    // Prefetched: the details of the batch in one statement, no fault.
    let prefetched = try Self.statements(list + ["--prefetch", "details", "--cell", "name, details.closeDate"])
    #expect(prefetched == [idQuery, batch, details + " WHERE t0.Z_PK IN (\(Self.binds(20)))"])
    // --stats counts them, and both show the same cells.
    let stats = try TestSupport.run(
      [
        "fetch", "--rows", Self.rows, "--datasets", Self.datasets, "--stats", "--prefetch", "", "--cell",
        "name, details.closeDate",
      ]
        + list)
    #expect(stats.stderr.contains("faults\t20\nqueries\t22\n"), "\(stats.stderr)")
    #expect(stats.stderr.contains("prefetched\tnone\n"), "\(stats.stderr)")
    // Without --prefetch a cell's list prefetches nothing it does not name: the same faults,
    // and a cell of the list's own attributes is the ID query and the batch alone.
    #expect(try Self.statements(list + ["--cell", "name, details.closeDate"]) == faulting)
    #expect(try Self.statements(list + ["--cell", "name"]) == [idQuery, batch])
    let withPrefetch = try TestSupport.run(
      ["fetch", "--rows", Self.rows, "--datasets", Self.datasets, "--prefetch", "details", "--cell", "name, details.closeDate"]
        + list)
    #expect(stats.stdout == withPrefetch.stdout && stats.stdout.split(separator: "\n").count == 21)
    let refused = try TestSupport.run(
      ["fetch", "--rows", Self.rows, "--datasets", Self.datasets, "--cell", "details.nothing"] + list)
    #expect(refused.status != 0 && refused.stderr.hasPrefix("Error: ") && refused.stderr.contains("details.nothing"))
  }

  /// A tracked list under Core Data's plan issues Core Data's statements, plus the key query
  /// FetchBench's change tracking needs, named in the log as its own and counted apart.
  @Test func aTrackedListIssuesCoreDatasStatementsAndNamesItsOwn() throws {
    let list = ["--dataset", "banks", "--schema", "coredata", "--plan", "coredata", "--show", "20", "--track"]
    let join = "FROM ZFAILEDBANKINFO t0 LEFT OUTER JOIN ZFAILEDBANKDETAILS t1 ON t0.ZDETAILS = t1.Z_PK"
    let ownJoin = "FROM ZFAILEDBANKINFO t0 LEFT JOIN ZFAILEDBANKDETAILS t1 ON t1.Z_PK = t0.ZDETAILS"
    let batch = Self.batch
    let details = Self.details + " WHERE t0.Z_PK IN (\(Self.binds(20)))"
    let own = "annotation: FetchBench's own statement, not Core Data's: the list's sort keys"
    // Batched: Core Data's ID query, FetchBench's key query, then the batch and its prefetch.
    let batched = try TestSupport.run(
      ["fetch", "--rows", Self.rows, "--datasets", Self.datasets, "--sql-debug", "--stats"] + list)
    let lines = batched.stderr.split(separator: "\n").filter { $0.hasPrefix("FetchBench: sql: ") || $0.contains(own) }
      .map { $0.contains(own) ? own : String($0.dropFirst(12)) }
    #expect(
      lines == [
        "sql: SELECT 0, t0.Z_PK \(join) ORDER BY t1.ZCLOSEDATE DESC", own,
        "sql: SELECT t0.Z_PK, t1.ZCLOSEDATE \(ownJoin) ORDER BY t1.ZCLOSEDATE DESC, t0.Z_PK ASC", "sql: " + batch,
        "sql: " + details,
      ], "\(lines)")
    #expect(batched.stderr.contains("own_queries\t1\nqueries\t4\n"), "\(batched.stderr)")
    // Sectioned: the ID query and the grouped count, then the key query that also counts the
    // sections for FetchBench.
    let sectioned = try Self.statements(list + ["--sort", "state asc, details.closeDate desc", "--section", "state"])
    #expect(
      sectioned == [
        "SELECT 0, t0.Z_PK \(join) ORDER BY t0.ZSTATE, t1.ZCLOSEDATE DESC",
        "SELECT t0.ZSTATE, COUNT(DISTINCT t0.Z_PK) FROM ZFAILEDBANKINFO t0 GROUP BY t0.ZSTATE ORDER BY t0.ZSTATE",
        "SELECT t0.Z_PK, t0.ZSTATE, t1.ZCLOSEDATE \(ownJoin) ORDER BY t0.ZSTATE ASC, t1.ZCLOSEDATE DESC, t0.Z_PK ASC",
        batch, details,
      ], "\(sectioned)")
    // A tracked full fetch: Core Data's full query, then the key query alone.
    let full = try Self.statements(list + ["--strategy", "full"])
    #expect(
      full.count == 3 && full[0].hasPrefix("SELECT 0, t0.Z_PK, t0.Z_OPT")
        && full[2].hasPrefix("SELECT t0.Z_PK, t1.ZCLOSEDATE"))
  }

  /// A localized sort under Core Data's plan names Core Data's collation, as its published logs
  /// show (`COLLATE NSCollateLocaleSensitive`), and lists what the memory store lists.
  @Test func aLocalizedSortNamesCoreDatasCollation() throws {
    let list = ["--dataset", "banks", "--schema", "coredata", "--sort", "name asc localizedCompare:"]
    let statements = try Self.statements(list + ["--plan", "coredata", "--show", "0"])
    #expect(
      statements.first == "SELECT 0, t0.Z_PK FROM ZFAILEDBANKINFO t0 ORDER BY t0.ZNAME COLLATE NSCollateLocaleSensitive"
    )
    let ids = { (extra: [String]) in
      try TestSupport.run(["fetch", "--rows", Self.rows, "--datasets", Self.datasets, "--ids"] + list + extra)
    }
    let coreData = try ids(["--plan", "coredata"])
    let memory = try ids(["--store", "memory"])
    #expect(
      coreData.status == 0 && coreData.stdout == memory.stdout && coreData.stdout.split(separator: "\n").count == 1_500)
  }

  @Test func wellsAndTheTunedPlanKeepTheirShapes() throws {
    let wells = [
      "--dataset", "wells", "--plan", "coredata", "--section", "state", "--sort", "state asc, spudDate desc",
    ]
    let sectioned = try Self.statements(wells + ["--show", "20"])
    #expect(sectioned.count == 3, "\(sectioned)")
    #expect(sectioned.first == "SELECT 0, t0.id FROM wells t0 ORDER BY t0.state, t0.spud_date DESC")
    #expect(
      sectioned.dropFirst().first
        == "SELECT t0.state, COUNT(DISTINCT t0.id) FROM wells t0 GROUP BY t0.state ORDER BY t0.state")
    #expect(sectioned.last?.hasSuffix("FROM wells t0 WHERE t0.id IN (\(Self.binds(20)))") == true)
    // The tuned plan, as before: one statement for the IDs with their sections, one batch
    // with the prefetched relationship joined in.
    let tuned = try Self.statements([
      "--dataset", "banks", "--sort", "state asc, details.closeDate desc", "--section", "state", "--show", "20",
    ])
    #expect(tuned.count == 2, "\(tuned)")
    #expect(
      tuned.first
        == "SELECT t0.id, t0.state FROM failed_bank_info t0 LEFT JOIN failed_bank_details t1 ON t1.info_id = t0.id ORDER BY t0.state ASC, t1.close_date DESC, t0.id ASC"
    )
    #expect(tuned.last?.contains("LEFT JOIN failed_bank_details t1 ON t1.info_id = t0.id WHERE t0.id IN (") == true)
    // --store sqlite-coredata is SQLite with Core Data's statements, as --plan coredata.
    let asStore = try Self.statements(["--dataset", "banks", "--store", "sqlite-coredata", "--show", "20"])
    let asPlan = try Self.statements(["--dataset", "banks", "--plan", "coredata", "--show", "20"])
    #expect(asStore.count == 3 && asStore == asPlan, "\(asStore)")
    let refused = try TestSupport.run([
      "fetch", "--rows", Self.rows, "--datasets", Self.datasets, "--plan", "coredata", "--store", "postgres",
    ])
    #expect(refused.status == 64 && refused.stderr.contains("--plan coredata is SQLite's"), "\(refused.stderr)")
  }

  @Test func runPutsCoreDatasStatementsBesideTheTunedOnes() throws {
    let out = TestSupport.temporaryFolder("coredata-run")
    defer { TestSupport.remove(out) }
    let run = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", Self.rows, "--datasets", Self.datasets, "--store",
      "sqlite,sqlite-coredata", "--mode",
      "full,batched", "--scenario", "first_screen,sectioned,sectioned_cached", "--repetitions", "1", "--no-index",
      "--out", out + "/r",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    // The answer first: the run ends with its recommendation, one item per store, which
    // recommendation.json holds too.
    #expect(
      run.stdout.contains("\nRecommendation (the report's recommendation section says how it is chosen):\n- banks at "),
      "\(run.stdout)")
    #expect(
      run.stdout.contains(", SQLite, tuned statements: ") && run.stdout.contains(", SQLite, Core Data's statements: "))
    #expect(
      run.stdout.split(separator: "\n").filter { $0.hasPrefix("- ") || $0.hasPrefix("  ") }.allSatisfy {
        $0.count <= 80
      })
    let json = try JSONSerialization.jsonObject(
      with: Data(contentsOf: URL(fileURLWithPath: out + "/r/recommendation.json")))
    #expect(
      (json as? [[String: Any]])?.compactMap { $0["store"] as? String }.sorted() == ["sqlite", "sqlite-coredata"])
    let csv = try String(contentsOfFile: out + "/r/results.csv", encoding: .utf8)
    let header = csv.split(separator: "\n").first!.split(separator: ",").map(String.init)
    let at = { (name: String) in header.firstIndex(of: name)! }
    // Statements per case: the tuned plan's and Core Data's (the prefetch of details is one
    // more statement each time rows are read; sections one more grouped statement).
    var queries: [String: Int] = [:]
    var paired: [String: Set<String>] = [:]
    for line in csv.split(separator: "\n").dropFirst() {
      let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      if ["tuned_plan_ms", "coredata_over_tuned"].contains(f[at("metric")]) {
        paired["\(f[at("store")]) \(f[at("mode")]) \(f[at("scenario")])", default: []].insert(f[at("metric")])
      }
      guard f[at("metric")] == "queries" else { continue }
      queries["\(f[at("store")]) \(f[at("mode")]) \(f[at("scenario")])"] = Int(Double(f[at("value")])!)
    }
    #expect(
      queries == [
        "sqlite full first_screen": 1, "sqlite batched first_screen": 2, "sqlite full sectioned": 1,
        "sqlite batched sectioned": 2,
        "sqlite-coredata full first_screen": 2, "sqlite-coredata batched first_screen": 3,
        "sqlite-coredata full sectioned": 2,
        "sqlite-coredata batched sectioned": 4,
        // A relaunch with a valid section cache: Core Data's grouped count is not issued.
        "sqlite full sectioned_cached": 1, "sqlite batched sectioned_cached": 2,
        "sqlite-coredata full sectioned_cached": 2,
        "sqlite-coredata batched sectioned_cached": 3,
      ], "\(queries)")
    // Every case on Core Data's statements is paired with the tuned statements in its process;
    // no case of the tuned plan is.
    #expect(
      paired
        == Dictionary(
          uniqueKeysWithValues: queries.keys.filter { $0.hasPrefix("sqlite-coredata ") }.map {
            ($0, ["tuned_plan_ms", "coredata_over_tuned"])
          }
        ), "\(paired)")
    let report = try String(contentsOfFile: out + "/r/report.md", encoding: .utf8)
    #expect(report.contains("| scenario | strategy | Core Data's statements | tuned statements | Core Data / tuned |"))
    #expect(report.contains("| sectioned_cached | batched (20) |") && report.contains("| first_screen | full |"))
    #expect(
      report.contains(
        "| scenario | SQLite, tuned statements full | SQLite, tuned statements batched | SQLite, Core Data's statements full | SQLite, Core Data's statements batched |"
      ))
    #expect(report.contains("is what Core Data issues for the same list on the same file"))
  }

  /// Both plans list the oracle's rows; Core Data's in the oracle's order of sort keys, any
  /// order within a group of equal keys.
  @Test(arguments: ["banks", "wells"])
  func bothPlansListTheOraclesRowsTiesAsSets(dataset: String) throws {
    let banks = dataset == "banks"
    let file = "\(Self.datasets)/\(dataset)-\(Self.rows).sqlite"
    let (keys, sectionedKeys) =
      banks
      ? ("d.close_date DESC", "i.state ASC, d.close_date DESC")
      : ("w.spud_date DESC", "w.state ASC, w.spud_date DESC")
    let from = banks ? "failed_bank_info i LEFT JOIN failed_bank_details d ON d.info_id = i.id" : "wells w"
    let id = banks ? "i.id" : "w.id"
    let db = try DatabaseQueue(path: file)
    let lists: [(arguments: [String], order: String)] = [
      ([], keys),
      (
        banks
          ? ["--sort", "state asc, details.closeDate desc", "--section", "state"]
          : ["--sort", "state asc, spudDate desc", "--section", "state"], sectionedKeys
      ),
    ]
    for list in lists {
      let oracle = try db.read { db in
        try Row.fetchAll(
          db,
          sql:
            "SELECT \(id), \(list.order.replacingOccurrences(of: " DESC", with: "").replacingOccurrences(of: " ASC", with: "")) FROM \(from) ORDER BY \(list.order), \(id)"
        )
      }
      var keyOf: [Int64: [String]] = [:]
      for row in oracle { keyOf[row[0] as Int64] = Array(row.databaseValues.dropFirst().map(\.description)) }
      let expected = oracle.map { $0[0] as Int64 }
      for schema in ["fetchbench", "coredata"] {
        for plan in ["tuned", "coredata"] {
          for strategy in ["full", "batched"] {
            let out = try TestSupport.run(
              [
                "fetch", "--dataset", dataset, "--rows", Self.rows, "--datasets", Self.datasets, "--ids", "--schema",
                schema, "--plan",
                plan,
                "--strategy", strategy,
              ] + list.arguments)
            #expect(out.status == 0, "\(out.stderr)")
            let ids = out.stdout.split(separator: "\n").compactMap { Int64($0) }
            let label = "\(list.arguments) \(schema) \(plan) \(strategy)"
            if plan == "tuned" {
              #expect(ids == expected, "\(label)")
            } else {
              #expect(ids.sorted() == expected.sorted(), "\(label): the same rows")
              let got: [[String]] = ids.map { keyOf[$0] ?? [] }
              let want: [[String]] = expected.map { keyOf[$0] ?? [] }
              #expect(got == want, "\(label): in the order of the sort keys")
            }
          }
        }
      }
    }
  }
}

/// `--cache-name`: section counts kept across launches, as NSFetchedResultsController's
/// `cacheName`, used while the file is unchanged and asked again after a write.
@Suite(.serialized) struct SectionCacheFiles {
  @Test func aSecondLaunchReadsNoSectionsAndAWriteInvalidatesThem() throws {
    let dir = TestSupport.temporaryFolder("section-cache")
    defer { TestSupport.remove(dir) }
    #expect(
      try TestSupport.run(["generate", "--dataset", "banks", "--rows", "1500", "--datasets", dir, "--format", "sqlite"])
        .status == 0)
    let name = "test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    for plan in ["coredata", "tuned"] {
      let list = [
        "fetch", "--dataset", "banks", "--rows", "1500", "--datasets", dir, "--plan", plan, "--sort",
        "state asc, name asc", "--section",
        "state", "--sections", "--stats", "--sql-debug", "--cache-name", name + plan,
      ]
      func launch() throws -> (statements: Int, hit: Bool, sections: String) {
        let out = try TestSupport.run(list)
        #expect(out.status == 0, "\(out.stderr)")
        let statements = out.stderr.split(separator: "\n").filter { $0.hasPrefix("FetchBench: sql: ") }.count
        return (statements, out.stderr.contains("section_cache\thit"), out.stdout)
      }
      // Core Data: the ID query and the grouped count, then the ID query alone. Tuned: the
      // ID query with the section keys, then the ID query alone.
      let asked = plan == "coredata" ? 2 : 1
      let first = try launch()
      #expect(first.statements == asked && !first.hit, "\(plan)")
      let second = try launch()
      #expect(second.statements == 1 && second.hit && second.sections == first.sections, "\(plan)")
      try DatabaseQueue(path: dir + "/banks-1500.sqlite").write { db in
        try db.execute(
          sql: "UPDATE failed_bank_info SET state = ? WHERE id = 7", arguments: ["Z" + plan.prefix(1).uppercased()])
      }
      let written = try launch()
      #expect(written.statements == asked && !written.hit, "\(plan): the write invalidates the cache")
      #expect(written.sections.contains("Z\(plan.prefix(1).uppercased())\t1"), "\(written.sections)")
      let again = try launch()
      #expect(again.hit && again.sections == written.sections, "\(plan)")
    }
  }
}
