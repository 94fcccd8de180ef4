import FetchBenchKit
import Foundation
import GRDB
import TestSupport
import Testing

/// The regression gate's comparator on recorded figures, and the gate end to end.
@Suite struct GateComparison {
  let machine = MachineKind(cores: 2, os: "Debian GNU/Linux 12 (bookworm)", swiftVersion: "Swift version 6.3.1", memoryBytes: 1 << 34)
  let datasets = ["banks-50000": "abc", "wells-50000": "def"]

  var baseline: GateBaseline {
    GateBaseline(
      machine: machine, datasets: datasets, batchSize: 20, rows: 50_000,
      figures: [
        GateFigure(name: "banks/sqlite/first_screen/batched/queries", kind: .counter, value: 2, unit: "count", tolerance: 0),
        GateFigure(
          name: "banks/sqlite/first_screen/batched/heap_live_bytes", kind: .heap, value: 1_000_000, unit: "bytes", tolerance: 0.05),
        GateFigure(
          name: "banks/sqlite/first_screen/batched_over_full_time", kind: .ratio, value: 0.5, unit: "ratio", tolerance: 0.15, spread: 0.02),
      ])
  }

  func run(
    _ values: [Double], dropLast: Bool = false, machine m: MachineKind? = nil, datasets d: [String: String]? = nil, allow: Bool = false
  ) -> GateReport {
    var now = baseline.figures
    for i in now.indices { now[i].value = values[i] }
    if dropLast { now.removeLast() }
    return GateComparator.compare(baseline: baseline, now: now, machine: m ?? machine, datasets: d ?? datasets, allowOtherMachine: allow)
  }

  @Test func withinToleranceExitsZero() {
    let r = run([2, 1_040_000, 0.56])
    #expect(r.exitCode(failOnImprovement: true) == 0)
    #expect(r.lines.allSatisfy { $0.verdict == .within })
    #expect(r.markdown().contains("| `banks/sqlite/first_screen/batched/queries` | counter | 2 | 2 | +0.0% | exact | ok |"))
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

  @Test func aRatioRegressionMustReproduceWhenReMeasured() {
    // Over tolerance once, within the second time: a transient, judged on the lower value.
    var transient = run([2, 1_000_000, 0.7])
    #expect(transient.exitCode(failOnImprovement: false) == 2)
    transient.judgeRemeasured([GateFigure(name: baseline.figures[2].name, kind: .ratio, value: 0.52, unit: "ratio", tolerance: 0.15)])
    #expect(transient.exitCode(failOnImprovement: false) == 0)
    #expect(transient.lines[2].now == 0.52 && transient.lines[2].verdict == .within)
    #expect(transient.notes.contains { $0.contains("was 0.700, re-measured 0.520: regression not confirmed") })

    // Over tolerance both times: a regression, at the lower of the two.
    var real = run([3, 1_000_000, 0.7])
    real.judgeRemeasured([
      GateFigure(name: baseline.figures[2].name, kind: .ratio, value: 0.66, unit: "ratio", tolerance: 0.15),
      GateFigure(name: baseline.figures[0].name, kind: .counter, value: 2, unit: "count", tolerance: 0),
    ])
    #expect(real.lines[2].now == 0.66 && real.lines[2].verdict == .regression)
    #expect(real.notes.contains { $0.contains("regression confirmed") })
    // Only time ratios are re-judged: a counter is exact, a second run cannot excuse it.
    #expect(real.lines[0].verdict == .regression && real.lines[0].now == 3)
  }

  /// End to end: record a baseline, then run the gate as a user who set batch size 1 would:
  /// the query counts regress and the gate exits 2 naming them. A broken or foreign baseline
  /// exits 3.
  @Test func batchSizeOneIsCaughtEndToEnd() throws {
    let dir = TestSupport.temporaryFolder("gate")
    defer { TestSupport.remove(dir) }
    // Memory and SQLite: the PostgreSQL rows run in `make check` against the committed baseline.
    let common = [
      "--rows", "2000", "--repetitions", "3", "--store", "memory,sqlite", "--datasets", dir + "/datasets", "--baseline", dir + "/ci.json",
    ]
    let record = try TestSupport.run(["check", "--update", "--update-runs", "2"] + common)
    #expect(record.status == 0, "\(record.stderr)")
    let json = try String(contentsOfFile: dir + "/ci.json", encoding: .utf8)
    #expect(json.contains("\"tolerance\"") && json.contains("banks/sqlite/first_screen/batched/queries"))

    let worse = try TestSupport.run(["check", "--batch-size", "1"] + common)
    #expect(worse.status == 2, "\(worse.stdout)\n\(worse.stderr)")
    #expect(worse.stdout.contains("| `banks/sqlite/first_screen/batched/queries` | counter | 2 | 21 |"), "\(worse.stdout)")
    #expect(worse.stdout.contains("regression(s): "))

    // A time ratio that regresses for real (a baseline ten times lower) is measured again in
    // a new child process, confirmed, and fails the gate.
    var tight = try JSONDecoder().decode(GateBaseline.self, from: Data(json.utf8))
    let diffRatio = try #require(tight.figures.firstIndex { $0.name == "banks/memory/diff_k100/our_diff_over_hash_index_time" })
    tight.figures[diffRatio].value /= 10
    try GateRun.writeBaseline(tight, to: dir + "/tight.json")
    let slower = try TestSupport.run(["check", "--baseline", dir + "/tight.json"] + common.dropLast(2))
    #expect(slower.status == 2, "\(slower.stdout)\n\(slower.stderr)")
    // (Other ratios of this tiny matrix may be re-measured too while other tests load the machine.)
    #expect(slower.stderr.contains("time ratio(s) over tolerance"), "\(slower.stderr)")
    #expect(
      slower.stdout.contains("`banks/memory/diff_k100/our_diff_over_hash_index_time` was ")
        && slower.stdout.contains("regression confirmed; judged on the lower"), "\(slower.stdout)")
    let verdictLine = slower.stdout.split(separator: "\n").first {
      $0.hasPrefix("| `banks/memory/diff_k100/our_diff_over_hash_index_time`")
    }
    #expect(verdictLine?.hasSuffix("| **REGRESSION** |") == true, "\(slower.stdout)")

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
    #expect(edited.status == 3 && edited.stdout.contains("dataset banks-2000 has checksum"), "\(edited.stdout)\n\(edited.stderr)")
    #expect(!edited.stderr.contains("[1/"), "judged before measuring: \(edited.stderr)")
  }
}
