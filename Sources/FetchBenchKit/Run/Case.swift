import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import ResultModel
import SQLiteStore
import TextFormatting
import Vocabulary

/// One measured case: what the parent sends a child process.
package struct CaseSpec: Sendable, Codable, Equatable {
  package var dataset: DatasetKind
  package var rows: Int
  package var seed: UInt64
  package var datasetsDirectory: String
  package var store: StoreKind
  package var work: CaseWork
  /// The batch size of batched cases and floors (0 for full fetch).
  package var batchSize: Int
  /// The column indexed in the dataset file, if any.
  package var index: String?
  package var repetitions: Int
  package var warmups: Int
  /// The diff benchmark's `--emit-changes` file, if any.
  package var emitChanges: String? = nil
  /// The user's list in place of the dataset's (`run --sort/--section/--where`).
  package var request: ListSpec? = nil
  /// The user's own database in place of a generated dataset (`run --db`).
  package var userList: UserList? = nil
  /// A smaller row count of the same dataset: the case also opens it and runs there
  /// alternately with every repetition, so its growth from that size is a ratio per pair from
  /// one process (`Metric.growth`). Set by a run over several row counts, on the memory store
  /// and SQLite (PostgreSQL holds one size of a dataset at a time).
  package var growthFrom: Int? = nil
  /// A gate case's list name and strategies (`check`); nil elsewhere.
  package var gate: GateCase? = nil

  package init(
    dataset: DatasetKind, rows: Int, seed: UInt64, datasetsDirectory: String, store: StoreKind, work: CaseWork,
    batchSize: Int,
    index: String?, repetitions: Int, warmups: Int
  ) {
    (self.dataset, self.rows, self.seed, self.datasetsDirectory) = (dataset, rows, seed, datasetsDirectory)
    (self.store, self.work, self.batchSize, self.index) = (store, work, batchSize, index)
    (self.repetitions, self.warmups) = (repetitions, warmups)
  }

  package var location: DatasetLocation {
    var location = DatasetLocation(
      kind: dataset, rows: rows, seed: seed, directory: datasetsDirectory,
      indexes: index.map { [$0] } ?? [])
    location.database = userList?.database
    return location
  }
}

extension CaseSpec: ChildWork {
  package static let command = "_case"

  /// A list over the user's database registers its kind first, from the file's schema (the
  /// parent's), so that the case's `dataset` names a known kind.
  package static func prepare(_ request: Data) throws {
    struct Header: Decodable {
      struct Work: Decodable {
        var userList: UserList?
        var request: ListSpec?
      }
      var work: Work
    }
    let header = try JSONDecoder().decode(Header.self, from: request).work
    if let list = header.userList {
      _ = try list.register(sort: header.request?.sortDescriptors, section: header.request?.section)
    }
  }
}

extension CaseSpec {
  /// results.csv's `store` column: floors are `sqlite-raw` and `postgres-raw`.
  /// Where the case measures: the store through the engine, or its own statements (a floor).
  package var resultStore: ResultStore { work == .floor ? .raw(store) : .engine(store) }
  package var mode: ResultMode { work.mode }
  package var scenario: ResultScenario { work.scenario }
  /// The key of the case's figures (an index advice figure names its own index and operation).
  package var key: ResultKey {
    ResultKey(
      dataset: dataset, rows: rows, store: resultStore, mode: mode, batchSize: batchSize,
      index: IndexTag(index),
      scenario: scenario)
  }

  /// A short label for progress lines.
  package var label: String {
    let batched = if case .scenario(_, let mode) = work, mode != .full { "(\(batchSize))" } else { "" }
    return
      """
      \(dataset.rawValue)-\(rows) \(resultStore.csv)\(index.map { "+idx(\($0))" } ?? "") \(mode.csv)\(batched) \
      \(scenario.csv)
      """
  }

