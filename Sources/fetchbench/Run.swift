import ArgumentParser
import Catalog
import ChildProcesses
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import Reports
import ResultModel
import SQLQueries
import TextFormatting
import Vocabulary

struct Run: CheckedCommand {
  static let configuration = CommandConfiguration(
    abstract:
      """
      Measure a list read four ways (full fetch, batched faulting, offset and keyset pages) per store and dataset, \
      or your own list; write CSV, JSON and a Markdown report.
      """
  )

  var checked = CheckedOptions<RunOptions>()

  @Option(help: "Datasets: banks, wells, or all (comma-separated; default all, banks with --quick).") var dataset:
    String?
  @Option(
    help:
      """
      Stores, comma-separated: memory, sqlite, sqlite-coredata (SQLite issuing Core Data's statements), postgres \
      (default memory,sqlite,sqlite-coredata; memory,sqlite for a --db file of an app's own schema, memory,postgres \
      for one on a server).
      """
  )
  var store: String?
  @Option(help: "Modes, comma-separated: full, batched, offset, keyset (pages of the batch size).") var mode =
    "full,batched,offset,keyset"
  @Option(
    help:
      """
      Batch sizes to sweep, comma-separated \(OptionRange.help(OptionRange.batchSize)) (default: 20; with \
      --recommend or every scenario, batched faulting's first screen and first 1,000 rows also at \
      \(RunOptions.defaultBatchSweep.map(String.init).joined(separator: ",")), so that the answer's batch size is \
      measured; 20 alone with --quick or --scenario).
      """
  ) var batchSize: String?
  @Option(
    help: "Row counts, comma-separated; missing datasets are generated (default: \(DatasetKind.defaultRows.grouped)).")
  var rows: String?
  @Option(help: "Scenarios, comma-separated (default: all).") var scenario: String?
  @OptionGroup var measure: MeasureOptions
  @Flag(help: "Skip the index advice: SQLite with each candidate index of the lists.") var noIndex = false
  @Flag(
    help:
      """
      Banks only, no index variant, four scenarios, 3 repetitions: on a 2-core machine of this project's kind, the \
      first answer 29–33 s after it starts and the last 150–165 s (two runs of scripts/time-first-answer).
      """
  ) var quick = false
  @Option(
    parsing: .unconditional,
    help:
      """
      The live heap an open list may hold, in MiB \(OptionRange.help(OptionRange.memoryBudgetMiB)): the report's \
      recommendation and scaling lines hold to it.
      """
  )
  var memoryBudget: Double = RunSettings.defaultMemoryBudget / 1_048_576
  @Option(
    parsing: .unconditional,
    help:
      """
      The time a list may take to open and still count as one frame, in ms \
      \(OptionRange.help(OptionRange.frameBudgetMs)) (default: 16.7, 60 Hz; 8.3 for 120 Hz): the recommendation, \
      charts and scaling lines hold to it.
      """
  )
  var frameBudgetMs: Double = RunSettings.defaultFrameMs
  @Option(
    help: "Sort descriptors of your list, e.g. 'state asc, name asc localizedStandardCompare:' (as fetch takes them).")
  var sort: String?
  @Option(help: "Section key path of your list; it must be the first sort key.") var section: String?
  @Option(
    help: """
      What your list's cell shows, as fetch takes it ('name, details.closeDate'): the cells scenarios fill it, \
      faulting each relationship it reads against the same cells prefetched.
      """)
  var cell: String?
  /// `--cell`'s key paths.
  var cells: [String]? {
    cell.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
  }
  @OptionGroup var filter: PredicateOptions
  @OptionGroup var localeOption: LocaleOption
  var predicate: String? { filter.predicate }
  @Flag(
    help:
      """
      Print only the recommendation (strategy, batch size, index, and the figures behind them) for each store and \
      size, each as soon as its cases are measured; with no --scenario, the scenarios it reads.
      """
  ) var recommend = false
  @Flag(help: "With --recommend: print the recommendation as JSON (as the run folder's recommendation.json).")
  var json = false
  @Flag(
    help:
      """
      With several --rows: also measure each larger size's performFetch growth from the smallest in one process, the \
      two alternating (memory and SQLite); those cases' peak RSS then includes the smaller store.
      """
  ) var growth = false
  @Option(
    help:
      """
      Measure the K-th of N parts of the cases (K/N, N up to 1,000): parts balanced by expected cost and the same on \
      every machine, so N machines measure one sweep; `report` and `compare` take the N folders together.
      """
  )
  var shard: String?
  @Option(help: "Output folder (default: results/runs/<UTC timestamp>, copied to results/latest).") var out: String?
  @OptionGroup var datasetsFolder: DatasetsFolderOption
  var datasets: String { datasetsFolder.datasets }
  @OptionGroup var memory: MemoryCeilingOption
  @OptionGroup var sittings: ResumeOptions
  @OptionGroup var postgres: PostgresOptions
  @OptionGroup var sqlDebug: SQLDebugOption
  @OptionGroup var database: DatabaseOptions
  @Option(help: "With --db: the table or Core Data entity whose list is measured.") var entity: String?
  @Option(
    help:
      """
      fetchbench, or coredata: measure the dataset's file in Core Data's schema (one --dataset, one --rows; written \
      when missing).
      """
  ) var schema = PhysicalSchema.fetchbench.rawValue
  @Flag(
    help: ArgumentHelp(
      """
      With --db on a PostgreSQL server: try index candidates in a schema of FetchBench's own, on a copy of the \
      list's tables.
      """,
      discussion: "Needs CREATE on the database; the schema is dropped when the case ends. Your schema is only read."))
  var allowIndexTrials = false

