import DatasetStores
import Foundation
import TextFormatting
import Vocabulary

/// A store's own write limit: the load test's transactions committed through the store's
/// client alone (`LoadConfig.rawWrites`), as fast as they go, in a fresh process.
package struct RawLimit: Codable, Sendable {
  package var store: StoreKind
  package var writers: Int
  package var commits: Int
  package var seconds: Double
  package var commitsPerSecond: Double
  package var coresBusy: Double
  /// Transactions per second through FetchBench's own write path (the store's `commit`, which
  /// reads old values and records the changes for observers, with the run's writers) with no
  /// observers: between the store's limit and what the load test sustains.
  package var writePathPerSecond: Double
  /// The durability settings it committed under, as the store reports them.
  package var durability: String
}

extension LoadRunner {
  /// SQLite takes one writer at a time: its limit is one connection's. The others get as many
  /// writers as the load test, as pgbench's clients.
  static func rawWriters(_ store: StoreKind, configured: Int) -> Int { store == .sqlite ? 1 : configured }

  /// Measures the store's own write limit for `config.duration` seconds.
  static func rawLimit(_ config: LoadConfig, log: @escaping @Sendable (String) -> Void) throws -> (
    limit: RawLimit, failures: [String]
  ) {
    var raw = config
    raw.rawWrites = true
    raw.observers = 0
    raw.failureRate = 0
    raw.writers = rawWriters(config.store, configured: config.writers)
    log(
      """
      load \(config.store.rawValue): the store's own write limit, \(raw.writers) writer(s) for \
      \(Int(config.duration)) s
      """
    )
    let r = try child(raw)
    // The same writers as the run, as fast as they go, with nobody observing.
    var writePath = config
    writePath.observers = 0
    writePath.rate = 1_000_000
    log(
      """
      load \(config.store.rawValue): FetchBench's write path alone, \(config.writers) writer(s) for \
      \(Int(config.duration)) s
      """
    )
    let w = try child(writePath)
    let limit = RawLimit(
      store: config.store, writers: raw.writers, commits: r.commits, seconds: r.seconds,
      commitsPerSecond: r.commitsPerSecond,
      coresBusy: r.coresBusy, writePathPerSecond: w.attemptsPerSecond, durability: r.durability)
    log(
      String(
        format: "  %@ alone: %.0f commits/s; FetchBench's write path alone: %.0f/s", config.store.rawValue,
        limit.commitsPerSecond,
        limit.writePathPerSecond))
    return (
      limit,
      r.failures.map { "\(config.store.rawValue), its own write limit: \($0)" }
        + w.failures.map { "\(config.store.rawValue), the write path alone: \($0)" }
    )
  }

  struct SearchOutcome {
    var steps: [RateStep] = []
    var results: [LoadResult] = []
    var failures: [String] = []
    var highestSustained: Double?
  }

  /// Runs `RateSearch`'s steps, each in a fresh process.
  static func searchMaxRate(_ config: LoadConfig, log: @escaping @Sendable (String) -> Void) throws -> SearchOutcome {
    var out = SearchOutcome()
    var search = RateSearch(first: firstRate, lowest: lowestRate, highest: highestRate)
    var config = config
    while let rate = search.next {
      config.rate = rate
      log("load \(config.store.rawValue): trying \(Int(rate)) commits/s for \(Int(config.duration)) s")
      let r = try child(config)
      let step = RateStep(r, budgetMs: config.frameBudgetMs)
      search.record(rate, sustained: step.sustained)
      out.steps.append(step)
      out.results.append(r)
      out.failures += r.failures.map { "\(config.store.rawValue) at \(Int(rate))/s: \($0)" }
      log(
        String(
          format: "  %@ %5.0f/s: attempted %.0f/s, delivery p99 %.2f ms: %@", config.store.rawValue, rate,
          r.attemptsPerSecond,
          r.delivery.p99, step.sustained ? "sustained" : "not sustained (\(step.missed.joined(separator: "; ")))"))
    }
    out.highestSustained = search.highestSustained
    return out
  }
}

extension LoadOutcome {
  /// `--find-max-rate`'s answer, a line per store: the highest sustained rate beside the
  /// store's own limit, and what the next step up missed.
  package var searchSummary: [String] {
    rawLimits.map { limit in
      let name = LoadReport.storeName(limit.store)
      let own = "its own limit \(Int(limit.commitsPerSecond.rounded()).grouped)/s"
      let bound = steps.filter { $0.store == limit.store && !$0.sustained }.min { $0.rate < $1.rate }
      let next = bound.map { "; at \(Int($0.rate).grouped)/s \($0.missed.joined(separator: "; "))" } ?? ""
      guard let rate = maxRates[limit.store.rawValue] else {
        return "\(name): sustains no rate down to \(Int(LoadRunner.lowestRate))/s (\(own))\(next)"
      }
      let share = limit.commitsPerSecond > 0 ? " = \(Int((100 * rate / limit.commitsPerSecond).rounded())) %" : ""
      return "\(name): sustains \(Int(rate).grouped)/s of \(own)\(share)\(next)"
    }
  }
}

extension RateStep {
  /// A step is sustained when it attempted at least 95% of its target, kept p99 delivery
  /// under `budgetMs` and passed every check.
  init(_ r: LoadResult, budgetMs: Double) {
    var missed: [String] = []
    let rate = r.config.rate
    if r.attemptsPerSecond < 0.95 * rate {
      missed.append(String(format: "the writers attempted %.1f%% of the target", 100 * r.attemptsPerSecond / rate))
    }
    if r.delivery.p99 >= budgetMs {
      missed.append(String(format: "delivery p99 %.1f ms ≥ %.1f ms", r.delivery.p99, budgetMs))
    }
    if !r.ok { missed.append("\(r.failures.count) check(s) failed") }
    self.init(
      store: r.config.store, rate: rate, achieved: r.attemptsPerSecond, deliveryP99Ms: r.delivery.p99, ok: r.ok,
      coresBusy: r.coresBusy,
      changeSetsPerSecond: r.seconds > 0 ? Double(r.changeSets) / r.seconds : 0, changeSetP50Ms: r.changeSet.p50,
      changeSetCores: r.seconds > 0 ? r.changeSetSeconds / r.seconds : 0, sustained: missed.isEmpty,
      missed: missed)
  }
}
