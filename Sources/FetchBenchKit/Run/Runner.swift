import Catalog
import ChildProcesses
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import PostgresStore

/// What `fetchbench run` measures.
public struct RunOptions: Sendable {
  public var datasets: [DatasetKind] = DatasetKind.allCases
  public var stores: [StoreKind] = [.memory, .sqlite]
  public var modes: [FetchMode] = FetchMode.allCases
  public var batchSizes: [Int] = [20]
  public var rows: [Int] = [DatasetKind.defaultRows]
  public var scenarios: [Scenario] = Scenario.allCases
  /// Also advise an index on the SQL stores: every candidate index of each list, measured
  /// against none in one process (`IndexAdvice`).
  public var withIndex = true
  public var repetitions = 5
  public var warmups = 1
  public var seed: UInt64 = 1
  public var datasetsDirectory = "datasets"
  /// nil: results/runs/<UTC timestamp>/.
  public var outDirectory: String?
  public var resultsDirectory = "results"
  /// The diff benchmark instead of the fetch scenarios: transaction sizes (k), and whether to
  /// add the 10% edit; `diffSections` says which variants (false: one list, true: by state).
  public var diffKs: [Int]?
  public var diffEdit = true
  public var diffSections: [Bool] = [false, true]
  public var emitChanges: String?
  /// The resident memory a case's process may reach before it is stopped and recorded as not
  /// fitting; nil: `ChildProcess.defaultMemoryCeiling()`, read before each case.
  public var memoryCeiling: Int?
  /// The open list's live heap the report's recommendation and scaling lines hold to; recorded
  /// in the results as a `settings` row.
  public var memoryBudget = Report.defaultMemoryBudget
  /// A list of the user's own instead of each dataset's (`--sort`, `--section`, `--where`):
  /// measured without the sectioned scenario (the list has its sections, or none) and the
  /// floors (the dataset list's statements).
  public var request: CustomRequest?
  /// Continue the unfinished run into `outDirectory` (nil: the newest under results/runs):
  /// its finished cases are kept, the others run.
  public var resume = false
  /// Also measure each larger size's performFetch growth from the smallest size in the larger
  /// case's own process (`CaseSpec.growthFrom`). Off by default: the smaller store then lives
  /// beside the case, so those cases' peak RSS includes it (the report leaves them out of its
  /// memory projection).
  public var growthInProcess = false
  /// Start no case after this many minutes: the run stops with its finished cases kept for
  /// `resume` (a long sweep split across sittings). nil: no limit.
  public var maxMinutes: Double?

  public init() {}

  /// Whose output the run's folder is.
  public var command: OutputFolder.Command { diffKs == nil ? .run : .diff }

  /// Where a run without `--out` is copied when it ends.
  public var latestDirectory: String { "\(resultsDirectory)/latest" }

  /// `fetchbench diff`: banks, memory and SQLite, k = 1…10,000 and the 10% edit.
  public static func diff() -> RunOptions {
    var o = RunOptions()
    o.datasets = [.banks]
    o.modes = []
    o.withIndex = false
    o.diffKs = [1, 10, 100, 1_000, 10_000]
    return o
  }

  /// `--quick`: banks only, no index variant, the four scenarios that answer the main question,
  /// 3 repetitions: under two minutes on this machine kind.
  public mutating func makeQuick() {
    datasets = [.banks]
    withIndex = false
    repetitions = 3
    scenarios = [.performFetch, .firstScreen, .scrollThrough, .sectioned]
  }