  /// `--db`'s database, or `--model`'s store of `--rows` rows of `--entity`.
  var userDatabase: UserDatabase? {
    get throws {
      guard database.model != nil else { return try database.database }
      let count = try rows.map { text -> Int in
        guard let n = Int(text) else { throw ValidationError("--model takes one --rows count, got '\(text)'") }
        return n
      }
      return try database.database(entity: entity, rows: count, datasets: datasets)
    }
  }

  /// What to measure, from the options; every check that needs no measuring is here.
  func options() throws -> RunOptions {
    if json && !recommend { throw ValidationError("--json prints the recommendation as JSON: give --recommend too") }
    _ = try filter.checked()
    var options = RunOptions()
    try sittings.apply(to: &options)
    if let shard {
      guard let s = Shard(shard) else {
        throw ValidationError("--shard must be K/N with 1 ≤ K ≤ N ≤ 1,000 (e.g. 2/4), got '\(shard)'")
      }
      options.shard = s
    }
    if let dataset { options.datasets = try OptionValue.datasets(dataset) }
    let userDatabase = try self.userDatabase
    let onServer = try userDatabase?.server != nil
    let ownDatabase = userDatabase != nil
    // A Core Data store is measured with Core Data's statements beside the tuned ones.
    let coreData = try onServer ? false : userDatabase.map { try $0.schema().flavour == .coreData } ?? true
    let defaultStores =
      onServer ? "memory,postgres" : coreData ? "memory,sqlite,sqlite-coredata" : "memory,sqlite"
    options.stores = try OptionValue.kinds(store ?? defaultStores, "store")
    options.modes = try OptionValue.kinds(mode, "mode")
    if let batchSize {
      options.batchSizes = try OptionValue.ints(batchSize, "batch-size", in: OptionRange.batchSize)
    } else if recommend || scenario == nil {
      // The answer's batch size, measured: a run narrowed to some scenarios measures those.
      options.batchSweep = RunOptions.defaultBatchSweep
    }
    options.rows = try OptionValue.rowCounts(rows ?? String(DatasetKind.defaultRows))
    if let scenario { options.scenarios = try OptionValue.kinds(scenario, "scenario") }
    options.repetitions = try measure.checkedRepetitions(or: options.repetitions)
    options.processes = try measure.checkedProcesses()
    options.withIndex = !noIndex
    if sqlDebug.sqlDebug { options.warmups = 0 }
    options.growthInProcess = growth
    options.datasetsDirectory = datasets
    options.memoryCeiling = try memory.bytes()
    try OptionValue.check(memoryBudget, in: OptionRange.memoryBudgetMiB, "memory-budget")
    options.memoryBudget = memoryBudget * 1_048_576
    try OptionValue.check(frameBudgetMs, in: OptionRange.frameBudgetMs, "frame-budget-ms")
    options.frameBudgetMs = frameBudgetMs
    let physical: PhysicalSchema = try OptionValue.kind(schema, "schema")
    if physical == .coreData {
      try applyCoreDataSchema(to: &options)
    } else if let db = userDatabase {
      try applyDatabase(db, to: &options)
    } else if allowIndexTrials {
      throw ValidationError("--allow-index-trials needs --db on a PostgreSQL server")
    } else if entity != nil {
      throw ValidationError("--entity names a table of your own database: give --db FILE")
    } else if sort != nil || section != nil || predicate != nil || cell != nil {
      try applyDatasetList(to: &options)
    }
    // The answer's scenarios; with cells that read through a relationship, theirs too, so that
    // the answer says whether to prefetch it.
    if recommend && scenario == nil {
      options.scenarios = [.firstScreen, .scrollFirst1000, .firstScreenCells, .scrollFirst1000Cells]
    }
    if quick { applyQuick(to: &options, ownDatabase: ownDatabase) }
    if growth { try checkGrowth(options) }
    return options
  }

