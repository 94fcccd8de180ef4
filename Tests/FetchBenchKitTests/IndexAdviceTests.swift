import Catalog
import DatasetStores
import Datasets
import FetchBenchKit
import FetchedResults
import Foundation
import GRDB
import PostgresStore
import Reports
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// The index advice: which indexes a request proposes, how they are spelled, and which one a
/// results CSV advises.
@Suite struct IndexAdviceTests {
  static func candidates(_ kind: DatasetKind, sectioned: Bool) throws -> [String] {
    let model = DatasetModels.model(for: kind)
    let request = sectioned ? DatasetModels.sectionedRequest(for: kind) : DatasetModels.defaultRequest(for: kind)
    return IndexCandidate.all(for: try request.resolve(in: model)).map { "\($0.index) \($0.kind)" }
  }

  @Test func candidatesFollowTheRequest() throws {
    // A to-one sort key: the key alone, and the join column with it; the order spans two
    // tables, so no index holds it whole.
    #expect(
      try Self.candidates(.banks, sectioned: false) == [
        "failed_bank_details(close_date) sortKey", "failed_bank_details(info_id, close_date) foreignKeyAndSortKey",
      ])
    // One table: the key alone, and the list's whole order with the primary key last.
    #expect(
      try Self.candidates(.wells, sectioned: false) == [
        "wells(spud_date) sortKey", "wells(spud_date DESC, id) sortOrder",
      ])
    // Sections by state: the sort key after the section key; the section key with the sort
    // keys of its own table: for banks, whose date lives in the details, the section key alone, named so.
    #expect(
      try Self.candidates(.banks, sectioned: true) == [
        "failed_bank_details(close_date) sortKey", "failed_bank_details(info_id, close_date) foreignKeyAndSortKey",
        "failed_bank_info(state) sectionKey",
      ])
    #expect(
      try Self.candidates(.wells, sectioned: true) == [
        "wells(spud_date) sortKey", "wells(state, spud_date DESC, id) sortOrder",
        "wells(state, spud_date) sectionAndSortKey",
      ])
  }

  /// A sort by `localizedStandardCompare:` orders through a collation: no binary index holds
  /// it, so only the keys before it propose candidates, and the advice names the index that
  /// would (one built with the same collation), or that a Core Data store has none.
  @Test func aCollatedSortProposesNoBinaryIndexAndSaysWhichWould() throws {
    let model = DatasetModels.model(for: .wells)
    func candidates(_ sort: String, section: String? = nil) throws -> [String] {
      let request = try ListSpec(parsing: .init(sort: sort, section: section)).apply(
        to: DatasetModels.defaultRequest(for: .wells), of: .wells)
      return IndexCandidate.all(for: try request.resolve(in: model)).map { "\($0.index) \($0.kind)" }
    }
    #expect(try candidates("operator asc localizedStandardCompare:") == [])
    #expect(try candidates("state asc, operator asc localizedStandardCompare:") == ["wells(state) sortKey"])
    #expect(try candidates("operator asc, state asc localizedCompare:") == ["wells(operator) sortKey"])
    #expect(try candidates("state asc caseInsensitiveCompare:, operator asc", section: "state") == [])
    let note = try #require(
      IndexAdvice.collatedSortNote(
        .wells, request: try ListSpec(parsing: .init(sort: "operator asc localizedStandardCompare:"))))
    #expect(note.contains("The sort by operator uses localizedStandardCompare:, which orders through a collation"))
    #expect(note.contains("`CREATE INDEX … ON wells(operator COLLATE fetchbench_localizedStandardCompare)`"))
    #expect(IndexAdvice.collatedSortNote(.wells, request: try ListSpec(parsing: .init(sort: "operator asc"))) == nil)
    let request = try ListSpec(parsing: .init(sort: "operator asc localizedCompare:")).apply(
      to: DatasetModels.defaultRequest(for: .wells), of: .wells)
    #expect(
      IndexCandidate.collatedSortNote(for: try request.resolve(in: model), coreData: true)?.contains(
        "Core Data creates a fetch index's columns COLLATE BINARY, so no index of a model gives this order") == true)
  }

  @Test func equalitiesInThePredicateLeadTheirIndex() throws {
    let model = DatasetModels.model(for: .wells)
    let request = try ListSpec(parsing: .init(sort: "totalDepth desc", predicate: "state = 'TX' AND totalDepth > 100"))
      .apply(to: DatasetModels.defaultRequest(for: .wells), of: .wells)
    #expect(
      IndexCandidate.all(for: try request.resolve(in: model)).map { "\($0.index) \($0.kind)" } == [
        "wells(total_depth) sortKey", "wells(total_depth DESC, id) sortOrder",
        "wells(state, total_depth DESC, id) predicateAndOrder",
      ])
  }

  @Test func tagsNameOneTablesColumns() throws {
    let spec = try #require(IndexSpec(tag: "spud_date:desc+id", in: .wells))
    #expect(spec.tag == "spud_date:desc+id" && spec.table == "wells")
    #expect(spec.createStatement == "CREATE INDEX idx_wells_spud_date_desc_id ON wells(spud_date DESC, id)")
    #expect(IndexSpec(tag: "info_id+close_date", in: .banks)?.table == "failed_bank_details")
    // Columns of two tables, an unknown column, a direction other than desc, an empty part.
    for bad in ["state+close_date", "nope", "close_date:asc", "info_id+", ""] {
      #expect(IndexSpec(tag: bad, in: .banks) == nil, "\(bad)")
    }
  }

  /// Advice rows for banks at 244,292 on SQLite: performFetch without an index, with the sort
  /// key alone, and with the join column and the sort key.
  static func adviceRows(ratio: Double) -> [ResultRow] {
    func row(_ index: String, _ metric: Metric, _ value: Double) -> ResultRow {
      figure(
        rows: 244_292, mode: .indexAdvice, index: index, scenario: .scenario(.performFetch), metric: metric,
        value: value,
        min: value * 0.9, max: value * 1.1)
    }
    return [
      row("none", .time, 400),
      row("close_date", .time, 380), row("close_date", .overUnindexed, 0.95),
      row("info_id+close_date", .time, 400 * ratio), row("info_id+close_date", .overUnindexed, ratio),
    ]
  }

  @Test func thePickIsTheBestRatioWhenItSavesATenth() throws {
    let pick = try #require(IndexPick.all(Self.adviceRows(ratio: 0.35)).first)
    #expect(pick.tag == .on("info_id+close_date") && pick.advised && pick.unindexed.value == 400)
    #expect(
      pick.index?.createStatement
        == "CREATE INDEX idx_failed_bank_details_info_id_close_date ON failed_bank_details(info_id, close_date)")
    let close = try #require(IndexPick.all(Self.adviceRows(ratio: 0.92)).first)
    #expect(close.tag == .on("info_id+close_date") && !close.advised, "0.92 saves less than a tenth")
    // Two ratios equal as recorded go to the faster index; a thousandth survives the CSV.
    var tied = Self.adviceRows(ratio: 0.001)  // info_id+close_date: 0.4 ms
    (tied[1].value, tied[2].value) = (0.3, 0.001)  // close_date: 0.3 ms, the same ratio
    #expect(IndexPick.all(tied).first?.tag == .on("close_date"))
    tied[1].value = 0.5
    #expect(IndexPick.all(tied).first?.tag == .on("info_id+close_date"))
    let decoded = try ResultsCSV.decode(ResultsCSV.encode(Self.adviceRows(ratio: 0.00123)))
    #expect(decoded.last?.value == 0.00123 && decoded.last?.min == 0.001107, "\(decoded.map(\.value))")
  }

  @Test func theRecommendationTakesTheAdvisedIndex() throws {
    var figures = RecommendationTests.figures
    figures.remove(at: 5)  // no indexed variant of the cases: the advice decides
    let rows = try ResultsCSV.decode(RecommendationTests.csv(figures))
    let advised = try #require(Recommendation.all(rows + Self.adviceRows(ratio: 0.35)).first { $0.store == .sqlite })
    #expect(advised.mode == .batched && advised.index == .on("info_id+close_date"), "\(advised)")
    #expect(
      advised.reasons.contains {
        $0.contains(
          "Add the index (CREATE INDEX idx_failed_bank_details_info_id_close_date ON failed_bank_details(info_id, close_date)):"
        )
          && $0.contains("its ID query takes 140.0 ms instead of 400.0 ms (0.35× per pair")
      }, "\(advised.reasons)")
    let notAdvised = try #require(Recommendation.all(rows + Self.adviceRows(ratio: 0.95)).first { $0.store == .sqlite })
    #expect(
      notAdvised.index == .none && notAdvised.reasons.contains { $0.hasPrefix("No index: the best candidate") },
      "\(notAdvised.reasons)")
    // The memory store has no advice.
    #expect(
      Recommendation.all(rows + Self.adviceRows(ratio: 0.35)).first { $0.store == .memory }?.index == IndexTag.none)
  }
}

