import ArgumentParser
import Catalog
import ChildProcesses
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

struct Load: CheckedCommand {
  static let configuration = CommandConfiguration(
    abstract: "Load test: concurrent writers, observers keeping batched lists in sync, scrollers; nothing may be lost.",
    discussion: """
      Exit 0 when every check passed (each observer's mirror equals a fresh fetch, no change set broke UIKit's \
      rules, no transaction missed or applied twice, nothing of a failed transaction visible, heap within its \
      bound); 1 when a check failed or on an error. Results: results/load/runs/<UTC timestamp>/ and \
      results/load/latest/.
      """)

  var checked = CheckedOptions<(LoadConfig, [StoreKind], Double)>()

  @Option(help: "Stores, comma-separated: memory, sqlite, postgres.") var store = "sqlite"
  @Option(help: "The dataset (the load test writes banks).") var dataset = "banks"
  @Option(help: "Rows of the dataset; a missing one is generated.") var rows = DatasetKind.defaultRows
  @Option(parsing: .unconditional, help: "Writer connections \(OptionRange.help(OptionRange.writers)).") var writers = 4
  @Option(
    parsing: .unconditional,
    help: "Target commits per second, all writers together \(OptionRange.help(OptionRange.rate)).")
  var rate = 500.0
  @Option(
    help:
      """
      Changed objects per transaction: N, or MIN...MAX drawn uniformly (1 to a share of the rows: MAX × 2 × writers \
      ≤ rows).
      """
  )
  var transactionSize = "1...50"
  @Option(
    parsing: .unconditional,
    help:
      """
      Observers, each a batched controller on its own connection with a scroller \
      \(OptionRange.help(OptionRange.observers)).
      """
  )
  var observers = 2
  @Option(help: "How long the writers write: seconds, or with s/m (e.g. 60s, 10m); 1 s to 7 days.") var duration = "60s"
  @Option(
    parsing: .unconditional,
    help:
      """
      Stop after this many commits (or at --duration, whichever is first) \
      \(OptionRange.help(OptionRange.transactions)).
      """
  )
  var transactions: Int?
  @Option(parsing: .unconditional, help: "The observers' batch size \(OptionRange.help(OptionRange.batchSize)).")
  var batchSize = 20
  @Option(
    parsing: .unconditional,
    help: "Share of writer transactions that fail after their writes and must roll back (0 or more, below 1).")
  var failureRate = 0.01
  @Option(
    parsing: .unconditional,
    help:
      """
      Extra milliseconds each observer spends per change set (a slow observer coalesces) \
      \(OptionRange.help(OptionRange.observerDelayMs)).
      """
  )
  var observerDelayMs = 0.0
  @Flag(
    help:
      """
      Observers apply nothing until the writers stop (an app in the background), then catch up in coalesced change \
      sets.
      """
  )
  var suspendObservers = false
  @Option(
    help:
      """
      With --find-max-rate: the p99 delivery latency (ms) a sustained rate stays under (default: one frame at 60 Hz) \
      \(OptionRange.help(OptionRange.frameBudgetMs)).
      """
  )
  var frameBudgetMs = LoadRunner.frameMs
  @Option(
    parsing: .unconditional,
    help:
      """
      PostgreSQL: seconds into the run at which every observer's session is ended (default: half the duration, and \
      never with --find-max-rate; negative: never).
      """
  )
  var dropConnectionAt: Double?
  @Option(
    parsing: .unconditional,
    help:
      """
      Screens (20 rows at a random position) each scroller reads per second \
      \(OptionRange.help(OptionRange.screensPerSecond)).
      """
  )
  var screensPerSecond = 30.0
  @Option(
    parsing: .unconditional,
    help:
      """
      MiB the live heap may grow from the early run to its end (judged on runs of 20 s or more) \
      \(OptionRange.help(OptionRange.heapBoundMiB)).
      """
  )
  var heapBoundMib = 64
  @Flag(
    help:
      """
      Ramp the rate (125, 250, … 8,000/s; halving to 8/s when 125 fails) and report the highest each store sustains \
      with p99 delivery within --frame-budget-ms.
      """
  )
  var findMaxRate = false
  @Option(help: "Seconds per rate with --find-max-rate: seconds, or with s/m; 1 s to 1 day.") var stepDuration = "10s"
  @Option(parsing: .unconditional, help: "Seed of the writers' transactions (0 to 18,446,744,073,709,551,615).")
  var seed: UInt64 = 1
  @Option(help: "Output folder (default: results/load/runs/<UTC timestamp>, copied to results/load/latest).") var out:
    String?
  @OptionGroup var datasetsFolder: DatasetsFolderOption
  var datasets: String { datasetsFolder.datasets }
  @Option(
    help: ArgumentHelp(
      """
      The observers' change rules: minimal, or coredata (NSFetchedResultsController's: changes to related objects \
      not followed).
      """,
      discussion:
        """
        With coredata each mirror is checked against its controller's list, and the rows out of place against a \
        fresh fetch are counted.
        """
    )) var changeRules = "minimal"
  @Option(
    help:
      """
      fetchbench, or coredata: write banks' file in Core Data's schema as Core Data's save does (Z_OPT versions, \
      Z_PRIMARYKEY, both sides of the one-to-one; SQLite only; written when missing).
      """
  ) var schema = PhysicalSchema.fetchbench.rawValue
  @Flag(
    help: """
      With --schema coredata: each save also writes Core Data's persistent history (a transaction row, a change row \
      per changed object), as a store synced through CloudKit does.
      """)
  var historyTracking = false
  @OptionGroup var postgres: PostgresOptions