  /// Every case, in the order they run.
  public func cases() -> [CaseSpec] {
    if let ks = diffKs {
      var out: [CaseSpec] = []
      for rows in self.rows {
        for store in stores {
          for sections in diffSections {
            for k in ks.map(Optional.some) + (diffEdit ? [nil] : []) {
              var spec = CaseSpec(
                dataset: .banks, rows: rows, seed: seed, datasetsDirectory: datasetsDirectory, store: store,
                work: .diff(k: k, sections: sections), batchSize: batchSizes.first ?? 20, index: nil, repetitions: repetitions,
                warmups: warmups)
              spec.emitChanges = emitChanges
              out.append(spec)
            }
          }
        }
      }
      return out
    }
    var out: [CaseSpec] = []
    for rows in self.rows {
      for kind in datasets {
        for store in stores {
          func spec(_ work: CaseWork, _ batch: Int) -> CaseSpec {
            var spec = CaseSpec(
              dataset: kind, rows: rows, seed: seed, datasetsDirectory: datasetsDirectory, store: store, work: work,
              batchSize: batch, index: nil, repetitions: repetitions, warmups: warmups)
            spec.request = request
            return spec
          }
          for scenario in scenarios where request == nil || scenario != .sectioned {
            for mode in modes where scenario.applies(to: mode) {
              for batch in (mode == .full ? [0] : batchSizes) {
                var s = spec(.scenario(scenario, mode), batch)
                s.growthFrom = growthFrom(rows: rows, store: store, scenario: scenario, mode: mode)
                out.append(s)
              }
            }
          }
          if store != .memory && request == nil {
            for batch in batchSizes { out.append(spec(.floor, batch)) }
          }
          if withIndex && store != .memory { out.append(spec(.indexAdvice, batchSizes.first ?? 20)) }
        }
      }
    }
    return out
  }
}

extension RunOptions {
  /// The row count a case's growth is measured from in its own process, with
  /// `growthInProcess`: the run's smallest, for performFetch, full and batched, at every
  /// larger size, on the stores that hold two sizes of a dataset at once (not PostgreSQL,
  /// whose tables hold one). O(row counts).
  func growthFrom(rows: Int, store: StoreKind, scenario: Scenario, mode: FetchMode) -> Int? {
    guard growthInProcess, let smallest = self.rows.min(), rows > smallest, store != .postgres, scenario == .performFetch,
      mode == .full || mode == .batched
    else { return nil }
    return smallest
  }
}

/// The outcome of a run.
public struct RunOutcome: Sendable {
  public var directory: String
  public var rows: [ResultRow]
  public var failures: [(label: String, error: String)]
  /// Cases stopped at the memory ceiling: recorded, not failures.
  public var unfit: [(label: String, error: String)]
  /// Set when `maxMinutes` stopped the run before its last case: nothing was written to
  /// `directory`; the finished cases wait in `journal` for a resumed run.
  public var stopped: (finished: Int, total: Int, journal: String)?
}

