import Catalog
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import HarnessSupport
import Reports
import ResultModel
import TestSupport
import Testing
import Vocabulary

@Suite struct ResultFormats {
  @Test func csvRoundTripsQuotesCommasAndNewlines() throws {
    let rows = [
      row(.sqlite, .full, .firstScreen, .time, 12.5),
      row(.sqlite, .batched, .firstScreen, .failed, 0, error: "exit 1: \"bad\", very\nbad"),
    ]
    let text = ResultsCSV.encode(rows)
    #expect(
      text.hasPrefix("run_id,dataset,rows,store,mode,batch_size,index,scenario,metric,value,unit,min,max,repetitions"))
    #expect(text.contains("\"exit 1: \"\"bad\"\", very\nbad\""))
    #expect(try ResultsCSV.decode(text) == rows)
    #expect(throws: ResultsFileError.badHeader(expected: ResultRow.columns.joined(separator: ","))) {
      try ResultsCSV.decode("a,b\n1,2\n")
    }
  }

  /// Text a spreadsheet would run as a formula is guarded with a leading `'` in the file and
  /// read back as it was; numbers keep their sign.
  @Test func csvNeutralisesFormulasAndRoundTrips() throws {
    let texts = ["=1+1", "+1", "-cmd", "@SUM(A1)", "\tx", "'=quoted", "''+twice", "'plain", "ok"]
    let rows = texts.map { row(.sqlite, .batched, .firstScreen, .failed, -2.5, error: $0) }
    let text = ResultsCSV.encode(rows)
    let cells = text.split(separator: "\n").dropFirst().map {
      String($0.split(separator: ",", omittingEmptySubsequences: false)[15])
    }
    #expect(
      cells == ["'=1+1", "'+1", "'-cmd", "'@SUM(A1)", "'\tx", "''=quoted", "'''+twice", "'plain", "ok"], "\(cells)")
    #expect(text.contains(",-2.5") && !text.contains(",'-2.5"), "a number's sign is not guarded")
    #expect(try ResultsCSV.decode(text) == rows)
  }

  /// What a report prints from data cannot break its tables or inject HTML.
  @Test func reportsEscapeWhatTheyPrintFromData() {
    var failed = row(
      .sqlite, .batched, .firstScreen, .failed, 0, error: "boom | <script>alert(1)</script>\nsecond `line`")
    var ok = row(.sqlite, .full, .firstScreen, .time, 100)
    (ok.runID, failed.runID) = ("r`1", "r`1")
    let md = Report(rows: [ok, failed]).markdown()
    #expect(md.contains("boom \\| &lt;script&gt;alert(1)&lt;/script&gt;<br>second \\`line\\`"), "\(md)")
    #expect(!md.contains("<script>"))
    #expect(md.contains("Run ``r`1`` at commit `abc`"), "\(md)")
  }

  @Test func aResultRowReadsBackFromJSONWithItsMetricNamedAsInTheCSV() throws {
    let rows = [row(.memory, .batched, .scrollThrough, .time, 710.25)]
    let data = try JSONEncoder().encode(rows)
    #expect(try JSONDecoder().decode([ResultRow].self, from: data) == rows)
    #expect(String(decoding: data, as: UTF8.self).contains("\"metric\":\"time_ms\""))
  }

  /// The rounding step at the writer gives what results.csv reads back, with no CSV in between:
  /// values of every magnitude and sign, and text a spreadsheet would take for a formula.
  @Test func aRowRoundedIsTheRowResultsCSVReadsBack() throws {
    var rng = SystemRandomNumberGenerator()
    var rows: [ResultRow] = []
    for i in 0..<2_000 {
      let magnitude = pow(10, Double.random(in: -7...12, using: &rng))
      let value = (i % 3 == 0 ? -1 : 1) * magnitude * Double.random(in: 1..<10, using: &rng)
      // A time is never below zero (a reader refuses one); a heap's growth may be.
      var r = row(
        .sqlite, .batched, .firstScreen, value < 0 ? .heapGrowth : .time, i % 7 == 0 ? value.rounded() : value)
      (r.min, r.max) = (value / 3, value * 3)
      r.error = ["", "=1+1", "'-x", "a,b\"c", "line\nbreak"][i % 5]
      r.detail = i % 2 == 0 ? "" : "+plan \(i)"
      rows.append(r)
    }
    #expect(try ResultsCSV.decode(ResultsCSV.encode(rows)) == rows.map(\.rounded))
  }

  /// `Metric.all`, which reads a results file's metrics back with their direction, lists every
  /// metric Metric.swift declares: a new `static let` left out of it fails here.
  @Test func everyDeclaredMetricIsReadBackWithItsDirection() throws {
    let source = try String(
      contentsOf: TestSupport.packageRoot.appendingPathComponent("Sources/ResultModel/Metric.swift"), encoding: .utf8)
    let declared = source.split(separator: "\n").compactMap { line -> String? in
      guard let start = line.range(of: "static let "), line.contains("= Metric(\"") else { return nil }
      return line[start.upperBound...].split(separator: " ").first.map(String.init)
    }
    let listed = try #require(
      source.components(separatedBy: "package static let all: [Metric] = [").last?.components(separatedBy: "]").first)
    let names = Set(listed.split(whereSeparator: { ",\n ".contains($0) }).map { $0.trimmingCharacters(in: ["."]) })
    #expect(declared.count == Metric.all.count && declared.count > 80)
    #expect(declared.filter { !names.contains($0) } == [])
  }

  @Test func aSummaryGivesTheMedianMinMaxAndCountOfItsSamples() {
    let s = Summary([3, 1, 2])
    #expect((s.median, s.min, s.max, s.count) == (2, 1, 3, 3))
    #expect(Summary([4, 1, 3, 2]).median == 2.5)
    #expect(Summary([7]).median == 7)
  }

  @Test func reportFiguresComeFromTheRows() {
    let rows = [
      row(.sqlite, .full, .firstScreen, .time, 100),
      row(.sqlite, .batched, .firstScreen, .time, 10),
      row(.sqlite, .full, .firstScreen, .heapLive, 1_000_000),
      row(.sqlite, .batched, .firstScreen, .heapLive, 10_000),
      row(.sqlite, .full, .firstScreen, .queries, 1),
      row(.sqlite, .batched, .firstScreen, .queries, 2),
      row(.sqlite, .batched, .firstScreen, .failed, 0, error: "boom"),
    ]
    let md = Report(rows: rows).markdown()
    #expect(md.contains("the batched first screen is **10.0× faster** than a full fetch and holds 1/100 of the memory"))
    #expect(
      md.contains("| first_screen | 100.0 [99.0–101.0] | 10.0 [9.0–11.0] | 0.10× | 976.6 KiB | 9.8 KiB | 1/100 |"))
    #expect(md.contains("| 1 / 2 |"))
    #expect(md.contains("## Failed cases"))
    #expect(md.contains("boom"))
    // Change a figure and the sentence follows.
    var slower = rows
    slower[1].value = 400
    #expect(Report(rows: slower).markdown().contains("**4.0× slower**"))
  }

  @Test func casesCoverTheMatrixAndTheFloor() {
    var o = RunOptions()
    o.batchSizes = [20, 50]
    let cases = o.cases()
    // 2 datasets × (memory + sqlite) × (10 scenarios × (full + 2 batch sizes) + offset and
    // keyset × 6 paged scenarios × 2 page sizes) + 2 datasets × the cached sections on SQLite
    // × (full + 2 batch sizes) + 2 datasets × 2 floors + 2 datasets × the index advice on
    // SQLite; and banks alone (its cell reads details) × (memory + sqlite) × the 2 cells
    // scenarios × (full + 2 batch sizes).
    #expect(cases.count == 2 * 2 * (10 * 3 + 2 * 6 * 2) + 2 * 3 + 2 * 2 + 2 + 2 * 2 * 3)
    #expect(
      cases.filter { $0.scenario == .scenario(.firstScreenCells) || $0.scenario == .scenario(.scrollFirst1000Cells) }
        .allSatisfy { $0.dataset == .banks && ($0.mode == .fetch(.full) || $0.mode == .fetch(.batched)) })
    #expect(cases.filter { $0.scenario == .scenario(.sectionedCached) }.allSatisfy { $0.store == .sqlite })
    #expect(
      cases.filter { $0.work == .indexAdvice }.map { "\($0.dataset) \($0.store)" } == ["banks sqlite", "wells sqlite"])
    #expect(cases.allSatisfy { $0.index == nil }, "the advice opens its candidates' files itself")
    let paged = cases.filter { $0.mode == .fetch(.offset) || $0.mode == .fetch(.keyset) }
    #expect(
      !paged.contains {
        $0.scenario == .scenario(.scrollThrough) || $0.scenario == .scenario(.randomAccess)
          || $0.scenario.csv.hasPrefix("first_screen_mapped")
      })
    #expect(cases.filter { $0.resultStore == .raw(.sqlite) }.allSatisfy { $0.scenario == .floor })
    o.makeQuick()
    #expect(o.cases().allSatisfy { $0.dataset == .banks && $0.index == nil })
    // Full and 2 batch sizes × 4 scenarios; offset and keyset × 2 page sizes × the 3 of them
    // read page by page; per store, and the floors.
    #expect(o.cases().count == 2 * (4 * 3 + 2 * 2 * 3) + 2)
  }

  /// `run`'s default sweep measures batched faulting at 10, 50, 100 and 200 too, in the two
  /// scenarios the answer's batch size is chosen from, and nowhere else; `--quick` does not.
  @Test func theSweepAddsBatchedSizesWhereTheAnswerReadsThem() {
    var o = RunOptions()
    o.datasets = [.wells]
    let plain = o.cases()
    o.batchSweep = RunOptions.defaultBatchSweep
    let swept = o.cases()
    let added = swept.filter { c in
      !plain.contains {
        $0.scenario == c.scenario && $0.mode == c.mode && $0.batchSize == c.batchSize && $0.store == c.store
      }
    }
    // 2 stores × 2 scenarios × 4 more sizes.
    #expect(added.count == 2 * 2 * 4 && swept.count == plain.count + added.count)
    #expect(added.allSatisfy { $0.mode == .fetch(.batched) && [10, 50, 100, 200].contains($0.batchSize) })
    #expect(
      Set(added.map(\.scenario.csv)) == ["first_screen", "scroll_first_1000"])
    o.makeQuick()
    #expect(o.batchSweep.isEmpty && o.cases().allSatisfy { $0.batchSize == 0 || $0.batchSize == 20 })
  }
}

