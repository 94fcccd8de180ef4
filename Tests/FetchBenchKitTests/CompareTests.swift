import DatasetStores
import FetchBenchKit
import Foundation
import HarnessSupport
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// `compare`: figures joined on their key and judged as their kind allows.
@Suite struct CompareRuns {
  /// A time measured in `processes` processes, each `samples` shifted by its own offset.
  static func timed(_ mode: FetchMode, _ samples: [Double], processes: Int = 3, metric: Metric = .time) -> ResultRow {
    var r = row(.sqlite, mode, .firstScreen, metric, 0)
    let offsets = [1.0, 1.03, 0.98]
    r.samples = (0..<processes).flatMap { p in samples.map { $0 * offsets[p % 3] } }
    r.processes = processes
    let sorted = r.samples.sorted()
    (r.value, r.min, r.max, r.repetitions) = (sorted[sorted.count / 2], sorted.first!, sorted.last!, sorted.count)
    return r
  }

  static let base = [10.0, 10.1, 10.2, 9.9, 10.05]

  /// Student's t against scipy's `stats.t`: two-sided p-values and the 97.5 % quantile.
  @Test func studentsTMatchesReferenceValues() {
    for (t, df, p) in [
      (2.776445, 4.0, 0.05), (12.7062, 1.0, 0.05), (2.042272, 30.0, 0.05), (1.0, 10.0, 0.340893),
      (8.922289, 4.0, 0.000872),
    ] {
      #expect(abs(ProcessStatistics.tTwoSidedP(t, df: df) - p) < 1e-5, "t \(t), df \(df)")
    }
    #expect(abs(ProcessStatistics.tQuantile(0.05, df: 10) - 2.228139) < 1e-5)
    #expect(abs(ProcessStatistics.incompleteBeta(0.5, 2, 2) - 0.5) < 1e-12)
    #expect(ProcessStatistics.processMedians([1, 2, 3, 10, 20, 30], processes: 2) == [2, 20])
    // Identical processes on both sides: no difference, p = 1.
    #expect(ProcessStatistics.welch([5, 5, 5], [5, 5, 5]).p == 1)
  }

