import ArgumentParser
import Catalog
import Datasets
import FetchBenchKit
import Foundation

struct Diff: CheckedCommand {
  static let configuration = CommandConfiguration(
    abstract: "Measure what keeping a list in sync costs: incremental change sets against whole-list diffs and refetching, on banks.")

  @Option(help: "Stores, comma-separated: memory, sqlite, postgres.") var store = "memory,sqlite"
  @Option(help: "Row counts, comma-separated; missing datasets are generated.") var rows = String(DatasetKind.defaultRows)
  @Option(name: .customLong("k"), help: "Transaction sizes (changed objects), comma-separated.") var k = "1,10,100,1000,10000"
  @Flag(help: "Skip the 10% edit (10% deleted, 10% inserted, 2% re-sorted).") var noEdit = false
  @Option(help: "Section variants: none (one list), state (sections by state), comma-separated.") var sections = "none,state"
  @Option(help: "The controller's batch size.") var batchSize = 20
  @Option(parsing: .unconditional, help: "Measured repetitions per case, after one warm-up.") var repetitions = 5
  @Option(help: "Seconds the standard library's diff may take before it is abandoned (reported as skipped).") var stdlibBudget = 10.0
  @Option(help: "Write the change sets of the (single) case as JSON lines: initial snapshot, one line per change set, final snapshot.")
  var emitChanges: String?
  @Flag(help: "memory and SQLite, k = 1 and 100, one list, 3 repetitions: a first look in about a minute.") var quick = false
  @Option(help: "Output folder (default: results/diff/runs/<UTC timestamp>, copied to results/diff/latest).") var out: String?
  @Option(help: "Datasets folder.") var datasets = "datasets"
  @OptionGroup var memory: MemoryCeilingOption
  @OptionGroup var sittings: ResumeOptions
  @OptionGroup var postgres: PostgresOptions

  /// What to measure, from the options; every check that needs no measuring is here.
  func options() throws -> RunOptions {
    var options = RunOptions.diff()
    try sittings.apply(to: &options)
    options.stores = try OptionValue.kinds(store, "store")
    options.rows = try OptionValue.rowCounts(rows)
    options.diffKs = try OptionValue.positiveInts(k, "k")
    options.diffEdit = !noEdit
    options.diffSections = try OptionValue.items(sections, "sections").map {
      switch $0 {
      case "none": return false
      case "state": return true
      default: throw ValidationError("--sections: '\($0)' is neither none nor state")
      }
    }
    guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
    options.batchSizes = [batchSize]
    guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
    options.repetitions = repetitions
    guard stdlibBudget > 0 else { throw ValidationError("--stdlib-budget must be positive") }
    if quick {
      options.diffKs = [1, 100]
      options.diffEdit = false
      options.diffSections = [false]
      options.repetitions = 3
    }
    for n in options.rows {
      for kk in options.diffKs ?? [] where kk * 2 > n {
        throw ValidationError("--k \(kk) changes more than half of \(n) rows; pick k ≤ \(n / 2)")
      }
    }
    options.resultsDirectory = "results/diff"
    options.datasetsDirectory = datasets
    if let emitChanges {
      guard options.cases().count == 1 else {
        throw ValidationError(
          "--emit-changes writes one case's change sets; narrow the run to one (e.g. --store sqlite --k 100 --no-edit --sections none); it has \(options.cases().count)"
        )
      }
      options.emitChanges = URL(fileURLWithPath: emitChanges).standardizedFileURL.path
    }
    options.memoryCeiling = try memory.bytes()
    return options
  }

  func run() throws {
    setenv("FETCHBENCH_STDLIB_BUDGET_S", String(stdlibBudget), 1)
    try Command.measure(try options(), out: out, postgres: postgres, extra: emitChanges.map { "wrote \($0)" })
  }
}
