import Catalog
import ChildProcesses
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import PostgresStore
import Reports
import ResultModel
import SQLQueries
import Vocabulary

/// The outcome of a run.
package struct RunOutcome: Sendable {
  package var directory: String
  package var rows: [ResultRow]
  /// What recommendation.json holds: the one answer the command prints at the end.
  package var recommendation: [Recommendation] = []
  package var failures: [(label: String, error: String)]
  /// Cases stopped at the memory ceiling: recorded, not failures.
  package var unfit: [(label: String, error: String)]
  /// Set when `maxMinutes` stopped the run before its last case: nothing was written to
  /// `directory`; the finished cases wait in `journal` for a resumed run.
  package var stopped: (finished: Int, total: Int, journal: String)?
}

/// Runs every case in a fresh child process (this binary, `_case`), so heap and RSS figures do
/// not bleed between cases, and writes the results.
package enum Runner {
  /// Runs every case of `options` not finished before, each in a child process, keeping
  /// each case's rows in the journal as it ends, then writes the run's folder. `caseEnded`
  /// gets the rows so far and the cases still to run after each case. O(cases).
  package static func run(
    _ options: RunOptions, log: @escaping @Sendable (String) -> Void,
    caseEnded: (_ results: RunResults, _ remaining: ArraySlice<CaseSpec>) throws -> Void = { _, _ in }
  ) throws -> RunOutcome {
    let deadline = CaseDeadline(minutes: options.maxMinutes)
    let machine = Machine.current(measuringSpeed: true)
    let cases = options.cases()
    // Before minutes of measuring: where the results go must take them.
    if options.outDirectory == nil {
      try OutputFolder.checkTarget(options.latestDirectory, command: options.command, legacyNames: ResultFiles.names)
    }
    let (dir, journal, claim) = try openJournal(options, cases: cases, commit: machine.gitCommit)
    defer { claim.release() }
    let kept = try journal.finished()
    let stamp = RowStamp(runID: journal.plan.runID, machine: machine, checksums: try prepareDatasets(options, log: log))
    announce(options, cases: cases, journal: journal, kept: kept, log: log)
    var progress = RunProgress(cases: cases, kept: kept, journal: journal, stamp: stamp, log: log)
    progress.rows = try loadIntoPostgres(options, stamp, log: log)
    let settings = settings(options, checksums: stamp.checksums)
    for k in cases.indices where !progress.keep(k) {
      if !deadline.allowsCase(afterRunning: progress.ran) {
        log("stopped after \(duration(deadline.elapsedMinutes() * 60)) (--max-minutes)")
        return progress.outcome(dir, stopped: true)
      }
      let t0 = Clock.wallNanos
      let result = runCase(
        cases[k], processes: options.processes,
        memoryCeiling: options.memoryCeiling ?? ChildProcess.defaultMemoryCeiling(), minutes: options.caseMinutes)
      try progress.record(k, result, seconds: Double(Clock.wallNanos - t0) / 1e9)
      try caseEnded(RunResults(settings: settings, figures: progress.rows), cases[(k + 1)...])
    }
    var outcome = progress.outcome(dir, stopped: false)
    outcome.recommendation = try writeResults(
      RunResults(settings: settings, figures: progress.rows), to: dir, options, journal)
    return outcome
  }

  /// The run's first lines: what runs, and where the finished cases are kept.
  static func announce(
    _ options: RunOptions, cases: [CaseSpec], journal: RunJournal, kept: [Int: [ResultRow]], log: (String) -> Void
  ) {
    log(
      """
      fetchbench \(options.command.rawValue) \(journal.plan.runID): \(cases.count) cases, \(options.repetitions) \
      repetitions each after \(options.warmups) warm-up, \
      \(options.processes == 1 ? "one process" : "in each of \(options.processes) processes") per case; \
      \(expectation(options, cases: cases, kept: kept))
      """
    )
    log(
      kept.isEmpty
        ? """
        finished cases are kept in \(journal.directory) as they end: if the run stops, the same command with \
        --resume continues it
        """
        : "resuming: \(kept.count) of \(cases.count) cases finished before, kept from \(journal.directory)")
  }

  /// How long the cases still to run should take, from their expected costs on this project's
  /// machine kind, and for `run` when the first list's answer should come (the stream gives it
  /// when the list's last case ends). O(cases).
  package static func expectation(_ options: RunOptions, cases: [CaseSpec], kept: [Int: [ResultRow]]) -> String {
    let toRun = cases.indices.filter { kept[$0] == nil }
    let seconds = { (k: Int) in cases[k].expectedSeconds * Double(options.processes) }
    let total = toRun.reduce(0.0) { $0 + seconds($1) }
    var text = "about \(duration(total)) on a 2-core machine like this project's"
    guard options.command == .run, let first = toRun.first else { return text }
    let list = { (c: CaseSpec) in "\(c.dataset.rawValue)/\(c.rows)/\(c.store.rawValue)" }
    let lastOfList = toRun.last { list(cases[$0]) == list(cases[first]) } ?? first
    if lastOfList != toRun.last {
      let untilAnswer = toRun.prefix { $0 <= lastOfList }.reduce(0.0) { $0 + seconds($1) }
      text += ", the first answer after about \(duration(untilAnswer))"
    }
    return text
  }

  /// Loads each dataset into PostgreSQL when the run measures it, and times the COPY load: it
  /// fails here, before any case, when the server is down. The cases then find it loaded
  /// (diff cases load scratch databases); a resumed run loads again, since the server may
  /// have been restarted in between.
  static func loadIntoPostgres(_ options: RunOptions, _ stamp: RowStamp, log: (String) -> Void) throws -> [ResultRow] {
    guard options.stores.contains(.postgres) else { return [] }
    // A user's own server schema is measured where it is.
    if let server = try options.userList?.database.server {
      _ = try PostgresAdmin(url: server.url)
      return []
    }
    let url = try PostgresLocation.url(nil)
    _ = try PostgresAdmin(url: url)
    var rows: [ResultRow] = []
    for n in options.rows where options.workload.readsLists {
      for kind in options.datasets {
        var location = DatasetLocation(kind: kind, rows: n, seed: options.seed, directory: options.datasetsDirectory)
        location.database = options.userList?.database
        log("loading \(kind.rawValue)-\(n) into \(url) …")
        let seconds = try PostgresLoader.load(location, into: url, force: true)
        log(String(format: "loaded %@-%d in %.2f s (COPY, indexes, ANALYZE)", kind.rawValue, n, seconds))
        let key = ResultKey(
          dataset: kind, rows: n, store: .engine(.postgres), mode: .copy, batchSize: 0, scenario: .load)
        rows.append(stamp.row(key, .load, Summary([seconds])))
      }
    }
    return rows
  }

  /// What the report derives from besides the cases: the budgets, the user's list and
  /// database, and the allocator's configuration when the environment sets one.
  static func settings(_ options: RunOptions, checksums: [DatasetSize: String]) -> RunSettings {
    var settings = RunSettings()
    guard options.workload.readsLists else { return settings }
    (settings.recordedMemoryBudget, settings.recordedFrameMs) = (options.memoryBudget, options.frameBudgetMs)
    settings.request = options.request
    if let list = options.userList, let kind = options.datasets.first, let rows = options.rows.first {
      let size = (try? FileManager.default.attributesOfItem(atPath: list.database.path)[.size] as? Int) ?? nil
      settings.databaseBytes = Double(size ?? 0)
      let candidates = (try? IndexAdvice.candidates(kind, request: options.request)) ?? []
      let declared = candidates.compactMap { c in kind.coreDataFetchIndex(c.index).map { (c.index.tag, $0) } }
      settings.database = DatabaseSetting(
        list: list, sha256: checksums[DatasetSize(kind, rows: rows)] ?? "",
        synthetic: list.database.syntheticDescription(),
        model: list.database.modelOrigin(),
        fetchIndexes: (try? list.database.schema().fetchIndexes(on: list.entity)).flatMap { $0.isEmpty ? nil : $0 },
        indexCandidates: candidates.isEmpty ? nil : candidates,
        coreDataFetchIndexes: declared.isEmpty ? nil : Dictionary(declared, uniquingKeysWith: { a, _ in a }))
    }
    if let conf = ProcessInfo.processInfo.environment["MALLOC_CONF"], !conf.isEmpty {
      settings.allocatorConfiguration = conf
    }
    return settings
  }

  /// Writes the run's folder, then drops the journal, and copies the folder to `latest` for a
  /// run without `--out`. A folder that cannot be written leaves the journal for `--resume`.
  /// Writes the run's files, returning recommendation.json's answer.
  static func writeResults(_ results: RunResults, to dir: String, _ options: RunOptions, _ journal: RunJournal)
    throws -> [Recommendation]
  {
    let picks: [Recommendation]
    do {
      picks = try ResultFiles.write(results, to: dir, command: options.command)
    } catch DatasetError.cannotWrite(let path, let reason) {
      throw DatasetError.cannotWrite(
        path: path,
        reason: "\(reason); every case is kept in \(journal.directory): make room, then run again with --resume")
    }
    journal.remove()
    if options.outDirectory == nil {
      try OutputFolder.copy(dir, to: options.latestDirectory, legacyNames: ResultFiles.names)
    }
    return picks
  }

  /// The run's folder, claimed for this process until the run ends (a second command writing
  /// it, or resuming it, is refused naming this one's PID), and its journal: a new one, or
  /// with `resume` the unfinished run's.
  static func openJournal(_ options: RunOptions, cases: [CaseSpec], commit: String) throws -> (
    String, RunJournal, OutputLock.Claim
  ) {
    let runs = "\(options.resultsDirectory)/runs"
    if options.resume {
      guard let dir = options.outDirectory ?? RunJournal.newest(in: runs) else {
        throw ResumeError.nothingToResumeUnder(runs)
      }
      let claim = try OutputLock.claim(dir)
      do {
        return (dir, try RunJournal.resume(out: dir, plan: .init(runID: "", commit: commit, cases: cases)), claim)
      } catch {
        claim.release()
        throw error
      }
    }
    // A shard's parts start in the same second on N machines: the part tells them apart; two
    // runs started in one second here take the next free name.
    let base = timestamp() + (options.shard.map { "-\($0.index)of\($0.count)" } ?? "")
    var runID = base
    let claim: OutputLock.Claim
    if let out = options.outDirectory {
      claim = try OutputLock.claim(out)
    } else {
      (runID, claim) = try OutputLock.claimNewName(in: runs, base: base) { [RunJournal.directory(for: $0)] }
    }
    let dir = options.outDirectory ?? "\(runs)/\(runID)"
    do {
      return (dir, try RunJournal.start(out: dir, plan: .init(runID: runID, commit: commit, cases: cases)), claim)
    } catch {
      claim.release()
      throw error
    }
  }

  /// Generates missing datasets (SQLite, and the indexed variant) and returns each one's
  /// checksum.
  static func prepareDatasets(_ options: RunOptions, log: @escaping @Sendable (String) -> Void) throws
    -> [DatasetSize: String]
  {
    var checksums: [DatasetSize: String] = [:]
    if let list = options.userList, let kind = options.datasets.first, let rows = options.rows.first {
      // The user's file is measured as it is, and its checksum labels the results.
      return [DatasetSize(kind, rows: rows): try list.database.sha256()]
    }
    for rows in options.rows {
      for kind in options.datasets {
        var variants: [[String]] = [[]]
        if options.withIndex && options.stores.contains(.sqlite) && options.workload.readsLists {
          variants += try IndexAdvice.candidates(kind, request: options.request).map { [$0.index.tag] }
        }
        for indexes in variants {
          let path = DatasetPaths.sqlite(
            in: options.datasetsDirectory, kind, rows: rows, seed: options.seed, indexes: indexes)
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
          checksums[DatasetSize(kind, rows: rows)] = r.first?.entry.sha256
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

  /// The case measured in `processes` child processes one after another, its repetitions
  /// joined in order (`CaseResult.merged`); the first that fails is the case's outcome.
  /// How busy the rest of the machine was is recorded beside the case's figures
  /// (`Metric.othersCores`, `stealCores`), so that `compare` can leave times measured on a busy
  /// machine unjudged.
  static func runCase(_ spec: CaseSpec, processes: Int, memoryCeiling: Int?, minutes: Double) -> ChildResult {
    var results: [CaseResult] = []
    var busiest = CPUWatch.Load(othersCores: 0, stealCores: 0, seconds: 0)
    for _ in 0..<processes {
      let before = CPUWatch.read()
      switch runChild(spec, memoryCeiling: memoryCeiling, minutes: minutes) {
      case .success(let r): results.append(r)
      case let other: return other
      }
      let load = CPUWatch.load(from: before, to: CPUWatch.read())
      (busiest.othersCores, busiest.stealCores) = (
        max(busiest.othersCores, load.othersCores), max(busiest.stealCores, load.stealCores)
      )
    }
    var merged = CaseResult.merged(results)
    merged.measurements += [
      Measurement(.othersCores, busiest.othersCores), Measurement(.stealCores, busiest.stealCores),
    ]
    return .success(merged)
  }

  /// One process of `spec`, stopped after `minutes` (the case's deadline) or at
  /// `memoryCeiling` bytes resident.
  static func runChild(
    _ spec: CaseSpec, memoryCeiling: Int? = nil, minutes: Double = RunOptions.defaultCaseMinutes
  ) -> ChildResult {
    let output: ChildProcess.Output
    do {
      output = try ChildRequest(spec).run(
        relayStandardError: StatementLog.isEnabled, timeout: minutes * 60, memoryCeiling: memoryCeiling)
    } catch {
      return .failure("cannot start \(ChildProcess.currentExecutable): \(error)")
    }
    if case .exceededMemory(_, let resident) = output.termination, let failure = output.failure {
      return .doesNotFit(resident, failure)
    }
    if case .timedOut = output.termination {
      return .failure(
        """
        stopped after \(Runner.duration(minutes * 60)) (--case-minutes): \(spec.listDescription) did not \
        finish; simplify it, measure fewer rows, or give each case more minutes
        """)
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
    return String(
      format: "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
      tm.tm_sec)
  }

  static func duration(_ s: Double) -> String {
    s < 90 ? "\(Int(s.rounded())) s" : "\(Int((s / 60).rounded())) min"
  }
}