  @Test func eachKindOfFigureIsJudgedItsWay() throws {
    let before = [
      Self.timed(.full, Self.base), Self.timed(.batched, Self.base), Self.timed(.offset, Self.base),
      Self.timed(.keyset, Self.base, processes: 1),
      row(.sqlite, .full, .firstScreen, .queries, 2), row(.sqlite, .batched, .firstScreen, .queries, 2),
      row(.sqlite, .full, .firstScreen, .heapLive, 100_000), row(.sqlite, .batched, .firstScreen, .heapLive, 100_000),
      row(.sqlite, .full, .scrollThrough, .time, 5),
    ]
    let after = [
      Self.timed(.full, Self.base.map { $0 * 1.2 }), Self.timed(.batched, Self.base.map { $0 * 1.05 }),
      Self.timed(.offset, Self.base.map { $0 * 0.5 }), Self.timed(.keyset, Self.base.map { $0 * 9 }, processes: 1),
      row(.sqlite, .full, .firstScreen, .queries, 3), row(.sqlite, .batched, .firstScreen, .queries, 2),
      row(.sqlite, .full, .firstScreen, .heapLive, 120_000), row(.sqlite, .batched, .firstScreen, .heapLive, 130_000),
      row(.sqlite, .batched, .scrollThrough, .time, 5),
    ]
    let c = Comparison(base: before, head: after)
    func verdict(_ name: String) -> Comparison.Verdict? { c.lines.first { $0.name == name }?.verdict }
    let k = "banks/1000/sqlite"
    // 20 % slower in each of three processes: regressed; 5 % is under the threshold.
    #expect(verdict("\(k)/full/0/none/first_screen/time_ms") == .regressed)
    #expect(verdict("\(k)/batched/20/none/first_screen/time_ms") == .unchanged)
    #expect(verdict("\(k)/offset/20/none/first_screen/time_ms") == .improved)
    #expect(verdict("\(k)/keyset/20/none/first_screen/time_ms") == .notJudged, "one process a side, however far apart")
    #expect(
      verdict("\(k)/full/0/none/first_screen/queries") == .regressed
        && verdict("\(k)/batched/20/none/first_screen/queries") == .unchanged)
    // A heap's change counts beyond 5 % and the gate's 16 KiB of slack together: jemalloc's
    // thread caches move a small heap by more than 5 % between processes.
    #expect(verdict("\(k)/full/0/none/first_screen/heap_live_bytes") == .unchanged, "20,000 is within 5,000 + 16 KiB")
    #expect(verdict("\(k)/batched/20/none/first_screen/heap_live_bytes") == .regressed)
    #expect(verdict("\(k)/full/0/none/scroll_through/time_ms") == .onlyInBase)
    #expect(verdict("\(k)/batched/20/none/scroll_through/time_ms") == .onlyInHead)
    #expect(c.exitCode == 2)
    let full = try #require(c.lines.first { $0.name == "\(k)/full/0/none/first_screen/time_ms" })
    // Welch's t on the log process medians: t = 8.922 with 4 degrees of freedom (scipy:
    // p = 0.000872, t(0.975) = 2.7764); Holm's correction over the three times tested.
    #expect(full.detail.contains("(×1.200 [1.134–1.270], p = 0.0009, 0.00"), "\(full.detail)")
    #expect(full.detail.hasSuffix(" over 3 times (Holm), 3 and 3 processes)"), "\(full.detail)")
    #expect(
      c.text().hasPrefix(
        "3 figure(s) regressed or changed.\nregressed: 3, improved: 1, changed: 0, unchanged: 3, not judged: 1"))
    #expect(
      c.text().contains(
        "\n1 figure(s) not judged (times and page faults): measured in fewer than 3 processes a side; run both with --processes 3.\n"
      ))
    let md = c.markdown()
    #expect(
      md.hasPrefix("### FetchBench: 3 figure(s) regressed or changed.")
        && md.contains("<details><summary>6 other figures</summary>"))

    // A case measured while the rest of the machine used half a core: its times are not
    // judged, however far apart; its counters still are.
    var busy = after
    busy.append(row(.sqlite, .full, .firstScreen, .othersCores, 0.5))
    let loaded = Comparison(base: before, head: busy)
    let fullTime = try #require(loaded.lines.first { $0.name == "\(k)/full/0/none/first_screen/time_ms" })
    #expect(
      fullTime.verdict == .notJudged
        && fullTime.detail.hasSuffix("(busy machine: others used 0.50 cores while the head measured it)"),
      "\(fullTime)")
    #expect(loaded.lines.first { $0.name == "\(k)/full/0/none/first_screen/queries" }?.verdict == .regressed)
    #expect(
      loaded.lines.first { $0.name == "\(k)/offset/20/none/first_screen/time_ms" }?.verdict == .improved,
      "another case, not busy")
    #expect(loaded.text().contains("1 time(s) not judged: the machine was busy while a side measured them"))
    busy[busy.count - 1] = row(.sqlite, .full, .firstScreen, .othersCores, 0.1)
    #expect(
      Comparison(base: before, head: busy).lines.first { $0.name == "\(k)/full/0/none/first_screen/time_ms" }?.verdict
        == .regressed)

    // The same runs on another machine are not compared, unless told.
    var elsewhere = after
    for i in elsewhere.indices { elsewhere[i].machine.cores = 8 }
    #expect(Comparison(base: before, head: elsewhere).exitCode == 3)
    var options = Comparison.Options()
    options.allowDifferences = true
    #expect(Comparison(base: before, head: elsewhere, options: options).exitCode == 2)
    #expect(Comparison(base: before, head: before).exitCode == 0)
  }

  /// Runs whose machines timed the same fixed work 1.25× apart or more are compared with a note
  /// that says so, in every format; closer, or unrecorded on a side, without one.
  @Test func machinesOfOtherSpeedsAreNamedBesideTheVerdict() throws {
    func run(_ speed: MachineSpeed?) -> [ResultRow] {
      var r = Self.timed(.batched, Self.base)
      r.machine.speed = speed
      return [r]
    }
    let fast = MachineSpeed(sortMs: 60, faultMs: 20)
    let slow = Comparison(base: run(fast), head: run(MachineSpeed(sortMs: 60, faultMs: 30)))
    let note = try #require(slow.speedNote)
    #expect(note.contains("the head took 1.00× and 1.50× the base's time for the same work"), "\(note)")
    #expect(slow.text().contains(note) && slow.markdown().contains(note))
    #expect(String(decoding: try slow.json(), as: UTF8.self).contains("\"speedNote\""))
    #expect(slow.exitCode == 0)
    #expect(Comparison(base: run(fast), head: run(MachineSpeed(sortMs: 74, faultMs: 16.5))).speedNote == nil)
    #expect(Comparison(base: run(fast), head: run(MachineSpeed(sortMs: 75, faultMs: 20))).speedNote != nil)
    #expect(Comparison(base: run(nil), head: run(fast)).speedNote == nil)
  }

  /// End to end: a run against itself changes nothing; against a copy whose first screen took
  /// ten times as long, that figure regressed; bad input fails clearly.
  @Test func compareReadsRunFolders() throws {
    let dir = TestSupport.temporaryFolder("compare")
    defer { TestSupport.remove(dir) }
    let run = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "batched", "--scenario",
      "first_screen",
      "--repetitions", "5", "--processes", "3", "--no-index", "--datasets", dir + "/datasets", "--out", dir + "/a",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let same = try TestSupport.run(["compare", dir + "/a", dir + "/a"])
    #expect(same.status == 0 && same.stdout.hasPrefix("No figure regressed."), "\(same.stdout)\(same.stderr)")
    var rows = try JSONDecoder().decode(
      [ResultRow].self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/a/results.json")))
    #expect(rows.contains { $0.metric == .othersCores } && rows.contains { $0.metric == .stealCores })
    // The run as if measured on a quiet machine (other tests may load this one).
    for j in rows.indices where rows[j].metric == .othersCores || rows[j].metric == .stealCores {
      (rows[j].value, rows[j].min, rows[j].max) = (0, 0, 0)
    }
    let i = try #require(rows.firstIndex { $0.metric == .time })
    #expect(rows[i].samples.count == 15 && rows[i].processes == 3)
    // A time tens of microseconds long moves between processes by its own size on a loaded
    // machine: the base's repetitions as a quiet machine measures them, within 4 % ...
    rows[i].samples = (0..<15).map { 0.04 * (1 + Double($0 % 5) * 0.01) }
    try JSONEncoder().encode(rows).write(to: URL(fileURLWithPath: dir + "/quiet.json"))
    // ... and every repetition of the head ten times the slowest.
    rows[i].samples = Array(repeating: rows[i].samples.max()! * 10, count: 15)
    try JSONEncoder().encode(rows).write(to: URL(fileURLWithPath: dir + "/slower.json"))
    let slower = try TestSupport.run(["compare", dir + "/quiet.json", dir + "/slower.json", "--format", "markdown"])
    #expect(slower.status == 2, "\(slower.stdout)\(slower.stderr)")
    #expect(
      slower.stdout.contains("| `banks/300/memory/batched/20/none/first_screen/time_ms` | regressed |"),
      "\(slower.stdout)")
    let missing = try TestSupport.run(["compare", dir + "/nothing", dir + "/a"])
    #expect(missing.status == 1 && missing.stderr.contains("no such run"), "\(missing.stderr)")
    let format = try TestSupport.run(["compare", dir + "/a", dir + "/a", "--format", "xml"])
    #expect(
      format.status == 64
        && format.stderr.contains("unknown format 'xml'; expected text, markdown, json, bmf, github-action-benchmark"),
      "\(format.stderr)")
    let json = try TestSupport.run(["compare", dir + "/quiet.json", dir + "/slower.json", "--format", "json"])
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
    #expect(json.status == 2 && document["exitCode"] as? Int == 2, "\(json.stdout)")
    let figures = try #require(document["figures"] as? [[String: String]])
    #expect(
      figures.first { $0["name"] == "banks/300/memory/batched/20/none/first_screen/time_ms" }?["verdict"] == "regressed"
    )
    let action = try TestSupport.run([
      "compare", dir + "/a", dir + "/a", "--format", "github-action-benchmark", "--out", dir + "/action",
    ])
    #expect(
      action.status == 0
        && TestSupport.listing(dir + "/action") == [
          ".fetchbench-output.json", "bigger-is-better.json", "smaller-is-better.json",
        ])
    let noOut = try TestSupport.run(["compare", dir + "/a", dir + "/a", "--format", "github-action-benchmark"])
    #expect(noOut.status == 64 && noOut.stderr.contains("name their folder with --out"), "\(noOut.stderr)")
  }

  /// Real runs, each case in three processes: a fault that makes every batch a query per row
  /// is flagged by its counters; one that doubles the batched first screen's work flags that
  /// time and nothing else; and pairs of runs of unchanged code flag no time in 9 of 10.
  @Test func compareCatchesInjectedFaultsAndPassesUnchangedCode() throws {
    let dir = TestSupport.temporaryFolder("compare-faults")
    defer { TestSupport.remove(dir) }
    func run(_ out: String, _ environment: [String: String] = [:]) throws {
      let r = try TestSupport.run(
        [
          "run", "--dataset", "banks", "--rows", "2000", "--store", "memory", "--mode", "full,batched", "--scenario",
          "first_screen",
          "--repetitions", "5", "--processes", "3", "--no-index", "--datasets", dir + "/datasets", "--out",
          dir + "/" + out,
        ], environment: environment)
      #expect(r.status == 0, "\(r.stderr)")
    }
    /// The figures `compare` flagged, and its exit code.
    func flagged(_ base: String, _ head: String) throws -> (names: Set<String>, status: Int32) {
      let out = try TestSupport.run(["compare", dir + "/" + base, dir + "/" + head, "--format", "json"])
      let document = try #require(
        try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any], "\(out.stderr)")
      let figures = try #require(document["figures"] as? [[String: String]])
      let names = figures.filter { ["regressed", "improved", "changed"].contains($0["verdict"]) }.compactMap {
        $0["name"]
      }
      return (Set(names), out.status)
    }
    try run("base")
    let k = "banks/2000/memory/batched/20/none/first_screen"
    try run("query-per-row", ["FETCHBENCH_INJECT_QUERY_PER_ROW": "1"])
    let queries = try flagged("base", "query-per-row")
    #expect(queries.status == 2 && queries.names.contains("\(k)/queries"), "\(queries)")
    try run("doubled", ["FETCHBENCH_INJECT_BATCHED_SLOWDOWN": "2"])
    let doubled = try flagged("base", "doubled")
    /// Whether the rest of the machine was busy while `run` measured (as compare judges it).
    func busy(_ run: String) throws -> Bool {
      let rows = try JSONDecoder().decode(
        [ResultRow].self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/" + run + "/results.json")))
      return rows.contains {
        ($0.metric == .othersCores && $0.value >= 0.25) || ($0.metric == .stealCores && $0.value >= 0.05)
      }
    }
    // That time, or its ratio to the in-memory limit timed alternately in the same process,
    // which a loaded machine moves less (under load the time's process medians may spread too
    // far for the test): nothing else.
    // On a busy machine (other tests run beside this one) the times are not judged at all.
    if try !busy("base") && !busy("doubled") {
      #expect(doubled.status == 2 && !doubled.names.isEmpty, "\(doubled)")
    }
    #expect(doubled.names.isSubset(of: ["\(k)/time_ms", "\(k)/engine_over_limit"]), "\(doubled)")
    var clean = 0
    for pair in 0..<10 {
      try run("a\(pair)")
      try run("b\(pair)")
      if try flagged("a\(pair)", "b\(pair)").names.isEmpty { clean += 1 }
    }
    #expect(clean >= 9, "\(10 - clean) of 10 pairs of unchanged runs flagged a figure")
  }
}
