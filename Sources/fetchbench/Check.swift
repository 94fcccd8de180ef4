import ArgumentParser
import Catalog
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import TextFormatting
import Vocabulary

struct Check: CheckedCommand {
  static let configuration = CommandConfiguration(
    abstract: "The regression gate: measure a matrix of lists and compare with a baseline.",
    discussion: """
      Gated: exact counters (queries, rows materialized, change-set sizes), heap figures within a \
      few percent, and time ratios measured in one process with interleaved repetitions, within \
      a tolerance derived from their spread. Absolute times are never gated.

      Counters and heap figures are judged on any machine of the baseline's kind. A time ratio \
      of unlike work is judged only on the baseline's processor (model and cache sizes), and \
      no ratio is judged when other processes kept the machine busy during its case: those \
      lines read "not judged" with the reason.

      The matrix is a JSON file of lists: {"lists": [{"name": "inbox", "db": "App.sqlite", "entity": "ZMESSAGE", \
      "sort": "date desc", "strategies": ["batched", "keyset"], "stores": ["sqlite"]}, {"dataset": "banks", \
      "rows": 50000, "changes": true}]}. A list is a generated dataset ("dataset", "rows") or a database of \
      yours ("db", a path from the folder check runs in, "entity", "relationships"), with "sort", \
      "section" and "where" as fetch takes them, \
      "strategies" measured against a full fetch (default batched), "stores" (default memory and sqlite) and, \
      for banks, "changes" (change sets of seeded transactions). A baseline records the lists it was \
      measured for: a list measured otherwise cannot be judged until --update records it again.

      Example:
        fetchbench check --matrix ci/lists.json --update   # record, once
        fetchbench check --matrix ci/lists.json            # exit 2 on a regression

      Exit codes: 0 within tolerance, 2 regression, 3 cannot judge (no baseline, another \
      matrix, other datasets, another machine kind, or nothing judged), 4 improvement beyond tolerance with \
      --fail-on-improvement, 1 error.
      """)

  var checked = CheckedOptions<GateOptions>()

  @Option(
    help: ArgumentHelp(
      """
      The lists to gate, a JSON file (docs/ci/matrix.json shows one; default \(GateOptions.projectMatrixPath), the \
      project's own).
      """,
      valueName: "file"))
  var matrix: String?
  @Option(
    help:
      """
      The baseline file (default \(GateOptions.projectBaselinePath), or beside --matrix FILE: FILE's name with \
      .baseline.json).
      """
  )
  var baseline: String?
  @Flag(help: "Record the baseline instead of comparing (from --update-runs runs of the matrix).") var update = false
  @Option(
    parsing: .unconditional,
    help:
      """
      Runs of the matrix --update combines, so that tolerances reflect run-to-run spread \
      \(OptionRange.help(OptionRange.updateRuns)).
      """
  )
  var updateRuns = 3
  @Option(
    parsing: .unconditional,
    help: "The batch size, in place of the matrix's (default 20) \(OptionRange.help(OptionRange.batchSize)).")
  var batchSize: Int?
  @Option(
    parsing: .unconditional,
    help: "Rows of each generated list, in place of the matrix's \(OptionRange.help(OptionRange.generatedListRows)).")
  var rows: Int?
  @Option(
    parsing: .unconditional,
    help:
      """
      Interleaved repetitions per figure after one warm-up, in place of the matrix's (default 15) \
      \(OptionRange.help(OptionRange.checkRepetitions)).
      """
  )
  var repetitions: Int?
  @Option(
    help:
      """
      Only these of the lists' stores, comma-separated: memory, sqlite, sqlite-coredata, postgres (its server must \
      run: scripts/postgres start).
      """
  )
  var store: String?
  @Flag(help: "Compare with a baseline recorded on another machine kind.") var allowOtherMachine = false
  @Flag(help: "Exit 4 when a figure improved beyond tolerance, so that the baseline gets updated.")
  var failOnImprovement = false
  @OptionGroup var datasetsFolder: DatasetsFolderOption
  var datasets: String { datasetsFolder.datasets }
  @OptionGroup var postgres: PostgresOptions

  func validate() throws {
    if let batchSize { try OptionValue.check(batchSize, in: OptionRange.batchSize, "batch-size") }
    if let rows { try OptionValue.check(rows, in: OptionRange.generatedListRows, "rows") }
    // At least 3: the spread needs quartiles.
    if let repetitions { try OptionValue.check(repetitions, in: OptionRange.checkRepetitions, "repetitions") }
    if let store { _ = try OptionValue.kinds(store, "store") as [StoreKind] }
    try OptionValue.check(updateRuns, in: OptionRange.updateRuns, "update-runs")
  }

  /// The options, the matrix read: its errors are the file's, not a bad argument's.
  func options() throws -> GateOptions {
    var options = GateOptions()
    options.matrixPath = matrix ?? GateOptions.projectMatrixPath
    options.matrix = try GateLists.read(options.matrixPath)
    options.baselinePath =
      baseline ?? matrix.map(GateOptions.baselinePath(forMatrix:)) ?? GateOptions.projectBaselinePath
    options.update = update
    (options.batchSizeOverride, options.rowsOverride, options.repetitionsOverride) = (batchSize, rows, repetitions)
    options.stores = try store.map { try OptionValue.kinds($0, "store") }
    options.updateRuns = updateRuns
    options.allowOtherMachine = allowOtherMachine
    options.failOnImprovement = failOnImprovement
    options.datasetsDirectory = datasets
    return options
  }

  func run() throws {
    Interrupts.install()
    try postgres.apply()
    let code = try GateCheck.run(try checkedOptions(), log: Command.log) { print($0) }
    if code != 0 { throw ExitCode(code) }
  }
}