/// The advice end to end: a file per candidate, every operation timed against none in one
/// process, the plans, and the report's section.
extension RunCommand {
  @Test func theIndexAdviceMeasuresEveryCandidateAgainstNone() throws {
    let dir = TestSupport.temporaryFolder("advice")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(300, in: dir)
    let out = try TestSupport.run([
      "run", "--dataset", "wells", "--rows", "300", "--store", "sqlite", "--mode", "batched", "--scenario",
      "first_screen",
      "--repetitions", "2", "--datasets", datasets, "--out", dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let all = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    let rows = all.filter { $0.mode == .indexAdvice }
    func has(_ index: String, _ scenario: String, _ metric: String) -> ResultRow? {
      rows.first { $0.index.csv == index && $0.scenario.csv == scenario && $0.metric.name == metric }
    }
    let list = ["perform_fetch", "batch_fault", "first_page", "seek_middle", "first_screen"]
    // The list's candidates answer its operations; the sectioned form's, the sectioned fetch.
    for (index, scenarios) in [
      ("none", list + ["sectioned"]), ("spud_date", list + ["sectioned"]), ("spud_date:desc+id", list),
      ("state+spud_date:desc+id", ["sectioned"]), ("state+spud_date", ["sectioned"]),
    ] {
      #expect(
        Set(rows.filter { $0.index.csv == index && $0.metric.name.hasPrefix("time_") }.map(\.scenario.csv))
          == Set(scenarios), "\(index)")
      for s in scenarios {
        let time = has(index, s, ["perform_fetch", "sectioned", "first_screen"].contains(s) ? "time_ms" : "time_us")
        #expect(time?.repetitions == 2 && (time?.value ?? 0) > 0, "\(index) \(s)")
        let ratio = has(index, s, "over_unindexed")
        #expect(index == "none" ? ratio == nil : (ratio?.repetitions == 2 && (ratio?.value ?? 0) > 0), "\(index) \(s)")
      }
      #expect(
        FileManager.default.fileExists(
          atPath: DatasetPaths.sqlite(in: datasets, .wells, rows: 300, seed: 1, indexes: index == "none" ? [] : [index])
        ))
    }
    #expect(has("spud_date:desc+id", "perform_fetch", "engine_over_scan_limit")?.repetitions == 2)
    // SQLite sorts the unindexed list in a temporary B-tree; the index that is the list's
    // order gives it without one.
    let plain = try #require(has("none", "perform_fetch", "query_plan")).detail
    let ordered = try #require(has("spud_date:desc+id", "perform_fetch", "query_plan")).detail
    #expect(plain.contains("USE TEMP B-TREE FOR ORDER BY"), "\(plain)")
    #expect(ordered.contains("idx_wells_spud_date_desc_id") && !ordered.contains("TEMP B-TREE"), "\(ordered)")
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("### Index advice, wells at 300 rows (SQLite, tuned statements)"))
    #expect(report.contains("| `wells(spud_date DESC, id)` | the list's order |"), "\(report)")
    #expect(report.contains("USE TEMP B-TREE FOR ORDER BY"))
    // The advice's rows stay out of the cases' tables: no table for an indexed store.
    #expect(!report.contains("index on spud_date"))
  }
}