/// The in-memory cases carry their limit, measured alternately in the same process, one pair
/// per repetition; other stores' cases do not.
@Suite struct LimitFigures {
  @Test func memoryCasesReportTheirLimitAndThePerPairRatio() throws {
    let dir = TestSupport.temporaryFolder("limit")
    defer { TestSupport.remove(dir) }
    let run = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "500", "--store", "memory,sqlite", "--scenario", "perform_fetch,sectioned",
      "--repetitions", "3", "--no-index", "--datasets", dir + "/datasets", "--out", dir + "/out",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    for mode in ["full", "batched"] {
      for scenario in ["perform_fetch", "sectioned"] {
        let limit = rows.first {
          $0.store == .engine(.memory) && $0.mode.csv == mode && $0.scenario.csv == scenario && $0.metric == .limit
        }
        let ratio = rows.first {
          $0.store == .engine(.memory) && $0.mode.csv == mode && $0.scenario.csv == scenario
            && $0.metric == .engineOverLimit
        }
        #expect(limit?.repetitions == 3 && ratio?.repetitions == 3, "\(mode) \(scenario)")
        #expect((limit?.value ?? 0) > 0 && (ratio?.value ?? 0) > 0 && ratio?.unit == .ratio)
      }
    }
    #expect(!rows.contains { $0.store != .engine(.memory) && ($0.metric == .limit || $0.metric == .engineOverLimit) })
    // Paged cases are held to their pages' selection, a limit of its own name.
    for mode in ["offset", "keyset"] {
      for scenario in ["perform_fetch", "sectioned"] {
        let here = rows.filter { $0.store == .engine(.memory) && $0.mode.csv == mode && $0.scenario.csv == scenario }
        #expect(here.first { $0.metric == .engineOverPageLimit }?.repetitions == 3, "\(mode) \(scenario)")
        #expect(!here.contains { $0.metric == .limit }, "\(mode) \(scenario)")
      }
    }
    // SQLite: the floor for both modes of performFetch, the scan limit for the batched one.
    for mode in ["full", "batched"] {
      let floor = rows.first {
        $0.store == .engine(.sqlite) && $0.mode.csv == mode && $0.scenario == .scenario(.performFetch)
          && $0.metric == .engineOverFloor
      }
      #expect(floor?.repetitions == 3 && (floor?.value ?? 0) > 0, "\(mode)")
    }
    #expect(rows.filter { $0.metric == .engineOverScanLimit }.map(\.mode.csv) == ["batched"])
    #expect(
      !rows.contains { $0.scenario == .scenario(.sectioned) && $0.metric == .engineOverFloor }, "no floor for sectioned"
    )
    // What sections add, on every store and mode, for the sectioned scenario only.
    let unsectioned = rows.filter { $0.metric == .sectionedOverUnsectioned }
    #expect(
      Set(unsectioned.map { "\($0.store) \($0.mode) \($0.scenario)" }) == [
        "memory full sectioned", "memory batched sectioned", "sqlite full sectioned", "sqlite batched sectioned",
        "memory offset sectioned", "memory keyset sectioned", "sqlite offset sectioned", "sqlite keyset sectioned",
      ])
    #expect(unsectioned.allSatisfy { $0.repetitions == 3 && $0.value > 0 })
    #expect(rows.filter { $0.metric == .unsectioned }.count == 8)
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("### Against the limits, in the same process"))
  }
}

