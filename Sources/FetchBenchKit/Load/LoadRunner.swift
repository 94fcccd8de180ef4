import Catalog
import ChildProcesses
import DatasetStores
import Datasets
import Foundation
import PostgresStore
import ResultModel
import Vocabulary

/// One step of `--find-max-rate`: a run at one target rate.
package struct RateStep: Codable, Sendable {
  package var store: StoreKind
  package var rate: Double
  /// Transactions attempted per second (committed or rolled back).
  package var achieved: Double
  package var deliveryP99Ms: Double
  package var ok: Bool
  /// Cores the step's process kept busy, on average.
  package var coresBusy: Double
  /// Observers' change sets per second, all observers together, and the median time of one.
  package var changeSetsPerSecond: Double
  package var changeSetP50Ms: Double
  /// Cores the observers kept busy computing change sets: their `apply` time over the wall time.
  package var changeSetCores: Double
  /// Achieved at least 95% of the target, p99 delivery under the frame budget (one frame at
  /// 60 Hz unless set), every check passed.
  package var sustained: Bool
  /// Why the step is not sustained: each limit it missed, with its figure; empty when it is.
  package var missed: [String]
}

/// What `fetchbench load` wrote.
package struct LoadOutcome: Sendable {
  package var directory: String
  package var results: [LoadResult]
  package var steps: [RateStep]
  /// Highest sustained rate per store, with `--find-max-rate`.
  package var maxRates: [String: Double]
  /// Each store's own write limit, with `--find-max-rate`.
  package var rawLimits: [RawLimit]
  package var failures: [String]
}

/// Runs `fetchbench load`: each store (and each rate step) in a fresh child process, so heap
/// and RSS figures belong to that store alone; then writes the timeline, summary and report.
package enum LoadRunner {
  /// One frame at 60 Hz: the p99 delivery latency a sustained rate must stay under.
  package static let frameMs = 1_000.0 / 60
  /// The rate search's first rate and its highest.
  package static let firstRate = 125.0
  package static let highestRate = 16_000.0
  /// What a load folder holds (`--out`).
  package static var outputNames: Set<String> { LoadReport.names }
  /// Where a load run without `--out` is copied when it ends.
  package static let latestDirectory = "results/load/latest"
  /// The lowest rate `--find-max-rate` tries.
  package static let lowestRate = 8.0

  package static func run(
    _ base: LoadConfig, stores: [StoreKind], findMaxRate: Bool, stepDuration: Double, out: String?,
    log: @escaping @Sendable (String) -> Void
  ) throws -> LoadOutcome {
    var options = RunOptions()
    options.datasets = [.banks]
    options.rows = [base.rows]
    options.seed = base.seed
    options.stores = stores
    options.withIndex = false
    options.datasetsDirectory = base.datasetsDirectory
    let checksums = try Runner.prepareDatasets(options, log: log)
    if stores.contains(.postgres) {
      // Down or unreachable: say so before any child starts.
      _ = try PostgresAdmin(url: try PostgresLocation.url(nil))
    }
    let runID = Runner.timestamp()
    // Timed before the writers start, as a run's is before its cases.
    let machine = Machine.current(measuringSpeed: true)
    var results: [LoadResult] = []
    var steps: [RateStep] = []
    var maxRates: [String: Double] = [:]
    var rawLimits: [RawLimit] = []
    var failures: [String] = []
    for store in stores {
      var config = base
      config.store = store
      if findMaxRate {
        config.duration = stepDuration
        config.maxTransactions = nil
        let raw = try rawLimit(config, log: log)
        rawLimits.append(raw.limit)
        failures += raw.failures
        let search = try searchMaxRate(config, log: log)
        steps += search.steps
        results += search.results
        failures += search.failures
        if let rate = search.highestSustained { maxRates[store.rawValue] = rate }
      } else {
        let r = try child(config)
        results.append(r)
        failures += r.failures.map { "\(store.rawValue): \($0)" }
        log(
          String(
            format:
              "load %@: %d commits in %.1f s (%.0f/s, target %.0f), delivery p50 %.2f / p99 %.2f / max %.2f ms, %@",
            store.rawValue,
            r.commits, r.seconds, r.commitsPerSecond, config.rate, r.delivery.p50, r.delivery.p99, r.delivery.max,
            r.ok ? "all checks passed" : "\(r.failures.count) check(s) failed"))
      }
    }
    let (dir, claim) = try claimOutput(out, runID: runID)
    defer { claim.release() }
    let report = LoadReport(
      runID: runID, machine: machine, checksum: checksums[DatasetSize(.banks, rows: base.rows)] ?? "", results: results,
      steps: steps,
      maxRates: maxRates, rawLimits: rawLimits, findMaxRate: findMaxRate)
    try report.write(to: dir)
    if out == nil { try OutputFolder.copy(dir, to: Self.latestDirectory, legacyNames: outputNames) }
    return LoadOutcome(
      directory: dir, results: results, steps: steps, maxRates: maxRates, rawLimits: rawLimits, failures: failures)
  }

  /// The run's folder, claimed for this process: `out`, or a new one under results/load/runs.
  static func claimOutput(_ out: String?, runID: String) throws -> (String, OutputLock.Claim) {
    if let out { return (out, try OutputLock.claim(out)) }
    let (name, claim) = try OutputLock.claimNewName(in: "results/load/runs", base: runID)
    return ("results/load/runs/\(name)", claim)
  }

  /// Runs one configuration in a child process (`fetchbench _load`); its progress goes to
  /// this process's standard error.
  static func child(_ config: LoadConfig) throws -> LoadResult {
    let output = try ChildRequest(config).run(relayStandardError: true)
    if case .signalled = output.termination {
      throw LoadError.childFailed(store: "\(config.store)", detail: output.failure!)
    }
    guard output.succeeded, let result = try? JSONDecoder().decode(LoadResult.self, from: output.standardOutput) else {
      throw LoadError.childFailed(store: "\(config.store)", detail: "failed: \(CrashReport.tail(output.standardError))")
    }
    return result
  }
}
