import Catalog
import FetchBenchKit
import Foundation
import GRDB
import HarnessSupport
import ResultModel
import TestSupport
import Testing

/// The regression gate's comparator on recorded figures, and the gate end to end.
@Suite struct GateComparison {
  static let epyc = Processor(model: "AMD EPYC", l1dBytes: 32 << 10, l2Bytes: 512 << 10, l3Bytes: 8 << 20)
  let machine = MachineKind(
    cores: 2, os: "Debian GNU/Linux 12 (bookworm)", swiftVersion: "Swift version 6.3.1", memoryBytes: 1 << 34,
    processor: epyc)
  let datasets = ["banks-50000": "abc", "wells-50000": "def"]

  var baseline: GateBaseline {
    GateBaseline(
      machine: machine, datasets: datasets, batchSize: 20,
      lists: [GateList(dataset: .banks, rows: 50_000), GateList(dataset: .wells, rows: 50_000)],
      figures: [
        GateFigure(
          name: "banks/sqlite/first_screen/batched/queries", kind: .counter, value: 2, unit: .count, tolerance: 0),
        GateFigure(
          name: "banks/sqlite/first_screen/batched/heap_live_bytes", kind: .heap, value: 1_000_000, unit: .bytes,
          tolerance: 0.05),
        GateFigure(
          name: "banks/sqlite/first_screen/batched_over_full_time", kind: .ratio, value: 0.5, unit: .ratio,
          tolerance: 0.15, spread: 0.02),
      ])
  }

  func run(
    _ values: [Double], dropLast: Bool = false, machine m: MachineKind? = nil, datasets d: [String: String]? = nil,
    allow: Bool = false,
    busy: Set<String> = [], baseline recorded: GateBaseline? = nil
  ) -> GateReport {
    let recorded = recorded ?? baseline
    var now = recorded.figures
    for i in now.indices { now[i].value = values[i] }
    if dropLast { now.removeLast() }
    return GateComparator.compare(
      baseline: recorded, now: now, machine: m ?? machine, datasets: d ?? datasets, allowOtherMachine: allow, busy: busy
    )
  }

  var ratioName: String { baseline.figures[2].name }

