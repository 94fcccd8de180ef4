import ArgumentParser
import Catalog
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

struct Diff: CheckedCommand {
  static let configuration = CommandConfiguration(
    abstract:
      """
      Measure what keeping a list in sync costs: incremental change sets against whole-list diffs and refetching, on \
      banks.
      """
  )

  var checked = CheckedOptions<RunOptions>()

  @Option(help: "Stores, comma-separated: memory, sqlite, postgres.") var store =
    "memory,sqlite"
  @Option(
    help: "Row counts, comma-separated; missing datasets are generated (default: \(DatasetKind.defaultRows.grouped)).")
  var rows: String?
  @Option(
    name: .customLong("k"),
    help:
      """
      Transaction sizes (changed objects), comma-separated, each at most half the rows; default 1,10,100,1000,10000 \
      (1,100 with --quick), those up to half the list's rows.
      """
  )
  var k: String?
  @Flag(help: "Skip the 10% edit (10% deleted, 10% inserted, 2% re-sorted).") var noEdit = false
  @Option(
    help:
      """
      Section variants: none (one list), state (sections by state), comma-separated; default none,state, none with \
      --quick.
      """
  )
  var sections: String?
  @Option(parsing: .unconditional, help: "The controller's batch size \(OptionRange.help(OptionRange.batchSize)).")
  var batchSize = 20
  @OptionGroup var measure: MeasureOptions
  @Option(
    parsing: .unconditional,
    help:
      """
      Seconds the standard library's diff may take before it is abandoned (reported as skipped) \
      \(OptionRange.help(OptionRange.stdlibBudget)).
      """
  )
  var stdlibBudget = 10.0
  @Option(
    help:
      """
      Write the change sets of the (single) case as JSON lines: initial snapshot, one line per change set, final \
      snapshot.
      """
  )
  var emitChanges: String?
  @Flag(
    help:
      """
      k = 1 and 100, one list, no 10% edit, 3 repetitions: a first look in about a minute (an option given \
      explicitly wins).
      """
  )
  var quick = false
  @Option(help: "Output folder (default: results/diff/runs/<UTC timestamp>, copied to results/diff/latest).") var out:
    String?
  @OptionGroup var datasetsFolder: DatasetsFolderOption
  var datasets: String { datasetsFolder.datasets }
  @Option(
    help:
      """
      fetchbench, or coredata: keep banks in sync on its file in Core Data's schema (one --rows; written when \
      missing; sections: none,section).
      """
  ) var schema = PhysicalSchema.fetchbench.rawValue
  @OptionGroup var memory: MemoryCeilingOption
  @OptionGroup var sittings: ResumeOptions
  @OptionGroup var postgres: PostgresOptions
  @OptionGroup var sqlDebug: SQLDebugOption
  @OptionGroup var database: DatabaseOptions
  @Option(help: "With --db: the table or Core Data entity whose list is kept in sync.") var entity: String?
  @Option(help: "With --db: the list's sort descriptors, as fetch takes them (default: by primary key).") var sort:
    String?
  @Option(help: "With --db: the key path the sectioned list is grouped by (--sections section).") var section: String?

  /// What to measure, from the options; every check that needs no measuring is here.
  func options() throws -> RunOptions {
    var options = RunOptions.diff()
    try sittings.apply(to: &options)
    if sqlDebug.sqlDebug { options.warmups = 0 }
    options.stores = try OptionValue.kinds(store, "store")
    if options.stores.contains(.sqliteCoreData) {
      throw ValidationError(
        """
        --store sqlite-coredata: diff applies Core Data's change rules beside the minimal ones on every store, \
        tracking changes with FetchBench's statements; use --store sqlite
        """
      )
    }
    options.rows = try OptionValue.rowCounts(rows ?? String(DatasetKind.defaultRows))
    let ownList = try applyList(to: &options)
    var diff = try transactions(sectioned: ownList ? "section" : "state")
    try OptionValue.check(batchSize, in: OptionRange.batchSize, "batch-size")
    options.batchSizes = [batchSize]
    options.repetitions = try measure.checkedRepetitions(or: quick ? 3 : 5)
    options.processes = try measure.checkedProcesses()
    try OptionValue.check(stdlibBudget, in: OptionRange.stdlibBudget, "stdlib-budget")
    try fit(&diff, to: options.rows)
    options.workload = .changes(diff)
    options.resultsDirectory = "results/diff"
    options.datasetsDirectory = datasets
    try applyEmitChanges(&diff, to: &options)
    options.memoryCeiling = try memory.bytes()
    return options
  }