/// Runs every case in a fresh child process (this binary, `_case`), so heap and RSS figures do
/// not bleed between cases, and writes the results.
public enum Runner {
  public static func run(_ options: RunOptions, log: @escaping @Sendable (String) -> Void) throws -> RunOutcome {
    let machine = Machine.current()
    let cases = options.cases()
    // Before minutes of measuring: where the results go must take them.
    if options.outDirectory == nil {
      try OutputFolder.checkTarget(options.latestDirectory, command: options.command, legacyNames: ResultFiles.names)
    }
    let (dir, journal) = try openJournal(options, cases: cases, commit: machine.gitCommit)
    let runID = journal.plan.runID
    let kept = try journal.finished()
    let checksums = try prepareDatasets(options, log: log)
    log(
      "fetchbench \(options.diffKs == nil ? "run" : "diff") \(runID): \(cases.count) cases, \(options.repetitions) repetitions each after \(options.warmups) warm-up, one process per case"
    )
    log(
      kept.isEmpty
        ? "finished cases are kept in \(journal.directory) as they end: if the run stops, the same command with --resume continues it"
        : "resuming: \(kept.count) of \(cases.count) cases finished before, kept from \(journal.directory)")
    var rows: [ResultRow] = []
    var failures: [(String, String)] = []
    var unfit: [(String, String)] = []
    if options.stores.contains(.postgres) {
      // Fails here, before any case, when the server is down; and times the COPY load once
      // per dataset (the cases then find it loaded; diff cases load scratch databases). A
      // resumed run loads again: the server may have been restarted in between.
      let url = try PostgresLocation.url(nil)
      _ = try PostgresAdmin(url: url)
      for n in options.rows where options.diffKs == nil {
        for kind in options.datasets {
          let location = DatasetLocation(kind: kind, rows: n, seed: options.seed, directory: options.datasetsDirectory)
          log("loading \(kind.rawValue)-\(n) into \(url) …")
          let seconds = try PostgresLoader.load(location, into: url, force: true)
          log(String(format: "loaded %@-%d in %.2f s (COPY, indexes, ANALYZE)", kind.rawValue, n, seconds))
          let key = ResultKey(dataset: kind, rows: n, store: .engine(.postgres), mode: .copy, batchSize: 0, scenario: .load)
          rows.append(
            ResultRow(
              runID: runID, key: key, metric: .load, summary: Summary([seconds]), machine: machine,
              datasetSHA256: checksums["\(kind.rawValue)-\(n)"] ?? ""))
        }
      }
    }
    if options.diffKs == nil {
      // What the report derives from besides the cases: the memory budget, and the user's list.
      func setting(_ metric: Metric, _ value: Double, detail: String = "") -> ResultRow {
        ResultRow(runID: runID, key: .settings, metric: metric, summary: Summary([value]), machine: machine, detail: detail)
      }
      rows.append(setting(.memoryBudget, options.memoryBudget))
      if let request = options.request { rows.append(setting(.customRequest, 0, detail: request.recorded)) }
      if let conf = ProcessInfo.processInfo.environment["MALLOC_CONF"], !conf.isEmpty {
        rows.append(setting(.allocatorConfiguration, 0, detail: conf))
      }
    }
    let start = Clock.wallNanos
    var (ran, recorded) = (0, kept.count)
    // What is left is estimated from the time per row so far: in a sweep over row counts a
    // case's time grows with its rows, and the small sizes run first.
    var rowsLeft = cases.indices.filter { kept[$0] == nil }.reduce(0.0) { $0 + Double(cases[$1].rows) }
    var rowsRun = 0.0
    for (k, spec) in cases.enumerated() {
      if let earlier = kept[k] {
        rows += earlier
        unfit += earlier.filter { $0.status == .doesNotFit }.prefix(1).map { (spec.label, $0.error) }
        continue
      }
      let minutes = Double(Clock.wallNanos - start) / 6e10
      if let limit = options.maxMinutes, ran > 0, minutes >= limit {
        log("stopped after \(duration(minutes * 60)) (--max-minutes)")
        return RunOutcome(
          directory: dir, rows: rows, failures: failures, unfit: unfit, stopped: (recorded, cases.count, journal.directory))
      }
      let t0 = Clock.wallNanos
      let result = runChild(spec, memoryCeiling: options.memoryCeiling ?? ChildProcess.defaultMemoryCeiling())
      ran += 1
      let elapsed = Double(Clock.wallNanos - start) / 1e9
      (rowsRun, rowsLeft) = (rowsRun + Double(spec.rows), rowsLeft - Double(spec.rows))
      let left = elapsed / rowsRun * rowsLeft
      let sha = checksums["\(spec.dataset.rawValue)-\(spec.rows)"] ?? ""
      func row(_ metric: Metric, _ s: Summary, status: ResultStatus = .ok, error: String = "", of m: Measurement? = nil) -> ResultRow {
        var key = spec.key
        if let index = m?.index { key.index = index }
        if let scenario = m?.scenario { key.scenario = scenario }
        return ResultRow(
          runID: runID, key: key, metric: metric, summary: s, status: status, error: error, machine: machine, datasetSHA256: sha,
          detail: m?.detail ?? "")
      }
      switch result {
      case .success(let r):
        let measured = r.measurements.map { row($0.metric, $0.summary, of: $0) }
        try journal.record(k, measured)
        recorded += 1
        rows += measured
        let time = r.measurements.first { $0.metric.unit == .ms }.map { String(format: "%.1f ms", $0.summary.median) } ?? ""
        log(
          String(
            format: "[%d/%d] %@  %@  (%.1f s, ~%@ left)", k + 1, cases.count, spec.label, time, Double(Clock.wallNanos - t0) / 1e9,
            duration(left)))
      case .failure(let message):
        // Not kept: a resumed run tries the case again.
        failures.append((spec.label, message))
        rows.append(row(.failed, Summary([0]), status: .failed, error: message))
        log("[\(k + 1)/\(cases.count)] \(spec.label)  FAILED: \(message)")
      case .doesNotFit(let resident, let message):
        unfit.append((spec.label, message))
        let measured = [row(.doesNotFit, Summary([Double(resident)]), status: .doesNotFit, error: message)]
        try journal.record(k, measured)
        recorded += 1
        rows += measured
        log("[\(k + 1)/\(cases.count)] \(spec.label)  DOES NOT FIT: \(message)")
      }
    }
    do {
      try ResultFiles.write(rows, to: dir, command: options.command)
    } catch DatasetError.cannotWrite(let path, let reason) {
      throw DatasetError.cannotWrite(
        path: path, reason: "\(reason); every case is kept in \(journal.directory): make room, then run again with --resume")
    }
    journal.remove()
    if options.outDirectory == nil {
      try OutputFolder.copy(dir, to: options.latestDirectory, legacyNames: ResultFiles.names)
    }
    return RunOutcome(directory: dir, rows: rows, failures: failures, unfit: unfit, stopped: nil)
  }

