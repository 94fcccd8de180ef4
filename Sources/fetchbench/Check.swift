import ArgumentParser
import Catalog
import Datasets
import FetchBenchKit
import Foundation

struct Check: CheckedCommand {
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

  func options() throws -> GateOptions {
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
    options.stores = try OptionValue.kinds(store, "store")
    guard updateRuns >= 1 else { throw ValidationError("--update-runs must be at least 1") }
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