  @Test func withinToleranceExitsZero() {
    let r = run([2, 1_040_000, 0.56])
    #expect(r.exitCode(failOnImprovement: true) == 0)
    #expect(r.lines.allSatisfy { $0.verdict == .within })
    #expect(
      r.markdown().contains("| `banks/sqlite/first_screen/batched/queries` | counter | 2 | 2 | +0.0% | exact | ok |"))
  }

  @Test func eachKindOfRegressionExitsTwoAndIsNamed() {
    for (values, name) in [
      ([3.0, 1_000_000, 0.5], "batched/queries"), ([2.0, 1_080_000, 0.5], "heap_live_bytes"),
      ([2.0, 1_000_000, 0.6], "batched_over_full_time"),
    ] {
      let r = run(values)
      #expect(r.exitCode(failOnImprovement: false) == 2)
      #expect(r.regressions.map(\.name).count == 1 && r.regressions[0].name.hasSuffix(name))
      #expect(r.markdown().contains("**REGRESSION**"))
    }
  }

  @Test func improvementsPassUnlessAskedToFail() {
    let r = run([2, 500_000, 0.5])
    #expect(r.exitCode(failOnImprovement: false) == 0)
    #expect(r.exitCode(failOnImprovement: true) == 4)
    #expect(r.improvements.map(\.name) == ["banks/sqlite/first_screen/batched/heap_live_bytes"])
  }

  /// A counter is exact both ways: 2 queries recorded and 1 now may be a bug that skips work.
  @Test func aCounterBelowItsBaselineIsARegression() {
    let r = run([1, 1_000_000, 0.5])
    #expect(r.exitCode(failOnImprovement: false) == 2)
    #expect(r.regressions.map(\.name) == ["banks/sqlite/first_screen/batched/queries"])
  }

  @Test func aMissingFigureIsARegression() {
    let r = run([2, 1_000_000, 0.5], dropLast: true)
    #expect(r.exitCode(failOnImprovement: false) == 2)
    #expect(r.lines.last?.verdict == .missing)
  }

  @Test func otherMachinesDatasetsOrNoBaselineCannotBeJudged() {
    var other = machine
    other.cores = 8
    #expect(run([2, 1_000_000, 0.5], machine: other).exitCode(failOnImprovement: false) == 3)
    #expect(run([2, 1_000_000, 0.5], machine: other).cannotJudge?.contains("another machine kind") == true)
    #expect(run([2, 1_000_000, 0.5], machine: other, allow: true).exitCode(failOnImprovement: false) == 0)
    #expect(run([2, 1_000_000, 0.5], datasets: ["banks-50000": "zzz"]).exitCode(failOnImprovement: false) == 3)
    let none = GateComparator.compare(baseline: nil, now: baseline.figures, machine: machine, datasets: datasets)
    #expect(none.exitCode(failOnImprovement: false) == 3)
  }

  /// Another processor of the same machine kind: counters and heap figures are judged as
  /// always, a time ratio of unlike work is not (whatever its value), a ratio of like work is.
  @Test func onAnotherProcessorOnlyRatiosOfLikeWorkAreJudged() {
    var xeon = machine
    xeon.processor = Processor(
      model: "Intel(R) Xeon(R) Processor", l1dBytes: 48 << 10, l2Bytes: 4 << 20, l3Bytes: 260 << 20)
    let slower = run([2, 1_000_000, 0.9], machine: xeon)
    #expect(slower.lines[2].verdict == .otherProcessor)
    #expect(slower.exitCode(failOnImprovement: true) == 0)
    #expect(slower.markdown().contains("| 0.500 | 0.900 | +80.0% | ±15% | not judged: other processor |"))
    #expect(
      slower.notes.contains {
        $0.contains("recorded on AMD EPYC (L1d 32 KiB, L2 512 KiB, L3 8 MiB); this is Intel(R) Xeon(R)")
      })
    #expect(
      slower.summary(failOnImprovement: false)
        == "all 2 judged figures within tolerance (0 improved); 1 not judged (1 other processor)")
    // Counters and heap figures are still judged there.
    #expect(run([3, 1_000_000, 0.9], machine: xeon).exitCode(failOnImprovement: false) == 2)
    #expect(run([2, 1_200_000, 0.5], machine: xeon).exitCode(failOnImprovement: false) == 2)
    // Only the same model with the same caches is the same processor.
    var otherCaches = machine
    otherCaches.processor?.l3Bytes = 32 << 20
    #expect(run([2, 1_000_000, 0.9], machine: otherCaches).lines[2].verdict == .otherProcessor)
    // A baseline that does not record its processor (recorded before processors were).
    var unrecorded = baseline
    unrecorded.machine.processor = nil
    #expect(run([2, 1_000_000, 0.9], baseline: unrecorded).lines[2].verdict == .otherProcessor)
    // A ratio of like work is judged on any processor.
    var like = baseline
    like.figures[2].likeForLike = true
    #expect(run([2, 1_000_000, 0.9], machine: xeon, baseline: like).lines[2].verdict == .regression)
  }

  /// A time ratio measured while other processes took the cores is not judged, whatever its
  /// value; counters measured in the same case are.
  @Test func aBusyMachinesRatiosAreNotJudged() {
    let busy = run([2, 1_000_000, 0.9], busy: Set(baseline.figures.map(\.name)))
    #expect(busy.lines.map(\.verdict) == [.within, .within, .busyMachine])
    #expect(busy.exitCode(failOnImprovement: true) == 0)
    #expect(busy.markdown().contains("| +80.0% | ±15% | not judged: busy machine |"))
    #expect(
      run([3, 1_000_000, 0.9], busy: [ratioName, baseline.figures[0].name]).exitCode(failOnImprovement: false) == 2)
    // Like work too: a neighbour's memory traffic does not move both sides alike.
    var like = baseline
    like.figures[2].likeForLike = true
    #expect(run([2, 1_000_000, 0.9], busy: [ratioName], baseline: like).lines[2].verdict == .busyMachine)
  }

  /// Exit 3 only when nothing at all could be judged; figures the baseline lacks are said not
  /// to be judged, not counted as within tolerance.
  @Test func nothingJudgedExitsThreeAndUnknownFiguresAreNotJudged() {
    var ratios = baseline
    ratios.figures = [baseline.figures[2]]
    var xeon = machine
    xeon.processor = nil
    let none = run([0.5], machine: xeon, baseline: ratios)
    #expect(none.exitCode(failOnImprovement: false) == 3)
    #expect(none.summary(failOnImprovement: false) == "nothing could be judged; 1 not judged (1 other processor)")

    let extra = GateFigure(
      name: "banks/sqlite/perform_fetch/batched/queries", kind: .counter, value: 2, unit: .count, tolerance: 0)
    let report = GateComparator.compare(
      baseline: baseline, now: baseline.figures + [extra], machine: machine, datasets: datasets)
    #expect(report.lines.last?.verdict == .notInBaseline)
    #expect(report.exitCode(failOnImprovement: true) == 0)
    #expect(
      report.summary(failOnImprovement: false)
        == "all 3 judged figures within tolerance (0 improved); 1 not judged (1 not in the baseline)"
    )
  }

  @Test func aRatioRegressionMustReproduceWhenReMeasured() {
    // Over tolerance once, within the second time: a transient, judged on the lower value.
    var transient = run([2, 1_000_000, 0.7])
    #expect(transient.exitCode(failOnImprovement: false) == 2)
    transient.judgeRemeasured([
      GateFigure(name: baseline.figures[2].name, kind: .ratio, value: 0.52, unit: .ratio, tolerance: 0.15)
    ])
    #expect(transient.exitCode(failOnImprovement: false) == 0)
    #expect(transient.lines[2].now == 0.52 && transient.lines[2].verdict == .within)
    #expect(transient.notes.contains { $0.contains("was 0.700, re-measured 0.520: regression not confirmed") })

    // Over tolerance both times: a regression, at the lower of the two.
    var real = run([3, 1_000_000, 0.7])
    real.judgeRemeasured([
      GateFigure(name: baseline.figures[2].name, kind: .ratio, value: 0.66, unit: .ratio, tolerance: 0.15),
      GateFigure(name: baseline.figures[0].name, kind: .counter, value: 2, unit: .count, tolerance: 0),
    ])
    #expect(real.lines[2].now == 0.66 && real.lines[2].verdict == .regression)
    #expect(real.notes.contains { $0.contains("regression confirmed") })
    // Only time ratios are re-judged: a counter is exact, a second run cannot excuse it.
    #expect(real.lines[0].verdict == .regression && real.lines[0].now == 3)

    // Over tolerance both times, but the second on a busy machine: not judged.
    var busy = run([2, 1_000_000, 0.7])
    busy.judgeRemeasured(
      [GateFigure(name: ratioName, kind: .ratio, value: 0.66, unit: .ratio, tolerance: 0.15)], busy: [ratioName])
    #expect(busy.lines[2].verdict == .busyMachine && busy.exitCode(failOnImprovement: false) == 0)
    #expect(
      busy.notes.contains { $0.contains("re-measured 0.660: not judged (the machine was busy while re-measuring)") })
  }

  /// End to end: record a baseline, then run the gate as a user who set batch size 1 would:
  /// the query counts regress and the gate exits 2 naming them. A broken or foreign baseline
  /// exits 3.
  @Test func batchSizeOneIsCaughtEndToEnd() throws {
    let dir = TestSupport.temporaryFolder("gate")
    defer { TestSupport.remove(dir) }
    // Memory and SQLite: the PostgreSQL rows run in `make check` against the committed baseline.
    let sizes = ["--rows", "2000", "--repetitions", "3", "--datasets", dir + "/datasets"]
    let common = sizes + ["--store", "memory,sqlite", "--baseline", dir + "/ci.json"]
    let record = try TestSupport.run(["check", "--update", "--update-runs", "2"] + common)
    #expect(record.status == 0, "\(record.stderr)")
    let json = try String(contentsOfFile: dir + "/ci.json", encoding: .utf8)
    #expect(json.contains("\"tolerance\"") && json.contains("banks/sqlite/first_screen/batched/queries"))

    let worse = try TestSupport.run(["check", "--batch-size", "1"] + common)
    #expect(worse.status == 2, "\(worse.stdout)\n\(worse.stderr)")
    #expect(
      worse.stdout.contains("| `banks/sqlite/first_screen/batched/queries` | counter | 2 | 21 |"), "\(worse.stdout)")
    #expect(worse.stdout.contains("regression(s): "))

    // A time ratio that regresses for real (a baseline ten times lower) is measured again in
    // a new child process, confirmed, and fails the gate.
    var tight = try JSONDecoder().decode(GateBaseline.self, from: Data(json.utf8))
    let diffRatio = try #require(
      tight.figures.firstIndex { $0.name == "banks/memory/diff_k100/our_diff_over_hash_index_time" })
    tight.figures[diffRatio].value /= 10
    try GateRun.writeBaseline(tight, to: dir + "/tight.json")
    let slower = try TestSupport.run(["check", "--baseline", dir + "/tight.json"] + common.dropLast(2))
    let verdictLine = slower.stdout.split(separator: "\n").first {
      $0.hasPrefix("| `banks/memory/diff_k100/our_diff_over_hash_index_time`")
    }
    // Other tests load the machine while this one runs: a ratio measured then is not judged.
    if verdictLine?.hasSuffix("| not judged: busy machine |") == true {
      #expect(slower.status == 0, "\(slower.stdout)\n\(slower.stderr)")
      // Busy while the case ran, or while its regression was measured again.
      #expect(
        slower.stdout.contains("note: busy machine during banks-2000 memory gate_diff")
          || slower.stdout.contains("not judged (the machine was busy while re-measuring)"), "\(slower.stdout)")
    } else {
      #expect(slower.status == 2, "\(slower.stdout)\n\(slower.stderr)")
      #expect(slower.stderr.contains("time ratio(s) over tolerance"), "\(slower.stderr)")
      #expect(
        slower.stdout.contains("`banks/memory/diff_k100/our_diff_over_hash_index_time` was ")
          && slower.stdout.contains("regression confirmed; judged on the lower"), "\(slower.stdout)")
      #expect(verdictLine?.hasSuffix("| **REGRESSION** |") == true, "\(slower.stdout)")
    }

    // The same tight baseline with one core kept busy by another process: that ratio is never
    // a regression, and the counters measured beside it are still judged.
    let spinner = Process()
    spinner.executableURL = URL(fileURLWithPath: "/bin/sh")
    spinner.arguments = ["-c", "while :; do :; done"]
    try spinner.run()
    let busy: TestSupport.Output
    do {
      // SIGKILL: the test's threads block SIGTERM, and a child inherits that mask.
      defer {
        kill(spinner.processIdentifier, SIGKILL)
        spinner.waitUntilExit()
      }
      busy = try TestSupport.run(["check", "--baseline", dir + "/tight.json", "--store", "memory"] + sizes)
    }
    #expect(busy.status == 0, "\(busy.stdout)\n\(busy.stderr)")
    #expect(
      busy.stdout.contains("| `banks/memory/diff_k100/our_diff_over_hash_index_time` | ratio |"), "\(busy.stdout)")
    #expect(
      busy.stdout.split(separator: "\n").contains {
        $0.hasPrefix("| `banks/memory/diff_k100/our_diff_over_hash_index_time`")
          && $0.hasSuffix("| not judged: busy machine |")
      }, "\(busy.stdout)")
    #expect(
      busy.stdout.contains("| `banks/memory/diff_k100/deletes` | counter |")
        && busy.stdout.contains("not in the baseline") == false)

    // A baseline recorded on another processor (edited here): a ratio of unlike work ten
    // times lower than measured is not judged, and says why.
    var foreign = try JSONDecoder().decode(GateBaseline.self, from: Data(json.utf8))
    foreign.machine.processor = Processor(
      model: "Intel(R) Xeon(R) Processor", l1dBytes: 48 << 10, l2Bytes: 4 << 20, l3Bytes: 260 << 20)
    let fetchRatio = try #require(
      foreign.figures.firstIndex { $0.name == "banks/memory/perform_fetch/batched_over_full_time" })
    foreign.figures[fetchRatio].value /= 10
    try GateRun.writeBaseline(foreign, to: dir + "/foreign.json")
    let elsewhere = try TestSupport.run(["check", "--baseline", dir + "/foreign.json"] + common.dropLast(2))
    #expect(elsewhere.status == 0, "\(elsewhere.stdout)\n\(elsewhere.stderr)")
    #expect(
      elsewhere.stdout.split(separator: "\n").contains {
        $0.hasPrefix("| `banks/memory/perform_fetch/batched_over_full_time`")
          && $0.hasSuffix("| not judged: other processor |")
      }, "\(elsewhere.stdout)")
    #expect(
      elsewhere.stdout.contains(
        "note: the baseline was recorded on Intel(R) Xeon(R) Processor (L1d 48 KiB, L2 4 MiB, L3 260 MiB)"))

    try Data(json.replacingOccurrences(of: "\"cores\" : 2", with: "\"cores\" : 64").utf8).write(
      to: URL(fileURLWithPath: dir + "/other.json"))
    let other = try TestSupport.run(["check", "--baseline", dir + "/other.json"] + common.dropLast(2))
    #expect(other.status == 3 && other.stdout.contains("another machine kind"), "\(other.stdout)")
    try Data("{not json".utf8).write(to: URL(fileURLWithPath: dir + "/broken.json"))
    let broken = try TestSupport.run(["check", "--baseline", dir + "/broken.json"] + common.dropLast(2))
    #expect(broken.status == 3 && broken.stdout.contains("is not a readable baseline"), "\(broken.stdout)")
    // A dataset edited after the baseline is another dataset: cannot judge (3), before any
    // measuring, rather than a regression (2).
    let queue = try DatabaseQueue(path: dir + "/datasets/banks-2000.sqlite")
    try queue.write { try $0.execute(sql: "UPDATE failed_bank_info SET name = 'Edited' WHERE id = 7") }
    try queue.close()
    let edited = try TestSupport.run(["check"] + common)
    #expect(
      edited.status == 3 && edited.stdout.contains("dataset banks-2000 has checksum"),
      "\(edited.stdout)\n\(edited.stderr)")
    #expect(!edited.stderr.contains("[1/"), "judged before measuring: \(edited.stderr)")
  }
}