  /// `60`, `60s` or `10m` in seconds, within `range`.
  static func seconds(_ text: String, _ name: String, in range: ClosedRange<Double>) throws -> Double {
    var t = text.trimmingCharacters(in: .whitespaces).lowercased()
    var scale = 1.0
    if t.hasSuffix("m") {
      scale = 60
      t.removeLast()
    } else if t.hasSuffix("s") {
      t.removeLast()
    }
    guard let v = Double(t), v > 0, v.isFinite else {
      throw ValidationError("--\(name): '\(text)' is not a duration such as 60s or 10m")
    }
    guard range.contains(v * scale) else {
      throw ValidationError("--\(name): '\(text)' is not between 1 s and \(OptionRange.text(range.upperBound)) s")
    }
    return v * scale
  }

  /// `N` or `MIN...MAX`, whole numbers with 1 ≤ MIN ≤ MAX ≤ the row count: nothing else.
  static func sizes(_ text: String, rows: Int) throws -> ClosedRange<Int> {
    let parts = text.components(separatedBy: "...")
    let values = parts.map { Int($0.trimmingCharacters(in: .whitespaces)) }
    guard (1...2).contains(parts.count), let lo = values.first ?? nil, let hi = values.last ?? nil, 1 <= lo, lo <= hi,
      hi <= rows
    else {
      throw ValidationError(
        "--transaction-size: '\(text)' is not N or MIN...MAX with 1 ≤ MIN ≤ MAX ≤ \(rows.grouped) (the rows)")
    }
    return lo...hi
  }