/// A run over several row counts measures each larger size's performFetch growth from the
/// smallest in the larger case's own process, alternately, and its limits' growth the same way.
@Suite struct SameProcessGrowth {
  @Test func theLargerSizesCarryTheirGrowthFromTheSmallest() {
    var o = RunOptions()
    (o.rows, o.stores, o.withIndex) = ([100_000, 1_000, 10_000], [.memory, .sqlite, .postgres], false)
    #expect(o.cases().allSatisfy { $0.growthFrom == nil }, "only when asked: it changes the cases' peak RSS")
    o.growthInProcess = true
    for spec in o.cases() {
      let expected =
        spec.rows > 1_000 && spec.store != .postgres
        && (spec.work == .scenario(.performFetch, .full) || spec.work == .scenario(.performFetch, .batched))
      #expect(spec.growthFrom == (expected ? 1_000 : nil), "\(spec.label)")
    }
    o.rows = [10_000]
    #expect(o.cases().allSatisfy { $0.growthFrom == nil }, "one size: no growth")
  }

  /// --growth where it would measure nothing more is a bad argument, refused before any work.
  @Test func growthWithNothingToMeasureIsRefused() throws {
    for (arguments, message) in [
      (["--rows", "300"], "--growth needs two or more --rows"),
      (["--rows", "300,300"], "--rows: 300 is given twice"),
      (
        ["--rows", "300,3000", "--scenario", "first_screen"],
        "--growth measures performFetch, full or batched, on the memory store or SQLite"
      ),
      (["--rows", "300,3000", "--mode", "offset"], "--growth measures performFetch"),
      (["--rows", "300,3000", "--store", "postgres"], "--growth measures performFetch"),
    ] {
      let out = try TestSupport.run(["run", "--growth", "--datasets", "/nonexistent/datasets"] + arguments)
      #expect(out.status == 64 && out.stderr.contains(message), "\(arguments): \(out.stderr)")
    }
  }