  /// The list a failure names: the user's predicate and sort when given, else the dataset's.
  package var listDescription: String {
    var parts: [String] = []
    if let predicate = request?.text.predicate { parts.append("where `\(predicate)`") }
    if let sort = request?.text.sort { parts.append("sorted by `\(sort)`") }
    let list = "the list of \(dataset.rawValue) at \(rows.grouped) rows on \(resultStore.csv)"
    return parts.isEmpty ? list : "\(list) \(parts.joined(separator: ", "))"
  }
}

/// What a child reports: its measurements, or the error that stopped it.
package struct CaseResult: Sendable, Codable {
  package var spec: CaseSpec
  package var measurements: [Measurement]
  package var error: String?
  /// The gate's figures (`fetchbench check` cases only).
  package var figures: [GateFigure]? = nil
  /// The child processes that measured the case, their repetitions in order (`merged`).
  package var processes: Int? = nil

  package init(spec: CaseSpec, measurements: [Measurement], error: String?) {
    self.spec = spec
    self.measurements = measurements
    self.error = error
  }
}

/// Runs a case in this process (the child side). Opening the store is not measured: for the
/// memory store it is loading the dataset, which the app would have done before the list.
package enum CaseExecutor {
  package static func run(_ spec: CaseSpec) throws -> CaseResult {
    guard Heap.isAvailable else {
      throw MeasurementFault.jemallocUnavailable
    }
    let scenario: Scenario
    let mode: FetchMode
    switch spec.work {
    case .floor: return try spec.store == .postgres ? PostgresFloor.measure(spec) : Floor.measure(spec)
    case .gate(let work): return try GateMatrix.measure(spec, work)
    case .diff(let k, let sections): return try DiffBenchmark.measure(spec, k: k, sections: sections)
    case .indexAdvice: return try IndexAdvice.measure(spec)
    case .scenario(let s, let m): (scenario, mode) = (s, m)
    }
    let storeKind = spec.store
    let store = try spec.openStore()
    let batchSize = mode.batchSize(spec.batchSize)
    let custom = try spec.customRequest(scenario, batchSize: batchSize)
    // On the in-memory store the limit runs alternately with the case, so the two see the
    // same load and their ratio is taken per pair.
    let limit = try Self.limit(spec, scenario: scenario, mode: mode, request: custom, store: store)
    // On SQLite, the floor (and for a batched performFetch the scan limit) alternate the same
    // way, and on every store the sectioned scenario's request without sections; then the
    // same case and its limits at a smaller row count, for the growth.
    var references = try Self.references(spec, scenario: scenario, mode: mode, limit: limit, store: store)
    if let smaller = spec.growthFrom {
      references += try Self.growthReferences(spec, from: smaller, scenario: scenario, mode: mode, over: references)
    }
    var referenceMs = Array(repeating: [Double](), count: references.count)
    var ratios = Array(repeating: [Double](), count: references.count)
    var pairNanos = Array(repeating: UInt64(0), count: references.count)
    let runs = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { measured in
      let run = try spec.measure(scenario, mode, request: custom, store: store)
      for (i, reference) in references.enumerated() {
        pairNanos[i] = try reference.measure()
        if measured {
          referenceMs[i].append(Double(pairNanos[i]) / 1e6)
          let numerator = reference.numerator.map { pairNanos[$0] } ?? run.sample.wallNanos
          ratios[i].append(Double(numerator) / Double(max(1, pairNanos[i])))
        }
      }
      return run
    }
    let samples = runs.map(\.sample)
    let mapping = runs.compactMap { $0.mappingNanos.map { Double($0) / 1e3 } }
    // Heap and counters from the last repetition: they do not depend on load.
    let (sample, counters) = (runs.last!.sample, runs.last!.counters)
    let mappingMeasurement = mapping.isEmpty ? [] : [Measurement(.mapping, Summary(mapping))]
    let serverMeasurements =
      storeKind == .postgres
      ? [
        Measurement(.roundTrips, Double(counters.roundTrips)),
        Measurement(.bytesReceived, Double(counters.bytesReceived)),
      ] : []
    let limitMeasurements = references.indices.flatMap { i in
      let reference = references[i]
      var out =
        (reference.time.map { [Measurement($0, Summary(referenceMs[i]))] } ?? []) + [
          Measurement(reference.ratio, Summary(ratios[i]))
        ]
      for j in out.indices { out[j].detail = reference.detail }
      return out
    }
    return CaseResult(
      spec: spec,
      measurements: [
        Measurement(.time, Summary(samples.map(\.wallMs))),
        Measurement(.cpu, Summary(samples.map(\.cpuMs))),
        Measurement(.heapLive, Double(sample.heapLive)),
        Measurement(.heapPeak, Double(sample.heapPeak)),
        Measurement(.peakRSS, Double(Clock.peakRSS)),
        // Every repetition's: a count that can move between repetitions (statement caches,
        // a thread's first allocation) is then judged by its spread, not as an exact counter.
        Measurement(.allocations, Summary(samples.map { Double($0.allocations) })),
        Measurement(.pageFaults, Summary(samples.map { Double($0.pageFaults) })),
        Measurement(.queries, Double(counters.queries)),
        Measurement(.rowsMaterialized, Double(counters.rowsMaterialized)),
      ] + mappingMeasurement + serverMeasurements + limitMeasurements, error: nil)
  }

  /// What a case is held against in its own process: the in-memory limit; on SQLite the floor
  /// of performFetch and scroll-through, and a batched performFetch's scan limit; on every
  /// store, the sectioned scenario without sections.
  struct Reference {
    /// nil: only the ratio is recorded (a limit's growth: its time at the smaller size is
    /// that size's own figure).
    var time: Metric?
    var ratio: Metric
    /// The reference whose time of the same pair is over this one's in `ratio`; nil: the case's.
    var numerator: Int? = nil
    /// What the recorded figures carry in their detail (the smaller row count of a growth).
    var detail: String? = nil
    /// Runs the reference once and returns its wall time.
    var measure: () throws -> UInt64

    /// A reference timed around `work` alone.
    init(time: Metric?, ratio: Metric, _ work: @escaping () throws -> Int) {
      (self.time, self.ratio) = (time, ratio)
      measure = { try Sampler.wall(work).nanos }
    }

    init(time: Metric?, ratio: Metric, numerator: Int?, detail: String?, measure: @escaping () throws -> UInt64) {
      (self.time, self.ratio, self.numerator, self.detail, self.measure) = (time, ratio, numerator, detail, measure)
    }
  }

  /// The in-memory store's limit of a case. A scroll-through reads every row, so its limit
  /// copies every row out, as a full fetch's does; a paged case's reads its pages.
  static func limit(
    _ spec: CaseSpec, scenario: Scenario, mode: FetchMode, request custom: FetchRequest?, store: any Store
  ) throws
    -> Limit?
  {
    // The cells scenarios are held to the same cells prefetched instead.
    guard spec.store == .memory, !scenario.readsCells else { return nil }
    let batchSize = mode.batchSize(spec.batchSize)
    guard
      var limit = try Limit(
        try (custom ?? scenario.request(spec.dataset, batchSize: batchSize)).resolve(in: store.model),
        full: mode == .full || scenario == .scrollThrough,
        store: store)
    else { return nil }
    if mode.paging != nil {
      limit.pages = (scenario.pageOffsets(rows: limit.items.count, pageSize: batchSize), batchSize)
    }
    return limit
  }

  static func references(_ spec: CaseSpec, scenario: Scenario, mode: FetchMode, limit: Limit?, store: any Store) throws
    -> [Reference]
  {
    let batchSize = mode.batchSize(spec.batchSize)
    let unsectioned = scenario.unsectionedRequest(spec.dataset, batchSize: batchSize).map { request in
      Reference(time: .unsectioned, ratio: .sectionedOverUnsectioned) {
        if let strategy = mode.paging {
          return try scenario.runPaged(
            spec.dataset, pageSize: batchSize, strategy: strategy, store: store, request: request
          ).count
        }
        return try scenario.run(spec.dataset, batchSize: batchSize, store: store, request: request).controller.count
      }
    }
    var out = try Self.limits(spec, scenario: scenario, mode: mode, limit: limit)
    out += unsectioned.map { [$0] } ?? []
    out += try prefetchedCells(spec, scenario: scenario, mode: mode, store: store)
    out += try byteWiseSort(spec, scenario: scenario, mode: mode, store: store)
    return out + (try tunedPlan(spec, scenario: scenario, mode: mode))
  }

  /// For a cells scenario, the same cells with the relationships they read prefetched, on the
  /// same store, timed as the case is: what prefetching saves.
  static func prefetchedCells(_ spec: CaseSpec, scenario: Scenario, mode: FetchMode, store: any Store) throws
    -> [Reference]
  {
    guard scenario.readsCells else { return [] }
    let batchSize = mode.batchSize(spec.batchSize)
    let custom = try spec.customRequest(scenario, batchSize: batchSize)
    return [
      Reference(time: .prefetched, ratio: .faultingOverPrefetched) {
        try scenario.run(
          spec.dataset, batchSize: batchSize, store: store, request: custom, cells: spec.cells(prefetched: true)
        ).controller.count
      }
    ]
  }

  /// For a case issuing Core Data's statements, the same case issuing the tuned ones, on a
  /// second connection to the same file, timed as the case is.
  static func tunedPlan(_ spec: CaseSpec, scenario: Scenario, mode: FetchMode) throws -> [Reference] {
    guard spec.store == .sqliteCoreData, mode.paging == nil else { return [] }
    let tuned = try spec.location.open(.sqlite)
    let batchSize = mode.batchSize(spec.batchSize)
    let custom = try spec.customRequest(scenario, batchSize: batchSize)
    return [
      Reference(time: .tunedPlan, ratio: .coreDataOverTuned, numerator: nil, detail: nil) {
        try scenario.measure(
          spec.dataset, mode: mode, batchSize: batchSize, store: tuned, request: custom, cells: spec.cells()
        ).sample.wallNanos
      }
    ]
  }

  static func limits(_ spec: CaseSpec, scenario: Scenario, mode: FetchMode, limit: Limit?) throws -> [Reference] {
    if let limit {
      return [
        limit.pages == nil
          ? Reference(time: .limit, ratio: .engineOverLimit, limit.run)
          : Reference(time: .pageLimit, ratio: .engineOverPageLimit, limit.run)
      ]
    }
    // The floors are the store's own statements for full fetch and batched faulting.
    guard spec.store == .sqlite, mode.paging == nil, scenario == .performFetch || scenario == .scrollThrough else {
      return []
    }
    let model = DatasetModels.model(for: spec.dataset)
    let request = try
      (spec.customRequest(scenario, batchSize: spec.batchSize)
      ?? scenario.request(spec.dataset, batchSize: spec.batchSize))
      .resolve(in: model)
    // The floor's C API statements bind no predicate arguments.
    guard request.predicate == nil else { return [] }
    let raw = try RawSQLite(spec.location, request: request, batchSize: spec.batchSize)
    let floor: () throws -> Int =
      switch (scenario, mode) {
      case (_, .full): { raw.fullRows().count }
      case (.scrollThrough, .batched): { try raw.scroll(raw.ids()) }
      default: { raw.ids().count }
      }
    var out = [Reference(time: .floor, ratio: .engineOverFloor, floor)]
    if scenario == .performFetch, mode == .batched, let scan = ScanLimit(raw, request: request) {
      out.append(Reference(time: .scanLimit, ratio: .engineOverScanLimit, scan.run))
    }
    return out
  }
}

extension CaseResult {
  /// One case's results from several processes as one: each repeated figure's repetitions
  /// joined in process order, a figure measured once (counters, heap) the first process's.
  /// O(figures × repetitions).
  static func merged(_ results: [CaseResult]) -> CaseResult {
    guard var out = results.first, results.count > 1 else { return results.first! }
    for i in out.measurements.indices where out.measurements[i].summary.count > 1 {
      let samples = results.flatMap { $0.measurements.indices.contains(i) ? $0.measurements[i].summary.samples : [] }
      out.measurements[i].summary = Summary(samples)
    }
    out.processes = results.count
    return out
  }
}