  /// `--sort`, `--section`, `--where` without `--db`: one dataset's list of the user's.
  func applyDatasetList(to options: inout RunOptions) throws {
    let text = try filter.request(sort: sort, section: section, cells: cells)
    // Key paths belong to one dataset's model: a list of your own is one dataset's.
    if dataset == nil { options.datasets = [.banks] }
    guard options.datasets.count == 1, let kind = options.datasets.first else {
      throw ValidationError(
        "--sort, --section, --where and --cell describe one dataset's list: give --dataset banks or --dataset wells")
    }
    do {
      let request = try ListSpec(parsing: text)
      _ = try request.apply(to: DatasetModels.defaultRequest(for: kind), of: kind)
      options.request = request
    } catch {
      throw ValidationError("\(kind.rawValue): \(error)")
    }
  }

  /// `--quick` narrows only what was not asked for.
  func applyQuick(to options: inout RunOptions, ownDatabase: Bool) {
    let (datasets, scenarios, repetitions) = (options.datasets, options.scenarios, options.repetitions)
    options.makeQuick()
    if dataset != nil || ownDatabase { options.datasets = datasets }
    if scenario != nil { options.scenarios = scenarios }
    if measure.repetitions != nil { options.repetitions = repetitions }
  }

  /// `--growth` adds figures only to performFetch, full or batched, on the memory store or
  /// SQLite, from a second row count: without those it would add nothing, silently.
  func checkGrowth(_ options: RunOptions) throws {
    guard Set(options.rows).count > 1 else {
      throw ValidationError(
        "--growth needs two or more --rows: it measures each larger size's growth from the smallest")
    }
    guard options.scenarios.contains(.performFetch), options.modes.contains(where: { $0 == .full || $0 == .batched }),
      options.stores.contains(where: { $0 != .postgres })
    else {
      throw ValidationError(
        """
        --growth measures performFetch, full or batched, on the memory store or SQLite: include them in \
        --scenario, --mode and --store
        """
      )
    }
  }

  /// `--db`: the list over the user's database replaces the datasets, at its table's row
  /// count (the index advice builds each candidate in a copy of the file).
  func applyDatabase(_ db: UserDatabase, to options: inout RunOptions) throws {
    guard dataset == nil else { throw ValidationError("--db replaces the datasets: drop --dataset") }
    // The list has the table's own rows; another size of it is another file.
    guard rows == nil || database.model != nil else {
      throw ValidationError(
        """
        --rows does not apply to --db: the list has the table's own rows; for another size, make a file with \
        `fetchbench generate --like`
        """
      )
    }
    var db = db
    if allowIndexTrials {
      guard try db.server != nil else {
        throw ValidationError(
          "--allow-index-trials is for a --db on a PostgreSQL server; a file's candidates are tried in copies of it")
      }
      db.allowsIndexTrials = true
    }
    try database.apply(
      db, entity: entity, list: try filter.request(sort: sort, section: section, cells: cells), to: &options)
  }

  /// `--schema coredata`: the dataset's list over its file in Core Data's schema, written
  /// from the dataset's own file when missing, measured as a list of a database.
  func applyCoreDataSchema(to options: inout RunOptions) throws {
    guard database.db == nil && database.model == nil else {
      throw ValidationError("--schema coredata reads a generated dataset's file; --db and --model name your own")
    }
    let kinds = dataset == nil ? [DatasetKind.banks] : options.datasets
    guard kinds.count == 1, let kind = kinds.first, options.rows.count == 1, let rows = options.rows.first else {
      throw ValidationError(
        "--schema coredata measures one dataset at one row count: give --dataset banks or wells and one --rows")
    }
    guard sort == nil && section == nil && predicate == nil else {
      throw ValidationError(
        "--schema coredata measures the dataset's own list; --sort, --section and --where are for --db")
    }
    try options.useCoreDataFile(kind, rows: rows)
  }