  @Test func growthAndTheLimitsGrowthAreRatiosPerPair() throws {
    let dir = TestSupport.temporaryFolder("growth")
    defer { TestSupport.remove(dir) }
    let run = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "300,3000", "--store", "memory,sqlite", "--scenario",
      "perform_fetch,sectioned",
      "--mode", "full,batched", "--repetitions", "3", "--no-index", "--growth", "--datasets", dir + "/datasets",
      "--out", dir + "/out",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    func cases(_ metric: Metric) -> Set<String> {
      Set(rows.filter { $0.metric == metric }.map { "\($0.rows) \($0.store) \($0.mode) \($0.scenario)" })
    }
    let largerPerformFetch: Set = [
      "3000 memory full perform_fetch", "3000 memory batched perform_fetch", "3000 sqlite full perform_fetch",
      "3000 sqlite batched perform_fetch",
    ]
    #expect(cases(.growth) == largerPerformFetch)
    #expect(cases(.smallerSize) == largerPerformFetch)
    #expect(cases(.limitGrowth) == ["3000 memory full perform_fetch", "3000 memory batched perform_fetch"])
    #expect(cases(.floorGrowth) == ["3000 sqlite full perform_fetch", "3000 sqlite batched perform_fetch"])
    #expect(cases(.scanLimitGrowth) == ["3000 sqlite batched perform_fetch"])
    let growths = rows.filter {
      [Metric.growth, .smallerSize, .limitGrowth, .floorGrowth, .scanLimitGrowth].contains($0.metric)
    }
    #expect(growths.count == 4 + 4 + 2 + 2 + 1)
    #expect(growths.allSatisfy { $0.repetitions == 3 && $0.value > 0 && $0.detail == "from 300 rows" })
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("| × growth in one process | "))
    #expect(report.contains("| × its limit's growth | ") && report.contains("| × its floor's growth | "))
    #expect(report.contains("| × its scan limit's growth | — | "))
    // Every case counts its page faults, and the scaling table gives them at both sizes.
    #expect(cases(.pageFaults) == cases(.time) && cases(.time).count == 16)
    #expect(report.contains("| page faults a call | "))
    // Every chart the report links is drawn: with no first screen measured, no scaling chart.
    let links = report.components(separatedBy: "](charts/").dropFirst().map { String($0.prefix { $0 != ")" }) }
    #expect(!links.isEmpty && !links.contains { $0.contains("scaling") })
    for link in links { #expect(FileManager.default.fileExists(atPath: dir + "/out/charts/" + link), "\(link)") }
    // The memory projection leaves out the peaks taken with the smaller store beside the case:
    // the larger size's performFetch cases fit through their one remaining size, and the
    // others keep both (listed at 3,000 rows, or not at all when their peak did not grow from
    // 300 rows, which a few MiB of noise in so small a process decides).
    let fit = report.components(separatedBy: "## Where each case stops fitting").last ?? ""
    #expect(fit.contains("| banks memory batched(20) perform_fetch | 300 |"), "\(fit)")
    #expect(!fit.contains("| banks memory batched(20) sectioned | 300 |"), "\(fit)")
  }
}

