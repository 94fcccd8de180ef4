import HarnessSupport
import Vocabulary

/// A named figure, as package-benchmark's `BenchmarkMetric`: its name in results.csv, its unit,
/// and which direction is better. Every figure the harness writes is one of these: a new
/// metric is one `static let` here, and the writers, reports and gate take it from here.
package struct Metric: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The unit column of results.csv.
  package enum Unit: String, Sendable, Codable {
    case ms, us, s, bytes, count, rows, ratio, bool
    case perSecond = "1/s"
    case none = ""
  }

  /// Which way a change is an improvement (`neither` for context, such as a target or rows).
  package enum Better: String, Sendable, Codable {
    case lower, higher, neither
  }

  /// The column value in results.csv, e.g. `time_ms`.
  package let name: String
  package let unit: Unit
  package let better: Better

  /// Whether a figure of this metric is never below zero: a time, a count, a rate or a ratio
  /// of two of them. A size may be (the heap a case holds live is measured against what the
  /// process held before it), and so may a fit's coefficients.
  package var isNonNegative: Bool {
    ![.none, .bool, .bytes].contains(unit) && ![Self.batchFaultFixed, .rowCost].contains(self)
  }

  package init(_ name: String, _ unit: Unit, better: Better = .lower) {
    self.name = name
    self.unit = unit
    self.better = better
  }

  package var description: String { name }

  // MARK: a run's case (fetchbench run)
  package static let time = Metric("time_ms", .ms)
  package static let cpu = Metric("cpu_ms", .ms)
  package static let heapLive = Metric("heap_live_bytes", .bytes)
  package static let heapPeak = Metric("heap_peak_bytes", .bytes)
  package static let peakRSS = Metric("peak_rss_bytes", .bytes)
  package static let allocations = Metric("allocations", .count)
  /// Minor page faults of a repetition (`Sample.pageFaults`), the median of the repetitions.
  package static let pageFaults = Metric("page_faults", .count)
  package static let queries = Metric("queries", .count)
  package static let rowsMaterialized = Metric("rows_materialized", .count)
  package static let roundTrips = Metric("round_trips", .count)
  package static let bytesReceived = Metric("bytes_received", .bytes)
  /// The 20 rows' mapping to typed models alone (after faulting).
  package static let mapping = Metric("map_us", .us)
  /// PostgreSQL's COPY load of a dataset, once per run.
  package static let load = Metric("load_s", .s)
  /// A case that failed: its row carries the error.
  package static let failed = Metric("failed", .none, better: .neither)
  /// A case stopped when its resident memory passed the machine's ceiling: the resident bytes
  /// read then; its row carries the ceiling in the error.
  package static let doesNotFit = Metric("does_not_fit", .bytes, better: .neither)

  /// The in-memory limit: the request's keys pre-extracted and sorted by the stdlib (and for
  /// full fetch and scroll-through the rows copied out), timed alternately with the case.
  package static let limit = Metric("limit_ms", .ms)
  /// The case's time over the limit's, per alternating pair: median and range of the pairs.
  package static let engineOverLimit = Metric("engine_over_limit", .ratio)
  /// The in-memory limit of a case read by offset or keyset pages: each page it reads selected
  /// from the pre-extracted keys as the store selects it (`Limit.pages`), timed alternately.
  package static let pageLimit = Metric("page_limit_ms", .ms)
  package static let engineOverPageLimit = Metric("engine_over_page_limit", .ratio)

  /// A SQLite case's floor (the store's own statements through the C API: the ID query, the
  /// full query, or a scroll-through), timed alternately with the case in its process.
  package static let floor = Metric("floor_ms", .ms)
  package static let engineOverFloor = Metric("engine_over_floor", .ratio)
  /// SQLite's scan limit for a batched performFetch: one scan per table of the columns the
  /// sort needs, plus the stdlib's sort; alternately with the case.
  package static let scanLimit = Metric("scan_limit_ms", .ms)
  package static let engineOverScanLimit = Metric("engine_over_scan_limit", .ratio)
  /// The sectioned scenario without its sections (the same sort and first screen), on every
  /// store, alternately with the case: what sections add.
  package static let unsectioned = Metric("unsectioned_ms", .ms)
  package static let sectionedOverUnsectioned = Metric("sectioned_over_unsectioned", .ratio)
  /// A cells scenario's same cells with the relationships they read prefetched, on the same
  /// store, alternately with the case (whose cells fault them one related object at a time).
  package static let prefetched = Metric("prefetched_ms", .ms)
  package static let faultingOverPrefetched = Metric("faulting_over_prefetched", .ratio)
  /// A case whose list sorts strings by a selector, with every sort by `compare:` (bytes)
  /// instead, on the same store, alternately with the case: what the selector costs.
  package static let byteWiseSort = Metric("bytewise_sort_ms", .ms)
  package static let selectorOverByteWise = Metric("selector_over_bytewise", .ratio)
  /// A case issuing Core Data's statements (`sqlite-coredata`) beside the same case with
  /// FetchBench's tuned statements on the same file, alternately in the case's process.
  package static let tunedPlan = Metric("tuned_plan_ms", .ms)
  package static let coreDataOverTuned = Metric("coredata_over_tuned", .ratio)

  /// The same case at the run's smallest row count (`CaseSpec.growthFrom`), opened beside the
  /// case's store and timed alternately with it in the case's process; the row's detail names
  /// that row count.
  package static let smallerSize = Metric("smaller_size_ms", .ms)
  /// The case's time over `smallerSize`'s, per alternating pair: its growth, measured as the
  /// report's other ratios are.
  package static let growth = Metric("growth", .ratio)
  /// The growth of the case's limit, floor and scan limit, measured the same way: each one's
  /// time at the case's rows over its time at the smaller row count, per pair.
  package static let limitGrowth = Metric("limit_growth", .ratio)
  package static let floorGrowth = Metric("floor_growth", .ratio)
  package static let scanLimitGrowth = Metric("scan_limit_growth", .ratio)

  /// The growth metric of a reference's time (`limitGrowth` for `limit`), nil for those with
  /// no growth measured.
  package static func growth(of time: Metric) -> Metric? {
    switch time {
    case .limit: .limitGrowth
    case .floor: .floorGrowth
    case .scanLimit: .scanLimitGrowth
    default: nil
    }
  }

  /// The run's memory budget (`--memory-budget`), a `settings` row the report reads.
  package static let memoryBudget = Metric("memory_budget_bytes", .bytes, better: .neither)
  /// The time a list may take to open and still count as within one frame (`--frame-budget-ms`).
  package static let frameBudget = Metric("frame_budget_ms", .ms, better: .neither)
  /// The user's list (`--sort`, `--section`, `--where`), a `settings` row: the text is its
  /// `detail`.
  package static let customRequest = Metric("request", .none, better: .neither)
  /// The user's own database a run measured (`--db`), a `settings` row: its size in bytes;
  /// the `detail` names the file, the entity and the file's SHA-256.
  package static let database = Metric("database_bytes", .bytes, better: .neither)
  /// jemalloc's configuration from the environment (`MALLOC_CONF`, which every case's process
  /// inherits), a `settings` row when it is set: the text is its `detail`. Huge pages or a
  /// changed reuse of large blocks move every figure at millions of rows.
  package static let allocatorConfiguration = Metric("malloc_conf", .none, better: .neither)

  // MARK: index advice (fetchbench run, mode index_advice)
  /// A fast operation's wall time: a batch fault, a page.
  package static let timeUs = Metric("time_us", .us)
  /// The same operation on the file with the index over the file without it, per
  /// alternating pair.
  package static let overUnindexed = Metric("over_unindexed", .ratio)

  // MARK: the machine while a case ran
  /// CPU the rest of the machine used while the case's processes ran (other processes and the
  /// kernel, less the case's and the PostgreSQL server's), in cores: the most of its processes.
  package static let othersCores = Metric("others_cores", .ratio, better: .neither)
  /// CPU the hypervisor stole meanwhile, in cores: the most of its processes.
  package static let stealCores = Metric("steal_cores", .ratio, better: .neither)
  /// SQLite's `EXPLAIN QUERY PLAN` of the operation's statement: the text is the row's
  /// `detail`, the value 0.
  package static let queryPlan = Metric("query_plan", .none, better: .neither)

  // MARK: floors (the same SQL with nothing on top)
  package static let floorIDs = Metric("floor_ids_ms", .ms)
  package static let floorIDsArray = Metric("floor_ids_array_ms", .ms)
  package static let floorFull = Metric("floor_full_ms", .ms)
  package static let floorScroll = Metric("floor_scroll_ms", .ms)
  package static let floorServerIDs = Metric("floor_server_ids_ms", .ms)
  package static let floorServerFull = Metric("floor_server_full_ms", .ms)
  package static let floorServerBatch = Metric("floor_server_batch_ms", .ms)
  package static let roundTrip = Metric("round_trip_us", .us)
  package static let batchFaultFixed = Metric("batch_fault_fixed_us", .us)
  package static let rowCost = Metric("row_cost_us", .us)
  package static let roundTripBatchSize = Metric("round_trip_batch_size", .rows, better: .neither)
  /// PostgreSQL's batch-size sweep: time per row of a scroll-through at batch size `b`.
  package static func sweepPerRow(batchSize b: Int) -> Metric { Metric("sweep_b\(b)_us_per_row", .us) }

  // MARK: the diff benchmark (fetchbench diff)
  package static let incremental = Metric("incremental_ms", .ms)
  package static let diff = Metric("diff_ms", .ms)
  package static let refetchDiff = Metric("refetch_diff_ms", .ms)
  package static let stdlibDiff = Metric("stdlib_diff_ms", .ms)
  package static let stdlibDiffSkipped = Metric("stdlib_diff_skipped_over_s", .s, better: .neither)
  package static let objectsChanged = Metric("objects_changed", .count, better: .neither)
  package static let deletes = Metric("deletes", .count)
  package static let inserts = Metric("inserts", .count)
  package static let moves = Metric("moves", .count)
  package static let movesMinimal = Metric("moves_minimal", .count)
  package static let reloads = Metric("reloads", .count)
  package static let sectionChanges = Metric("section_changes", .count)
  package static let changeSetSize = Metric("change_set_size", .count)
  package static let diffChangeSetSize = Metric("diff_change_set_size", .count)
  package static let rowsAfter = Metric("rows_after", .count, better: .neither)
  /// What the step's save cost its store: the statements it issued and the commits (each an
  /// fsync with `synchronous=FULL`): two on a Core Data file for a save that inserts.
  package static let saveStatements = Metric("save_statements", .count)
  package static let saveCommits = Metric("save_commits", .count)
  /// The same transaction under Core Data's change rules (`ChangeRules.coreData`).
  package static let movesCoreData = Metric("moves_coredata", .count)
  package static let reloadsCoreData = Metric("reloads_coredata", .count)
  /// Rows a list kept under Core Data's rules shows out of place (against a fresh fetch),
  /// since it was opened.
  package static let staleRowsCoreData = Metric("stale_rows_coredata", .count)
  /// performFetch of a sectioned list with a section cache, after a save (the cache is stale
  /// and rebuilt) and again (the cache is valid).
  package static let relaunchAfterSave = Metric("relaunch_after_save_ms", .ms)
  package static let relaunchCached = Metric("relaunch_cached_ms", .ms)

  // MARK: the load test (fetchbench load, summary.csv)
  package static let seconds = Metric("seconds", .s, better: .neither)
  package static let commits = Metric("commits", .count, better: .higher)
  package static let commitsPerSecond = Metric("commits_per_s", .perSecond, better: .higher)
  package static let attemptsPerSecond = Metric("attempts_per_s", .perSecond, better: .higher)
  package static let targetCommitsPerSecond = Metric("target_commits_per_s", .perSecond, better: .neither)
  package static let failedCommits = Metric("failed_commits", .count, better: .neither)
  package static let changeSets = Metric("change_sets", .count, better: .neither)
  package static let coalescedTransactions = Metric("coalesced_transactions", .count, better: .neither)
  package static let faults = Metric("faults", .count, better: .higher)
  package static let faultsPerSecond = Metric("faults_per_s", .perSecond, better: .higher)
  package static let reconnects = Metric("reconnects", .count)
  package static let staleReads = Metric("stale_reads", .count)
  package static let invalidChangeSets = Metric("invalid_change_sets", .count)
  package static let missedTransactions = Metric("missed_transactions", .count)
  package static let repeatedTransactions = Metric("repeated_transactions", .count)
  package static let mirrorsMatch = Metric("mirrors_match", .bool, better: .higher)
  package static let rolledBackRowsVisible = Metric("rolled_back_rows_visible", .count)
  package static let heapGrowth = Metric("heap_growth_bytes", .bytes)

  /// A latency percentile of the load test: `delivery_p99_ms`.
  package static func latency(_ what: String, _ quantile: String) -> Metric { Metric("\(what)_\(quantile)_ms", .ms) }
}