  func run() throws {
    sqlDebug.apply()
    guard recommend else {
      // The answer first: each list's recommendation (what the report's section says) as soon
      // as its cases are measured, between the progress lines; the rest after the last case.
      let stream = RecommendationStream()
      var headed = false
      // During the run unbuffered, so that an answer reaches a pipe when it is known; after
      // it through `print`, in order after the run's own last lines.
      func give(_ picks: [Recommendation], write: (String) -> Void) {
        for p in picks {
          if !headed { write("\nRecommendation (the report's recommendation section says how it is chosen):") }
          headed = true
          write("- " + p.text.wrapped(width: 78).split(separator: "\n").joined(separator: "\n  "))
        }
      }
      let outcome = try Command.measure(try checkedOptions(), out: out, postgres: postgres) { results, remaining in
        give(try stream.finished(results, remaining: remaining)) {
          FileHandle.standardOutput.write(Data(($0 + "\n").utf8))
        }
      }
      give(stream.rest(outcome.recommendation)) { print($0) }
      return
    }
    // Each list's answer as soon as its cases are in; JSON is one document, at the end.
    let stream = RecommendationStream()
    let outcome = try Command.measure(try checkedOptions(), out: out, postgres: postgres, quiet: true) {
      results, remaining in
      guard !json else { return }
      // Unbuffered: through a pipe too, each answer as it comes.
      for p in try stream.finished(results, remaining: remaining) {
        FileHandle.standardOutput.write(Data((p.text + "\n").utf8))
      }
    }
    // An empty list opens at once whatever the strategy: that is no answer to give.
    let firstScreens = outcome.rows.filter { $0.scenario == .scenario(.firstScreen) && $0.metric == .rowsMaterialized }
    if !firstScreens.isEmpty && firstScreens.allSatisfy({ $0.value == 0 }) {
      throw RecommendationError.emptyList(predicate: predicate, report: "\(outcome.directory)/report.md")
    }
    let picks = outcome.recommendation
    guard !picks.isEmpty else {
      throw RecommendationError.nothingFits(report: "\(outcome.directory)/report.md")
    }
    if json {
      print(String(decoding: try Recommendation.json(picks), as: UTF8.self))
    } else {
      for p in stream.rest(picks) { print(p.text) }
    }
  }
}

/// What every measuring command does around the harness.
enum Command {
  /// Progress lines go to standard error, results to standard output.
  static let log: @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }

  /// Runs `options`' cases into `out` and says what it wrote; exits 1 when a case failed.
  /// The folder is checked before minutes of measuring: one with the user's files is never
  /// replaced.
  /// `quiet`: what was written goes to standard error, leaving standard output to the caller.
  @discardableResult
  static func measure(
    _ options: RunOptions, out: String?, postgres: PostgresOptions, extra: String? = nil, quiet: Bool = false,
    caseEnded: (_ results: RunResults, _ remaining: ArraySlice<CaseSpec>) throws -> Void = { _, _ in }
  ) throws -> RunOutcome {
    Interrupts.install()
    try postgres.apply()
    var options = options
    options.outDirectory = try out.map { try OutputFolder.checkTarget($0, command: options.command) }
    let outcome = try Runner.run(options, log: log, caseEnded: caseEnded)
    if let stopped = outcome.stopped {
      log(
        """
        \(stopped.finished) of \(stopped.total) cases finished, kept in \(stopped.journal); the same command with \
        --resume continues the run
        """
      )
      throw ExitCode(75)
    }
    try finish(outcome, extra: extra, quiet: quiet)
    return outcome
  }

  /// Says what a run wrote, and exits 1 when a case failed.
  static func finish(_ outcome: RunOutcome, extra: String? = nil, quiet: Bool = false) throws {
    let print = quiet ? log : { Swift.print($0) }
    print("wrote \(outcome.directory)/report.md, results.csv, results.json, charts/")
    if let extra, outcome.failures.isEmpty { print(extra) }
    if !outcome.unfit.isEmpty {
      print(
        "\(outcome.unfit.count) case(s) do not fit in this machine's memory at these row counts; the report lists them")
    }
    if !outcome.failures.isEmpty {
      FileHandle.standardError.write(
        Data("\(outcome.failures.count) case(s) failed; see the report's last section\n".utf8))
      throw ExitCode(1)
    }
  }
}