/// The child-process protocol end to end: a case that fails is reported with its error, the
/// run goes on, the exit code is non-zero, and the other cases' counters are exact.
@Suite struct RunCommand {
  /// `dir/datasets` with a generated wells dataset of `rows` rows (SQLite only).
  static func wells(_ rows: Int, in dir: String) throws -> String {
    let datasets = dir + "/datasets"
    let gen = try TestSupport.run([
      "generate", "--dataset", "wells", "--rows", String(rows), "--datasets", datasets, "--format", "sqlite",
    ])
    #expect(gen.status == 0, "\(gen.stderr)")
    return datasets
  }

  @Test func aFailingCaseIsReportedAndTheRunGoesOn() throws {
    let dir = TestSupport.temporaryFolder("run")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(300, in: dir)
    // The index advice fails (an injected error: a corrupt file no longer reaches a case, it
    // is refused before any, as the end of this test shows); the other cases must not.
    let run = [
      "run", "--dataset", "wells", "--rows", "300", "--store", "sqlite", "--mode", "full,batched", "--scenario",
      "first_screen,scroll_through",
      "--repetitions", "1", "--datasets", datasets, "--out", dir + "/out",
    ]
    let out = try TestSupport.run(run, environment: ["FETCHBENCH_INJECT_FAILURE": "index_advice"])
    #expect(out.status != 0)
    #expect(out.stderr.contains("FAILED"), "\(out.stderr)")
    #expect(
      out.stderr.contains("[4/6]") && out.stderr.contains("[6/6]"), "the run goes on after a failure: \(out.stderr)")
    let csv = try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8)
    let rows = try ResultsCSV.decode(csv)
    let failed = rows.filter { $0.status == .failed }
    #expect(failed.count == 1, "the index advice")
    #expect(failed.allSatisfy { $0.mode == .indexAdvice && $0.error.contains("injected failure") })
    func value(_ mode: String, _ scenario: String, _ metric: String) -> Double? {
      rows.first {
        $0.index == .none && $0.mode.csv == mode && $0.scenario.csv == scenario && $0.metric.name == metric
      }?.value
    }
    #expect(value("batched", "first_screen", "queries") == 2)
    #expect(value("batched", "first_screen", "rows_materialized") == 20)
    #expect(value("full", "first_screen", "rows_materialized") == 300)
    #expect(value("batched", "scroll_through", "queries") == Double(1 + 300 / 20), "one ID query and 15 batch faults")
    #expect((value("batched", "first_screen", "heap_live_bytes") ?? 0) > 0)
    #expect((value("full", "scroll_through", "time_ms") ?? 0) > 0)
    #expect(rows.contains { $0.metric == .floorIDs && $0.isOK })
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("## Failed cases"))
    #expect(FileManager.default.fileExists(atPath: dir + "/out/charts/wells-300-sqlite-time-b20.svg"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out.partial"))

    // `report DIR` renders the same page from the CSV.
    try FileManager.default.removeItem(atPath: dir + "/out/report.md")
    let again = try TestSupport.run(["report", dir + "/out"])
    #expect(again.status == 0, "\(again.stderr)")
    let rerendered = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(
      rerendered == report,
      "first difference: \(zip(rerendered.split(separator: "\n"), report.split(separator: "\n")).first { $0 != $1 }.map { "\($0) ≠ \($1)" } ?? "length")"
    )

    // A corrupt indexed file is refused before any case runs, and kept as it is.
    let bad = DatasetPaths.sqlite(in: datasets, .wells, rows: 300, seed: 1, indexes: ["spud_date"])
    try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: bad))
    let refused = try TestSupport.run(run.map { $0 == dir + "/out" ? dir + "/out2" : $0 })
    #expect(
      refused.status == 1 && refused.stderr.contains("is not a readable dataset: it is not a SQLite database"),
      "\(refused.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: bad)) == Data(repeating: 0x42, count: 4096))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out2"))
  }
}