  func options() throws -> (LoadConfig, [StoreKind], Double) {
    guard dataset == "banks" else {
      throw ValidationError(
        "--dataset: the load test writes banks (FailedBankInfo → FailedBankDetails), not '\(dataset)'")
    }
    var c = LoadConfig()
    guard rows >= 100, rows <= DatasetKind.maxRows else {
      throw ValidationError("--rows must be between 100 and \(DatasetKind.maxRows)")
    }
    c.rows = rows
    try OptionValue.check(writers, in: OptionRange.writers, "writers")
    c.writers = writers
    try OptionValue.check(rate, in: OptionRange.rate, "rate")
    c.rate = rate
    let sizes = try Self.sizes(transactionSize, rows: rows)
    guard sizes.upperBound * 2 * writers <= rows else {
      throw ValidationError(
        "--transaction-size \(sizes.upperBound) is too large for \(rows) rows and \(writers) writers")
    }
    c.transactionSizeMin = sizes.lowerBound
    c.transactionSizeMax = sizes.upperBound
    try OptionValue.check(observers, in: OptionRange.observers, "observers")
    c.observers = observers
    c.duration = try Self.seconds(duration, "duration", in: OptionRange.duration)
    if let transactions {
      try OptionValue.check(transactions, in: OptionRange.transactions, "transactions")
      c.maxTransactions = transactions
    }
    try OptionValue.check(batchSize, in: OptionRange.batchSize, "batch-size")
    c.batchSize = batchSize
    guard (0..<1).contains(failureRate) else {
      throw ValidationError("--failure-rate must be 0 or more and below 1, got \(failureRate)")
    }
    c.failureRate = failureRate
    try OptionValue.check(observerDelayMs, in: OptionRange.observerDelayMs, "observer-delay-ms")
    c.observerDelayMs = observerDelayMs
    c.suspendObservers = suspendObservers
    try OptionValue.check(frameBudgetMs, in: OptionRange.frameBudgetMs, "frame-budget-ms")
    c.frameBudgetMs = frameBudgetMs
    try OptionValue.check(screensPerSecond, in: OptionRange.screensPerSecond, "screens-per-second")
    c.screensPerSecond = screensPerSecond
    try OptionValue.check(heapBoundMib, in: OptionRange.heapBoundMiB, "heap-bound-mib")
    c.heapBoundBytes = heapBoundMib << 20
    c.seed = seed
    c.datasetsDirectory = datasets
    c.changeRules = try OptionValue.kind(changeRules, "change-rules")
    let stores: [StoreKind] = try OptionValue.kinds(store, "store")
    if stores.contains(.sqliteCoreData) {
      throw ValidationError(
        """
        --store sqlite-coredata: the load test runs FetchBench's statements; for Core Data's change rules give \
        --change-rules coredata, for its file --schema coredata
        """
      )
    }
    c.schema = try OptionValue.kind(schema, "schema")
    if c.schema == .coreData, stores != [.sqlite] {
      throw ValidationError("--schema coredata: Core Data's file is a SQLite file; give --store sqlite")
    }
    guard !historyTracking || c.schema == .coreData else {
      throw ValidationError("--history-tracking writes Core Data's persistent history: give --schema coredata")
    }
    c.historyTracking = historyTracking
    let step = try Self.seconds(stepDuration, "step-duration", in: OptionRange.stepDuration)
    let runLength = findMaxRate ? step : c.duration
    if let at = dropConnectionAt {
      guard at.isFinite else { throw ValidationError("--drop-connection-at must be a number of seconds, got \(at)") }
      c.dropConnectionAt = at < 0 ? nil : at
    } else if stores.contains(.postgres) && !findMaxRate {
      // A capacity search measures the store without faults unless asked for them.
      c.dropConnectionAt = (runLength / 2).rounded(.down)
    }
    return (c, stores, step)
  }

  func run() throws {
    Interrupts.install()
    try postgres.apply()
    let (c, stores, step) = try checkedOptions()
    // Checked before minutes of load; a folder with the user's files is never replaced.
    let out = try self.out.map { try OutputFolder.checkTarget($0, command: .load) }
    // Held until the results are written: a second command writing the same folder is refused.
    let claim = try out.map { try OutputLock.claim($0) }
    defer { claim?.release() }
    if self.out == nil {
      try OutputFolder.checkTarget(LoadRunner.latestDirectory, command: .load, legacyNames: LoadRunner.outputNames)
    }
    let outcome: LoadOutcome
    outcome = try LoadRunner.run(
      c, stores: stores, findMaxRate: findMaxRate, stepDuration: step, out: out, log: Command.log)
    for line in outcome.searchSummary { print(line) }
    print("wrote \(outcome.directory)/report.md, summary.csv, timeline.csv, results.json, charts/")
    if !outcome.failures.isEmpty {
      for f in outcome.failures { FileHandle.standardError.write(Data("FAILED: \(f)\n".utf8)) }
      throw ExitCode(1)
    }
  }
}