extension RunCommand {
  /// On PostgreSQL every candidate is loaded and each variant drops the others in a
  /// transaction rolled back after it: the figures come for every candidate, and afterwards
  /// every index is still there.
  @Test func theIndexAdviceOnPostgresLeavesEveryIndexInPlace() throws {
    try TestSupport.requirePostgresServer()
    let dir = TestSupport.temporaryFolder("advice-pg")
    defer { TestSupport.remove(dir) }
    var url = try PostgresLocation.url(nil)
    let admin = try PostgresAdmin(url: url)
    let database = "fbt_\(getpid())_advice"
    try admin.execute("DROP DATABASE IF EXISTS \(database)")
    try admin.execute("CREATE DATABASE \(database)")
    defer { try? admin.execute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)") }
    url.database = database
    let datasets = try Self.wells(300, in: dir)
    let out = try TestSupport.run([
      "run", "--dataset", "wells", "--rows", "300", "--store", "postgres", "--mode", "batched", "--scenario",
      "first_screen",
      "--repetitions", "2", "--datasets", datasets, "--out", dir + "/out", "--postgres-url",
      "postgres://\(url.user)\(url.password.map { ":" + $0 } ?? "")@\(url.host):\(url.port)/\(database)",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let all = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    // The dataset was loaded once, before the cases, and its COPY timed.
    #expect(all.filter { $0.mode == .copy && $0.metric == .load }.map(\.rows) == [300])
    let rows = all.filter { $0.mode == .indexAdvice }
    #expect(
      Set(rows.map(\.index.csv)) == [
        "none", "spud_date", "spud_date:desc+id", "state+spud_date:desc+id", "state+spud_date",
      ])
    #expect(rows.filter { $0.metric == .overUnindexed }.allSatisfy { $0.repetitions == 2 && $0.value > 0 })
    #expect(rows.filter { $0.metric == .overUnindexed && $0.scenario == .scenario(.performFetch) }.count == 2)
    let plan = try #require(
      rows.first { $0.index == .none && $0.scenario == .scenario(.performFetch) && $0.metric == .queryPlan }
    ).detail
    #expect(plan.contains("Seq Scan on wells t0"), "\(plan)")
    let dbAdmin = try PostgresAdmin(url: url)
    let indexes = Set(try dbAdmin.column("SELECT indexname FROM pg_indexes WHERE tablename = 'wells'"))
    #expect(
      indexes.isSuperset(of: [
        "idx_wells_spud_date", "idx_wells_spud_date_desc_id", "idx_wells_state_spud_date_desc_id",
        "idx_wells_state_spud_date",
      ]), "\(indexes)")
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(
      report.contains("### Index advice, wells at 300 rows (PostgreSQL)")
        && report.contains("PostgreSQL's plans (`EXPLAIN`)"))
  }
}