extension RunCommand {
  /// A child that dies by a signal (a trap, as a precondition failure or an out-of-memory
  /// crash ends) is reported as failed with what it printed; the run goes on; exit is non-zero.
  @Test func aCrashingCaseIsReportedAndTheRunGoesOn() throws {
    let dir = TestSupport.temporaryFolder("crash")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(200, in: dir)
    let out = try TestSupport.run(
      [
        "run", "--dataset", "wells", "--rows", "200", "--store", "memory", "--mode", "full,batched", "--scenario",
        "first_screen,first_screen_mapped,first_screen_mapped_codable",
        "--repetitions", "2", "--no-index", "--datasets", datasets, "--out", dir + "/out",
      ], environment: ["FETCHBENCH_INJECT_CRASH": "batched(20) first_screen_mapped_codable"])
    #expect(out.status == 1, "\(out.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    let failed = rows.filter { $0.status == .failed }
    #expect(failed.map(\.scenario.csv) == ["first_screen_mapped_codable"])
    #expect(failed.first?.mode == .fetch(.batched))
    #expect(failed.first?.error.contains("crashed (signal") == true, "\(failed)")
    #expect(failed.first?.error.contains("injected crash") == true, "the child's last words are kept: \(failed)")
    // With the runtime's backtrace: where it happened, not the backtrace's image list.
    #expect(failed.first?.error.contains("at RunCase.swift:") == true, "the first project frame is named: \(failed)")
    #expect(failed.first?.error.contains("Backtrace took") == false, "\(failed)")
    // Every other case ran, the full-mode Codable one included, with its mapping time.
    let ok = Set(rows.filter { $0.isOK && $0.mode != .settings }.map { "\($0.mode) \($0.scenario)" })
    #expect(
      ok == [
        "full first_screen", "batched first_screen", "full first_screen_mapped", "batched first_screen_mapped",
        "full first_screen_mapped_codable",
      ])
    let mapped = rows.first {
      $0.mode == .fetch(.full) && $0.scenario == .scenario(.firstScreenMappedCodable) && $0.metric == .mapping
    }
    #expect((mapped?.value ?? 0) > 0 && mapped?.repetitions == 2)
  }
}

extension RunCommand {
  /// A case that never ends is stopped at `--case-minutes` and recorded as failed, its error
  /// naming the list; the run's other cases are measured and the run exits 1. The injected
  /// case sleeps forever, so only the deadline can end it, at any machine speed.
  @Test func aCaseThatNeverEndsIsStoppedAtItsDeadline() throws {
    let dir = TestSupport.temporaryFolder("hang")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(200, in: dir)
    let out = try TestSupport.run(
      [
        "run", "--dataset", "wells", "--rows", "200", "--store", "memory", "--mode", "full,batched", "--scenario",
        "first_screen", "--where", "state = 'TX'", "--repetitions", "1", "--no-index", "--datasets", datasets,
        "--case-minutes", "0.02", "--out", dir + "/out",
      ], environment: ["FETCHBENCH_INJECT_HANG": "batched(20) first_screen"])
    #expect(out.status == 1, "\(out.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    let failed = rows.filter { $0.status == .failed }
    #expect(failed.map(\.mode) == [.fetch(.batched)], "\(failed)")
    #expect(failed.first?.error.contains("(--case-minutes)") == true, "\(failed)")
    #expect(failed.first?.error.contains("where `state = 'TX'`") == true, "the error names the list: \(failed)")
    #expect(rows.contains { $0.isOK && $0.mode == .fetch(.full) && $0.scenario == .scenario(.firstScreen) })
  }

  @Test func aCaseDeadlineOutsideItsRangeIsAUsageError() throws {
    for minutes in ["0", "-1", "nan", "1e9"] {
      let out = try TestSupport.run(["run", "--dataset", "wells", "--rows", "200", "--case-minutes", minutes])
      #expect(out.status == 64, "\(minutes): \(out.stderr)")
      #expect(out.stderr.contains("--case-minutes must be a number of minutes"), "\(minutes): \(out.stderr)")
    }
  }
}

extension RunCommand {
  /// A case whose process passes the memory ceiling is stopped (SIGKILL from the harness, not
  /// the kernel's out-of-memory killer) and recorded as not fitting, with its resident bytes
  /// and the row count; the run goes on and succeeds. A ceiling of 1 MiB forces it: every
  /// Swift process holds more than that once its libraries are mapped.
  @Test func aCaseAboveTheMemoryCeilingIsRecordedAsNotFitting() throws {
    let dir = TestSupport.temporaryFolder("ceiling")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(200, in: dir)
    let out = try TestSupport.run([
      "run", "--dataset", "wells", "--rows", "200", "--store", "memory", "--mode", "full,batched", "--scenario",
      "perform_fetch",
      "--repetitions", "1",
      "--no-index", "--datasets", datasets, "--out", dir + "/out", "--memory-ceiling", String(1.0 / 1024),
      "--memory-budget", "64",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    #expect(out.stdout.contains("2 case(s) do not fit"), "\(out.stdout)")
    #expect(out.stderr.contains("DOES NOT FIT"), "\(out.stderr)")
    var rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    // The run's memory budget and frame are recorded for the report, which reads its settings
    // from the CSV.
    let settings = rows.filter { $0.mode == .settings }
    #expect(
      settings.map(\.metric) == [.memoryBudget, .frameBudget] && settings.first?.value == 64 * 1_048_576, "\(settings)")
    rows.removeAll { $0.mode == .settings }
    #expect(rows.count == 2 && rows.allSatisfy { $0.status == .doesNotFit && $0.metric == .doesNotFit })
    #expect(rows.allSatisfy { $0.value > Double(1 << 20) && $0.rows == 200 }, "\(rows)")
    #expect(rows.allSatisfy { $0.error.contains("past the ceiling of 1 MiB") }, "\(rows)")
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("## Cases that do not fit in this machine's memory"))
    #expect(!report.contains("## Failed cases"))
  }
}