extension Metric {
  /// Every metric with a fixed name, for reading results back with their direction.
  package static let all: [Metric] = [
    .time, .cpu, .heapLive, .heapPeak, .peakRSS, .allocations, .pageFaults, .queries, .rowsMaterialized, .roundTrips,
    .bytesReceived,
    .mapping, .load, .failed, .doesNotFit, .limit, .engineOverLimit, .pageLimit, .engineOverPageLimit, .floor,
    .engineOverFloor, .scanLimit,
    .engineOverScanLimit, .unsectioned, .sectionedOverUnsectioned, .prefetched, .faultingOverPrefetched, .byteWiseSort,
    .selectorOverByteWise, .tunedPlan,
    .coreDataOverTuned,
    .smallerSize,
    .growth, .limitGrowth,
    .floorGrowth, .scanLimitGrowth,
    .memoryBudget, .frameBudget, .customRequest, .database, .allocatorConfiguration, .timeUs, .overUnindexed,
    .queryPlan, .floorIDs,
    .floorIDsArray,
    .floorFull,
    .floorScroll, .floorServerIDs, .floorServerFull, .floorServerBatch, .roundTrip, .batchFaultFixed, .rowCost,
    .roundTripBatchSize,
    .incremental, .diff, .refetchDiff, .stdlibDiff, .stdlibDiffSkipped, .objectsChanged, .deletes, .inserts, .moves,
    .movesMinimal,
    .reloads, .sectionChanges, .changeSetSize, .diffChangeSetSize, .rowsAfter, .saveStatements, .saveCommits,
    .movesCoreData, .reloadsCoreData,
    .staleRowsCoreData,
    .relaunchAfterSave, .relaunchCached, .seconds, .commits, .commitsPerSecond, .attemptsPerSecond,
    .targetCommitsPerSecond, .failedCommits, .changeSets, .coalescedTransactions, .faults, .faultsPerSecond,
    .reconnects, .staleReads,
    .invalidChangeSets, .missedTransactions, .repeatedTransactions, .mirrorsMatch, .rolledBackRowsVisible, .heapGrowth,
    .othersCores,
    .stealCores,
  ]

  private static let byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

  /// The metric named `name` in results.csv: a known one with its direction, else one made
  /// from the name and unit (a sweep's or a percentile's), lower being better for a figure
  /// with a unit of time, size or count. O(1).
  package static func named(_ name: String, unit: Unit) -> Metric {
    if let m = byName[name], m.unit == unit { return m }
    return Metric(name, unit, better: [.ms, .us, .s, .bytes, .count, .ratio].contains(unit) ? .lower : .neither)
  }
}

/// One figure of a case: a metric and its repeated measurements.
package struct Measurement: Sendable, Codable, Equatable {
  package var metric: Metric
  package var summary: Summary
  /// A case that measures several index variants or operations (the index advice) names
  /// each figure's; nil: the case's own.
  package var index: IndexTag? = nil
  package var scenario: ResultScenario? = nil
  /// Text the figure carries (a query plan).
  package var detail: String? = nil

  package init(_ metric: Metric, _ summary: Summary) {
    self.metric = metric
    self.summary = summary
  }

  /// A figure measured once.
  package init(_ metric: Metric, _ value: Double) { self.init(metric, Summary([value])) }
}