extension RunCommand {
  /// `run --recommend` with a list of the user's own: the cases run that list (exact counts of
  /// a filtered list), the advice proposes the predicate's equality before the order, and
  /// standard output holds one recommendation per store and nothing else.
  @Test func recommendMeasuresAListOfYourOwn() throws {
    let dir = TestSupport.temporaryFolder("recommend")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(400, in: dir)
    let out = try TestSupport.run([
      "run", "--dataset", "wells", "--rows", "400", "--store", "memory,sqlite", "--where", "state = 'TX'", "--sort",
      "totalDepth desc",
      "--recommend", "--repetitions", "1", "--datasets", datasets, "--out", dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let lines = out.stdout.split(separator: "\n")
    #expect(lines.count == 2, "\(out.stdout)")
    // The table's rows, and the list's: the Texan wells a full fetch read.
    let texan = try DatabaseQueue(path: datasets + "/wells-400.sqlite").read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM wells WHERE state = 'TX'")!
    }
    #expect(
      lines.contains { $0.hasPrefix("wells at 400 rows, a list of \(texan), in-memory store: ") }, "\(out.stdout)")
    #expect(
      lines.contains { $0.hasPrefix("wells at 400 rows, a list of \(texan), SQLite, tuned statements: ") },
      "\(out.stdout)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    // The scenarios the recommendation reads, on every strategy; no sectioned scenario, no floor.
    #expect(Set(rows.filter { $0.mode.fetchMode != nil }.map(\.scenario.csv)) == ["first_screen", "scroll_first_1000"])
    #expect(!rows.contains { $0.store == .raw(.sqlite) })
    // Exactly the Texan wells: a full fetch materializes each once.
    let texas = try Self.texanWells(datasets)
    let full = rows.first {
      $0.store == .engine(.sqlite) && $0.mode == .fetch(.full) && $0.scenario == .scenario(.firstScreen)
        && $0.metric == .rowsMaterialized
    }
    #expect(full?.value == Double(texas) && texas > 20, "\(texas)")
    let advice = Set(rows.filter { $0.mode == .indexAdvice }.map(\.index.csv))
    #expect(advice == ["none", "total_depth", "total_depth:desc+id", "state+total_depth:desc+id"], "\(advice)")
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("## wells, 400 rows, your list: `sort: totalDepth desc; where: state = 'TX'`"), "\(report)")
    // The advice table says why each candidate of that list is one: the report derives them
    // from the list its settings row records, not from the dataset's own.
    #expect(report.contains(" | predicate's equalities + the list's order |"), "\(report)")
    let candidateRows = report.split(separator: "\n").filter { $0.hasPrefix("| `wells(") }
    #expect(candidateRows.count >= 3, "\(report)")
    #expect(
      candidateRows.allSatisfy { $0.split(separator: "|")[1].trimmingCharacters(in: .whitespaces) != "—" },
      "\(candidateRows)")
    // A key path the dataset does not have is a bad argument.
    let bad = try TestSupport.run([
      "run", "--dataset", "wells", "--sort", "closeDate desc", "--recommend", "--datasets", datasets,
    ])
    #expect(bad.status == 64 && bad.stderr.contains("closeDate"), "\(bad.stderr)")
  }

  static func texanWells(_ datasets: String) throws -> Int {
    let count = try TestSupport.run([
      "fetch", "--dataset", "wells", "--rows", "400", "--datasets", datasets, "--where", "state = 'TX'", "--ids",
    ])
    return count.stdout.split(separator: "\n").count
  }
}

