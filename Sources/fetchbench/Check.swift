import ArgumentParser
import Datasets
import FetchBenchKit
import Foundation

struct Check: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The regression gate: run the CI matrix and compare with a baseline.",
    discussion: """
      Gated: exact counters (queries, rows materialized, change-set sizes), heap figures within a few
      percent, and time ratios measured in one process with interleaved repetitions, within a
      tolerance derived from their spread. Absolute times are never gated.
      Exit codes: 0 within tolerance, 2 regression, 3 cannot judge (no baseline, other datasets,
      another machine kind), 4 improvement beyond tolerance with --fail-on-improvement, 1 error.
      """)

  @Option(help: "The baseline file.") var baseline = "results/baselines/ci.json"
  @Flag(help: "Record the baseline instead of comparing (from --update-runs runs of the matrix).") var update = false
  @Option(help: "Runs of the matrix --update combines, so that tolerances reflect run-to-run spread.") var updateRuns = 3
  @Option(help: "The batch size to run the matrix with (the baseline's is 20).") var batchSize = 20
  @Option(help: "Rows per dataset.") var rows = 50_000
  @Option(parsing: .unconditional, help: "Interleaved repetitions per figure, after one warm-up.") var repetitions = 15
  @Option(help: "Stores, comma-separated: memory, sqlite, postgres (its server must run: scripts/postgres start).")
  var store = "memory,sqlite,postgres"
  @Flag(help: "Compare with a baseline recorded on another machine kind.") var allowOtherMachine = false
  @Flag(help: "Exit 4 when a figure improved beyond tolerance, so that the baseline gets updated.") var failOnImprovement = false
  @Option(help: "Datasets folder.") var datasets = "datasets"
  @OptionGroup var postgres: PostgresOptions

  func run() throws {
    Interrupts.install()
    try postgres.apply()
    var options = GateOptions()
    options.baselinePath = baseline
    options.update = update
    guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
    options.batchSize = batchSize
    guard rows >= 1_000, rows <= DatasetKind.maxRows else {
      throw ValidationError("--rows must be between 1,000 and \(DatasetKind.maxRows.grouped)")
    }
    options.rows = rows
    guard repetitions >= 3 else { throw ValidationError("--repetitions must be at least 3 (the spread needs quartiles)") }
    options.repetitions = repetitions
    options.stores = try store.split(separator: ",").map {
      guard let s = StoreKind(rawValue: String($0)) else {
        throw ValidationError("unknown store '\($0)'; expected memory, sqlite or postgres")
      }
      return s
    }
    options.datasetsDirectory = datasets
    let log: @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }

    // Read the baseline first: a broken one should fail before minutes of measuring.
    var recorded: GateBaseline?
    if !update {
      do {
        recorded = try GateRun.loadBaseline(baseline)
      } catch {
        print("cannot judge: \(error)")
        throw ExitCode(3)
      }
    }
    guard updateRuns >= 1 else { throw ValidationError("--update-runs must be at least 1") }
    let machine = MachineKind.current()
    if let recorded {
      // Judged before minutes of measuring: another row count, machine kind or dataset (the
      // checksums read from the files, so an edited dataset is another dataset).
      if recorded.rows != rows {
        print("cannot judge: the baseline was recorded with --rows \(recorded.rows), this run used \(rows)")
        throw ExitCode(3)
      }
      let early = GateComparator.compare(
        baseline: recorded, now: [], machine: machine, datasets: try GateRun.datasetChecksums(options), allowOtherMachine: allowOtherMachine
      )
      if let why = early.cannotJudge {
        print("cannot judge: \(why)")
        throw ExitCode(3)
      }
    }
    if update {
      var runs: [[GateFigure]] = []
      var checksums: [String: String] = [:]
      for r in 1...updateRuns {
        log("baseline run \(r) of \(updateRuns)")
        let m = try GateRun.measure(options, log: log)
        runs.append(m.figures)
        checksums = m.datasets
      }
      let b = GateBaseline(machine: machine, datasets: checksums, batchSize: batchSize, rows: rows, figures: try GateFigure.combine(runs))
      try GateRun.writeBaseline(b, to: baseline)
      print("wrote \(baseline): \(b.figures.count) figures from \(updateRuns) run(s) on \(machine)")
      return
    }
    let measured = try GateRun.measure(options, log: log)
    // Figures of stores left out with --store are not judged (they are not regressions).
    var judged = recorded
    let measuredStores = Set(options.stores.map(\.rawValue))
    judged?.figures.removeAll { f in f.name.split(separator: "/").dropFirst().first.map { !measuredStores.contains(String($0)) } ?? false }
    var report = GateComparator.compare(
      baseline: judged, now: measured.figures, machine: machine, datasets: measured.datasets, allowOtherMachine: allowOtherMachine)
    if let recorded, let judged, judged.figures.count < recorded.figures.count {
      report.notes.append(
        "\(recorded.figures.count - judged.figures.count) baseline figures of stores not measured (--store) were not judged")
    }
    if let why = report.cannotJudge {
      print("cannot judge: \(why)")
      throw ExitCode(3)
    }
    report.notes += measured.busyCases.map { "busy machine during \($0)" }
    try GateRun.confirmRatioRegressions(&report, measured, options, log: log)
    print(
      "# fetchbench check: \(rows.grouped) rows, batch size \(batchSize) (baseline: \(recorded!.batchSize)), \(repetitions) interleaved repetitions\n"
    )
    for n in report.notes { print("note: \(n)\n") }
    print(report.markdown())
    let code = report.exitCode(failOnImprovement: failOnImprovement)
    switch code {
    case 0: print("\nall \(report.lines.count) figures within tolerance (\(report.improvements.count) improved)")
    case 2: print("\n\(report.regressions.count) regression(s): " + report.regressions.map { "`\($0.name)`" }.joined(separator: ", "))
    case 4:
      print(
        "\n\(report.improvements.count) figure(s) improved beyond tolerance; update the baseline with --update: "
          + report.improvements.map { "`\($0.name)`" }.joined(separator: ", "))
    default: break
    }
    if code != 0 { throw ExitCode(code) }
  }
}