  /// The run's folder and its journal: a new one, or with `resume` the unfinished run's.
  static func openJournal(_ options: RunOptions, cases: [CaseSpec], commit: String) throws -> (String, RunJournal) {
    let runs = "\(options.resultsDirectory)/runs"
    if options.resume {
      guard let dir = options.outDirectory ?? RunJournal.newest(in: runs) else {
        throw HarnessError.invalidArgument("--resume: no unfinished run under \(runs); give its --out, or run without --resume")
      }
      let journal = try RunJournal.resume(out: dir, plan: .init(runID: "", commit: commit, cases: cases))
      return (dir, journal)
    }
    let runID = timestamp()
    let dir = options.outDirectory ?? "\(runs)/\(runID)"
    return (dir, try RunJournal.start(out: dir, plan: .init(runID: runID, commit: commit, cases: cases)))
  }

  /// Generates missing datasets (SQLite, and the indexed variant) and returns each one's
  /// checksum by `dataset-rows`.
  static func prepareDatasets(_ options: RunOptions, log: @escaping @Sendable (String) -> Void) throws -> [String: String] {
    var checksums: [String: String] = [:]
    for rows in options.rows {
      for kind in options.datasets {
        var variants: [[String]] = [[]]
        if options.withIndex && options.stores.contains(.sqlite) && options.diffKs == nil {
          variants += try IndexAdvice.candidates(kind, request: options.request).map { [$0.index.tag] }
        }
        for indexes in variants {
          let path = DatasetPaths.sqlite(in: options.datasetsDirectory, kind, rows: rows, seed: options.seed, indexes: indexes)
          let exists = FileManager.default.fileExists(atPath: path)
          if !exists { log("generating \(path) …") }
          var request = GenerationRequest(
            datasets: [kind], rows: rows, seed: options.seed, outDirectory: options.datasetsDirectory,
            writeCSV: false, indexes: indexes, ifMissing: true)
          // Results carry the checksum of the file measured, read from it: a file cut short or
          // edited is an error here, not a result labelled with the manifest's checksum.
          request.verification = .contents
          let r = try Generation.run(request, progress: ProgressLine())
          if !exists, let g = r.first { log(String(format: "generated %@ in %.1f s", path, g.seconds)) }
          checksums["\(kind.rawValue)-\(rows)"] = r.first?.entry.sha256
        }
      }
    }
    return checksums
  }

  enum ChildResult {
    case success(CaseResult)
    case failure(String)
    /// Stopped at the memory ceiling, with its resident bytes then.
    case doesNotFit(Int, String)
  }