extension RunCommand {
  /// The `[c]`/`[d]` operators and MATCHES call functions FetchBench registers: the index
  /// advice's and the gate's own connections run the list's statements too, so they register
  /// them as the store does, and the gate's floor binds the list's arguments.
  @Test func aFoldedPredicateRunsOnTheAdvicesAndTheGatesConnections() throws {
    let dir = TestSupport.temporaryFolder("advice-fold")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(1000, in: dir)
    let predicate = "operator CONTAINS[cd] 'E' AND operator MATCHES[c] '.*e.*'"
    let out = try TestSupport.run([
      "run", "--dataset", "wells", "--rows", "1000", "--store", "sqlite", "--where", predicate, "--recommend",
      "--repetitions", "1", "--datasets", datasets, "--out", dir + "/out",
    ])
    #expect(out.status == 0 && !out.stderr.contains("FAILED"), "\(out.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    let plans = rows.filter { $0.mode == .indexAdvice && $0.metric == .queryPlan }
    #expect(!plans.isEmpty && plans.allSatisfy { $0.detail.contains("SCAN") || $0.detail.contains("SEARCH") })

    let matrix = """
      {"repetitions": 3, "lists": [
        {"name": "folded", "dataset": "wells", "rows": 1000, "where": "\(predicate)", "stores": ["sqlite"]}
      ]}
      """
    try Data(matrix.utf8).write(to: URL(fileURLWithPath: dir + "/lists.json"))
    let check = try TestSupport.run([
      "check", "--matrix", dir + "/lists.json", "--datasets", datasets, "--update", "--update-runs", "1",
    ])
    #expect(check.status == 0, "\(check.stdout)\n\(check.stderr)")
    #expect(check.stdout.contains("wrote \(dir)/lists.baseline.json"), "\(check.stdout)")
  }
}