extension RunCommand {
  /// Offset and keyset cases count exactly what a page-by-page list issues: the first page
  /// is one query of 20 rows, a jump to the end counts and reads one page, the fling reads
  /// every page of a 300-row list and one empty page that ends it.
  @Test func pagedCasesIssueAQueryPerPage() throws {
    let dir = TestSupport.temporaryFolder("paged")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(300, in: dir)
    let out = try TestSupport.run([
      "run", "--dataset", "wells", "--rows", "300", "--store", "memory,sqlite", "--mode", "offset,keyset", "--scenario",
      "perform_fetch,sectioned,jump_end,scroll_first_1000", "--repetitions", "1", "--no-index", "--datasets", datasets,
      "--out",
      dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    for store in ["memory", "sqlite"] {
      for mode in ["offset", "keyset"] {
        func value(_ scenario: String, _ metric: String) -> Double? {
          rows.first {
            $0.store.csv == store && $0.mode.csv == mode && $0.scenario.csv == scenario && $0.metric.name == metric
          }?.value
        }
        let expected: [(String, Double, Double)] = [
          ("perform_fetch", 1, 20), ("sectioned", 1, 20), ("jump_end", 2, 20), ("scroll_first_1000", 16, 300),
        ]
        for (scenario, queries, materialized) in expected {
          #expect(value(scenario, "queries") == queries, "\(store) \(mode) \(scenario)")
          #expect(value(scenario, "rows_materialized") == materialized, "\(store) \(mode) \(scenario)")
        }
      }
    }
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("### SQLite, tuned statements: every strategy (batches and pages of 20)"))
    #expect(report.contains("| after a save | page refresh | page refresh |"))
  }
}

extension RunCommand {
  /// A run stopped part way keeps every finished case and continues where it stopped:
  /// `--max-minutes 0` stops after each case, so each sitting runs exactly one. A case that
  /// failed is not kept and runs again; a resume with other options, or a new run over an
  /// unfinished one, is refused; the finished run holds every case once, under one run ID.
  @Test func aStoppedRunResumesWhereItStopped() throws {
    let dir = TestSupport.temporaryFolder("resume")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(200, in: dir)
    let out = dir + "/out"
    let journal = out + ".unfinished"
    let run = [
      "run", "--dataset", "wells", "--rows", "200", "--store", "memory", "--mode", "full,batched", "--scenario",
      "perform_fetch,first_screen", "--repetitions", "2", "--no-index", "--datasets", datasets, "--out", out,
    ]
    func kept() -> [String] { TestSupport.listing(journal).filter { $0.hasPrefix("case-") }.sorted() }

    let first = try TestSupport.run(run + ["--max-minutes", "0"])
    #expect(first.status == 75, "\(first.stderr)")
    #expect(first.stderr.contains("1 of 4 cases finished"), "\(first.stderr)")
    #expect(kept() == ["case-00000.csv", "case-00000.samples.json"])
    #expect(!FileManager.default.fileExists(atPath: out), "nothing is written to the run's folder before its last case")
    let firstCase = try String(contentsOfFile: journal + "/case-00000.csv", encoding: .utf8)

    // The second case fails: it is reported, not kept.
    let second = try TestSupport.run(
      run + ["--resume", "--max-minutes", "0"], environment: ["FETCHBENCH_INJECT_FAILURE": "batched(20) perform_fetch"])
    #expect(second.status == 75, "\(second.stderr)")
    #expect(
      second.stderr.contains("resuming: 1 of 4 cases finished before") && second.stderr.contains("FAILED"),
      "\(second.stderr)")
    #expect(kept() == ["case-00000.csv", "case-00000.samples.json"])

    let otherOptions = try TestSupport.run(
      run.map { $0 == "perform_fetch,first_screen" ? "perform_fetch" : $0 } + ["--resume"])
    #expect(
      otherOptions.status == 1 && otherOptions.stderr.contains("was started with other options"),
      "\(otherOptions.stderr)")
    let over = try TestSupport.run(run)
    #expect(over.status == 1 && over.stderr.contains("holds an unfinished run"), "\(over.stderr)")
    let nothing = try TestSupport.run(run.map { $0 == out ? dir + "/elsewhere" : $0 } + ["--resume"])
    #expect(nothing.status == 1 && nothing.stderr.contains("no unfinished run into"), "\(nothing.stderr)")
    #expect(kept() == ["case-00000.csv", "case-00000.samples.json"], "a refused command changes nothing")