  static func runChild(_ spec: CaseSpec, memoryCeiling: Int? = nil) -> ChildResult {
    guard let json = try? JSONEncoder().encode(spec) else { return .failure("cannot encode the case") }
    let output: ChildProcess.Output
    do {
      output = try ChildProcess.run(
        ChildProcess.currentExecutable, ["_case", String(decoding: json, as: UTF8.self)], memoryCeiling: memoryCeiling)
    } catch {
      return .failure("cannot start \(ChildProcess.currentExecutable): \(error)")
    }
    if case .exceededMemory(_, let resident) = output.termination, let failure = output.failure {
      return .doesNotFit(resident, failure)
    }
    if let failure = output.failure { return .failure(failure) }
    guard let result = try? JSONDecoder().decode(CaseResult.self, from: output.standardOutput) else {
      return .failure("unreadable result: \(CrashReport.tail(output.text))")
    }
    if let e = result.error { return .failure(e) }
    return .success(result)
  }

  static func timestamp() -> String {
    var t = time(nil)
    var tm = tm()
    gmtime_r(&t, &tm)
    return String(format: "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec)
  }

  static func duration(_ s: Double) -> String {
    s < 90 ? "\(Int(s.rounded())) s" : "\(Int((s / 60).rounded())) min"
  }
}

/// Writes a run's files as an `OutputFolder`.
public enum ResultFiles {
  /// What a run folder holds; an unmarked `latest` folder of these alone is FetchBench's own.
  public static let names: Set<String> = ["results.csv", "results.json", "report.md", "charts"]

  public static func write(_ measured: [ResultRow], to dir: String, command: OutputFolder.Command) throws {
    // Everything is rendered from the CSV's text (3 decimals), so `fetchbench report DIR`
    // gives the same page and JSON holds the same figures as the CSV.
    let csv = ResultsCSV.encode(measured)
    let rows = try ResultsCSV.decode(csv)
    try OutputFolder.write(to: dir, command: command) { tmp in
      try FileManager.default.createDirectory(atPath: tmp + "/charts", withIntermediateDirectories: false)
      try Data(csv.utf8).write(to: URL(fileURLWithPath: tmp + "/results.csv"))
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      try encoder.encode(rows).write(to: URL(fileURLWithPath: tmp + "/results.json"))
      let report = Report(rows: rows)
      for (name, svg) in report.charts() {
        try Data(svg.utf8).write(to: URL(fileURLWithPath: try OutputFolder.child(tmp + "/charts", name)))
      }
      try Data(report.markdown().utf8).write(to: URL(fileURLWithPath: tmp + "/report.md"))
    }
  }

  /// Renders report.md and the charts again from DIR/results.csv.
  public static func rerender(_ dir: String) throws {
    let path = dir + "/results.csv"
    switch DatasetFile.entry(at: path) {
    case .missing: throw HarnessError.invalidArgument("\(path): no such results file; name a folder that `fetchbench run` wrote")
    case .other(let what): throw HarnessError.invalidArgument("\(path) is \(what), not a results file")
    case .file: break
    }
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
      throw HarnessError.invalidArgument("\(path) is not UTF-8 text, as every results.csv FetchBench writes is")
    }
    let report = Report(rows: try ResultsCSV.decode(text))
    var isDir: ObjCBool = false
    if FileManager.default.fileExists(atPath: dir + "/charts", isDirectory: &isDir),
      !isDir.boolValue || DatasetFile.isSymbolicLink(dir + "/charts")
    {
      throw DatasetError.cannotWrite(path: dir + "/charts", reason: "it is not a folder of charts, and FetchBench does not replace it")
    }
    do {
      try FileManager.default.createDirectory(atPath: dir + "/charts", withIntermediateDirectories: true)
    } catch {
      throw DatasetError.cannotWrite(path: dir + "/charts", reason: AtomicFile.describe(error))
    }
    let charts = report.charts()
    for (name, svg) in charts {
      try AtomicFile.write(Data(svg.utf8), to: try OutputFolder.child(dir + "/charts", name))
    }
    try AtomicFile.write(Data(report.markdown().utf8), to: dir + "/report.md")
    try OutputFolder.addToMarker(["charts/", "report.md"] + charts.map { "charts/\($0.0)" }, in: dir)
  }
}
