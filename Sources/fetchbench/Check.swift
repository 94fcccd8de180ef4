import ArgumentParser
import Catalog
import Datasets
import FetchBenchKit
import Foundation

struct Check: CheckedCommand {
  static let configuration = CommandConfiguration(
    abstract: "The regression gate: run the CI matrix and compare with a baseline.",
    discussion: """
      Gated: exact counters (queries, rows materialized, change-set sizes), heap figures within a \
      few percent, and time ratios measured in one process with interleaved repetitions, within \
      a tolerance derived from their spread. Absolute times are never gated.

      Counters and heap figures are judged on any machine of the baseline's kind. A time ratio \
      of unlike work is judged only on the baseline's processor (model and cache sizes), and \
      no ratio is judged when other processes kept the machine busy during its case: those \
      lines read "not judged" with the reason.

      Exit codes: 0 within tolerance, 2 regression, 3 cannot judge (no baseline, other \
      datasets, another machine kind, or nothing judged), 4 improvement beyond tolerance with \
      --fail-on-improvement, 1 error.
      """)

  @Option(help: "The baseline file.") var baseline = "results/baselines/ci.json"
  @Flag(help: "Record the baseline instead of comparing (from --update-runs runs of the matrix).") var update = false
  @Option(
    help: "Runs of the matrix --update combines, so that tolerances reflect run-to-run spread \(OptionRange.help(OptionRange.updateRuns)).")
  var updateRuns = 3
  @Option(help: "The batch size to run the matrix with (the baseline's is 20) \(OptionRange.help(OptionRange.batchSize)).")
  var batchSize = 20
  @Option(parsing: .unconditional, help: "Rows per dataset (1,000 to \(DatasetKind.maxRows.grouped)).") var rows = 50_000
  @Option(
    parsing: .unconditional,
    help: "Interleaved repetitions per figure, after one warm-up \(OptionRange.help(OptionRange.checkRepetitions)).")
  var repetitions = 15
  @Option(help: "Stores, comma-separated: memory, sqlite, postgres (its server must run: scripts/postgres start).")
  var store = "memory,sqlite,postgres"
  @Flag(help: "Compare with a baseline recorded on another machine kind.") var allowOtherMachine = false
  @Flag(help: "Exit 4 when a figure improved beyond tolerance, so that the baseline gets updated.") var failOnImprovement = false
  @Option(help: "Datasets folder.") var datasets = "datasets"
  @OptionGroup var postgres: PostgresOptions

  func options() throws -> GateOptions {
    var options = GateOptions()
    options.baselinePath = baseline
    options.update = update
    try OptionValue.check(batchSize, in: OptionRange.batchSize, "batch-size")
    options.batchSize = batchSize
    try OptionValue.check(rows, in: 1_000...DatasetKind.maxRows, "rows")
    options.rows = rows
    // At least 3: the spread needs quartiles.
    try OptionValue.check(repetitions, in: OptionRange.checkRepetitions, "repetitions")
    options.repetitions = repetitions
    options.stores = try OptionValue.kinds(store, "store")
    try OptionValue.check(updateRuns, in: OptionRange.updateRuns, "update-runs")
    options.updateRuns = updateRuns
    options.allowOtherMachine = allowOtherMachine
    options.failOnImprovement = failOnImprovement
    options.datasetsDirectory = datasets
    return options
  }

  func run() throws {
    Interrupts.install()
    try postgres.apply()
    let code = try GateCheck.run(try options(), log: Command.log) { print($0) }
    if code != 0 { throw ExitCode(code) }
  }
}