    let last = try TestSupport.run(run + ["--resume"])
    #expect(last.status == 0, "\(last.stderr)")
    #expect(
      !last.stderr.contains("[1/4]") && last.stderr.contains("[2/4]") && last.stderr.contains("[4/4]"), "\(last.stderr)"
    )
    #expect(!FileManager.default.fileExists(atPath: journal))
    let rows = try ResultsCSV.decode(try String(contentsOfFile: out + "/results.csv", encoding: .utf8))
      .filter { $0.mode != .settings }
    #expect(Set(rows.map(\.runID)).count == 1)
    #expect(rows.allSatisfy { $0.isOK })
    let cases = rows.filter { $0.metric == .queries }.map { "\($0.mode) \($0.scenario)" }
    #expect(cases == ["full perform_fetch", "batched perform_fetch", "full first_screen", "batched first_screen"])
    // The first sitting's case is the one measured then, not measured again.
    let kept0 = try ResultsCSV.decode(firstCase)
    #expect(
      rows.prefix(kept0.count).elementsEqual(kept0) {
        $0.metric == $1.metric && $0.value == $1.value && $0.min == $1.min
      })
    // results.json keeps each timed figure's two repetitions, the first sitting's included.
    let json = try JSONDecoder().decode(
      [ResultRow].self, from: Data(contentsOf: URL(fileURLWithPath: out + "/results.json")))
    let times = json.filter { $0.metric == .time }
    #expect(times.count == 4 && times.allSatisfy { $0.samples.count == 2 }, "\(times.map(\.samples))")
    for t in times {
      #expect(
        abs((t.samples.min() ?? -1) - t.min) < 0.001 && abs((t.samples.max() ?? -1) - t.max) < 0.001,
        "\(t.samples) \(t.min) \(t.max)")
    }
    #expect(json.filter { $0.metric == .queries }.allSatisfy { $0.samples.isEmpty }, "a counter is measured once")
  }
}

extension RunCommand {
  /// jemalloc's `MALLOC_CONF`, which every case's process inherits, is recorded with the run
  /// and named in its report; a run with the defaults names none.
  @Test func theAllocatorsConfigurationIsRecordedWithTheRun() throws {
    let dir = TestSupport.temporaryFolder("malloc-conf")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.wells(200, in: dir)
    for conf in ["thp:default", ""] {
      let out = dir + "/out-\(conf.isEmpty ? "default" : "set")"
      let run = try TestSupport.run(
        [
          "run", "--dataset", "wells", "--rows", "200", "--store", "memory", "--mode", "batched", "--scenario",
          "first_screen",
          "--repetitions", "1", "--no-index", "--datasets", datasets, "--out", out,
        ], environment: ["MALLOC_CONF": conf])
      #expect(run.status == 0, "\(run.stderr)")
      let rows = try ResultsCSV.decode(try String(contentsOfFile: out + "/results.csv", encoding: .utf8))
      let recorded = rows.filter { $0.metric == .allocatorConfiguration }.map(\.detail)
      let report = try String(contentsOfFile: out + "/report.md", encoding: .utf8)
      if conf.isEmpty {
        #expect(recorded.isEmpty)
        #expect(!report.contains("MALLOC_CONF"))
      } else {
        #expect(recorded == [conf])
        #expect(report.contains("jemalloc configured by `MALLOC_CONF=thp:default`"), "\(report)")
      }
      #expect(rows.contains { $0.metric == .time && $0.isOK })
    }
  }
}

/// A repetition's page faults count the memory the kernel hands it: a fresh 64 MiB block,
/// touched once a page, costs at least one fault per 2 MiB (huge pages) and the same block
/// touched again costs next to none.
@Suite struct PageFaults {
  @Test func freshMemoryIsCountedAndTouchedMemoryIsNot() {
    let size = 64 << 20
    let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
    defer { block.deallocate() }
    func touch() -> Int {
      for i in stride(from: 0, to: size, by: 4096) { block.storeBytes(of: 1, toByteOffset: i, as: UInt8.self) }
      return Int(block.load(fromByteOffset: size - 4096, as: UInt8.self))
    }
    let fresh = Sampler.once(touch).sample.pageFaults
    let again = Sampler.once(touch).sample.pageFaults
    #expect(fresh >= size >> 21, "\(fresh)")
    #expect(again * 2 < fresh, "\(again) against \(fresh)")
  }
}