  /// The list kept in sync: the user's database's (`--db`, `--model`), or a generated
  /// dataset's in Core Data's schema (`--schema coredata`), or the dataset's own. Returns
  /// whether the list is other than the dataset's own (its sections are its `--section`'s).
  func applyList(to options: inout RunOptions) throws -> Bool {
    let db = try database.database(
      entity: entity, rows: database.model == nil ? nil : options.rows.first, datasets: datasets)
    if try OptionValue.kind(schema, "schema") as PhysicalSchema == .coreData {
      guard db == nil else {
        throw ValidationError("--schema coredata reads a generated dataset's file; --db names your own")
      }
      guard entity == nil && sort == nil && section == nil else {
        throw ValidationError(
          "--schema coredata keeps the dataset's own list; --entity, --sort and --section are for --db")
      }
      guard options.rows.count == 1, let n = options.rows.first else {
        throw ValidationError("--schema coredata keeps one file in sync: give one --rows")
      }
      options.datasetsDirectory = datasets
      try options.useCoreDataFile(.banks, rows: n)
      return true
    }
    guard let db else {
      if entity != nil || sort != nil || section != nil {
        throw ValidationError("--entity, --sort and --section describe a list of your own database: give --db FILE")
      }
      return false
    }
    if try db.server != nil { throw UserDatabaseError.serverReadOnly(db.path, "diff, which writes,") }
    guard rows == nil || database.model != nil else {
      throw ValidationError(
        """
        --rows does not apply to --db: the list has the table's own rows; for another size, make a file with \
        `fetchbench generate --like`
        """
      )
    }
    // Writes go to a private copy of the file; the user's is only read.
    try database.apply(
      db, entity: entity, list: ListSpec.Text(sort: sort, section: section), sectionLeads: false, to: &options)
    return true
  }

  /// The transactions' sizes, edits and sections; `--quick` narrows only what was not asked
  /// for. `sectioned`: the name `--sections` gives the sectioned list.
  func transactions(sectioned: String) throws -> DiffOptions {
    var diff = DiffOptions()
    diff.ks = try OptionValue.ints(k ?? (quick ? "1,100" : "1,10,100,1000,10000"), "k", in: OptionRange.transactionSize)
    diff.edit = !noEdit && !quick
    diff.sections = try OptionValue.items(sections ?? (quick ? "none" : "none,\(sectioned)"), "sections").map {
      switch $0 {
      case "none": return false
      case sectioned: return true
      default: throw ValidationError("--sections: '\($0)' is neither none nor \(sectioned)")
      }
    }
    return diff
  }

  /// The default sizes fitted to the list (those up to half of its smallest row count); a
  /// size asked for that changes more than half of a list is refused.
  func fit(_ diff: inout DiffOptions, to rowCounts: [Int]) throws {
    if k == nil {
      let half = (rowCounts.min() ?? 0) / 2
      diff.ks = diff.ks.filter { $0 <= half }
      guard !diff.ks.isEmpty || diff.edit else {
        throw ValidationError("the list has \(rowCounts.min() ?? 0) row(s): a change set needs at least 2")
      }
    }
    for n in rowCounts {
      for kk in diff.ks where kk > n / 2 {
        throw ValidationError("--k \(kk) changes more than half of \(n) rows; pick k ≤ \(n / 2)")
      }
    }
  }

  /// `--emit-changes FILE`: one case's change sets, to a file that does not exist yet.
  func applyEmitChanges(_ diff: inout DiffOptions, to options: inout RunOptions) throws {
    guard let emitChanges else { return }
    guard options.cases().count == 1 else {
      throw ValidationError(
        """
        --emit-changes writes one case's change sets; narrow the run to one (e.g. --store sqlite --k 100 --no-edit \
        --sections none); it has \(options.cases().count)
        """
      )
    }
    diff.emitChanges = URL(fileURLWithPath: emitChanges).standardizedFileURL.path
    options.workload = .changes(diff)
    try AtomicFile.checkNewFile(emitChanges)
  }

  func run() throws {
    sqlDebug.apply()
    CommandSettings.update { $0.stdlibBudget = stdlibBudget }
    try Command.measure(try checkedOptions(), out: out, postgres: postgres, extra: emitChanges.map { "wrote \($0)" })
  }
}
