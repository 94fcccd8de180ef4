import Datasets
import FetchedResults
import Foundation
import SQLiteStore

/// One measured case: what the parent sends a child process.
public struct CaseSpec: Sendable, Codable, Equatable {
  public var dataset: DatasetKind
  public var rows: Int
  public var seed: UInt64
  public var datasetsDirectory: String
  /// `memory`, `sqlite`, `postgres`, or `sqlite-raw` / `postgres-raw` for the floors.
  public var store: String
  public var mode: String
  public var batchSize: Int
  /// The column indexed in the dataset file, if any.
  public var index: String?
  /// A scenario's raw value, or `floor`.
  public var scenario: String
  public var repetitions: Int
  public var warmups: Int
  /// The diff benchmark's `--emit-changes` file, if any.
  public var emitChanges: String? = nil

  public var location: DatasetLocation {
    DatasetLocation(
      kind: dataset, rows: rows, seed: seed, directory: datasetsDirectory,
      indexes: index.map { [$0] } ?? [])
  }

  /// A short label for progress lines.
  public var label: String {
    "\(dataset.rawValue)-\(rows) \(store)\(index.map { "+idx(\($0))" } ?? "") \(mode)\(mode == "batched" ? "(\(batchSize))" : "") \(scenario)"
  }
}

/// One figure of a case.
public struct Measurement: Sendable, Codable, Equatable {
  public var metric: String
  public var unit: String
  public var summary: Summary
}

/// What a child reports: its measurements, or the error that stopped it.
public struct CaseResult: Sendable, Codable {
  public var spec: CaseSpec
  public var measurements: [Measurement]
  public var error: String?
  /// The gate's figures (`fetchbench check` cases only).
  public var figures: [GateFigure]? = nil

  public init(spec: CaseSpec, measurements: [Measurement], error: String?) {
    self.spec = spec
    self.measurements = measurements
    self.error = error
  }
}

/// Runs a case in this process (the child side). Opening the store is not measured: for the
/// memory store it is loading the dataset, which the app would have done before the list.
public enum CaseExecutor {
  public static func run(_ spec: CaseSpec) throws -> CaseResult {
    guard Heap.isAvailable else {
      throw HarnessError.invalidArgument(
        "jemalloc statistics are unavailable: the binary must link libjemalloc (scripts/bootstrap installs it)")
    }
    if spec.scenario == "floor" { return try spec.store == "postgres-raw" ? PostgresFloor.measure(spec) : Floor.measure(spec) }
    if spec.scenario.hasPrefix("gate") { return try GateMatrix.measure(spec) }
    if spec.scenario.hasPrefix("diff_") { return try DiffBenchmark.measure(spec, emit: spec.emitChanges) }
    guard let scenario = Scenario(rawValue: spec.scenario) else {
      throw HarnessError.invalidArgument("unknown scenario '\(spec.scenario)'")
    }
    guard let storeKind = StoreKind(rawValue: spec.store) else {
      throw HarnessError.invalidArgument("unknown store '\(spec.store)'")
    }
    let store = try spec.location.open(storeKind)
    let batchSize = spec.mode == FetchMode.full.rawValue ? 0 : spec.batchSize
    var wall: [Double] = []
    var cpu: [Double] = []
    var live = 0
    var peak = 0
    var allocations: UInt64 = 0
    var counters = StoreCounters()
    var mapping: [Double] = []
    for rep in 0..<(spec.warmups + spec.repetitions) {
      store.resetCounters()
      let heapBefore = Heap.allocated
      let allocsBefore = Heap.allocationRequests
      Heap.resetPeak()
      let peakBase = Heap.threadPeak
      let cpu0 = Clock.cpuNanos
      let t0 = Clock.wallNanos
      let (controller, mappingNanos) = try scenario.run(spec.dataset, batchSize: batchSize, store: store)
      let t1 = Clock.wallNanos
      let cpu1 = Clock.cpuNanos
      let heapAfter = Heap.allocated
      let peakAfter = Heap.threadPeak
      let allocsAfter = Heap.allocationRequests
      withExtendedLifetime(controller) {}
      guard rep >= spec.warmups else { continue }
      wall.append(Double(t1 - t0) / 1e6)
      cpu.append(Double(cpu1 - cpu0) / 1e6)
      if let mappingNanos { mapping.append(Double(mappingNanos) / 1e3) }
      live = heapAfter - heapBefore
      peak = max(0, peakAfter - peakBase)
      allocations = allocsAfter - allocsBefore
      counters = store.counters
    }
    func fixed(_ m: String, _ unit: String, _ v: Double) -> Measurement {
      Measurement(metric: m, unit: unit, summary: Summary([v]))
    }
    let mappingMeasurement = mapping.isEmpty ? [] : [Measurement(metric: "map_us", unit: "us", summary: Summary(mapping))]
    let serverMeasurements =
      storeKind == .postgres
      ? [fixed("round_trips", "count", Double(counters.roundTrips)), fixed("bytes_received", "bytes", Double(counters.bytesReceived))] : []
    return CaseResult(
      spec: spec,
      measurements: [
        Measurement(metric: "time_ms", unit: "ms", summary: Summary(wall)),
        Measurement(metric: "cpu_ms", unit: "ms", summary: Summary(cpu)),
        fixed("heap_live_bytes", "bytes", Double(live)),
        fixed("heap_peak_bytes", "bytes", Double(peak)),
        fixed("peak_rss_bytes", "bytes", Double(Clock.peakRSS)),
        fixed("allocations", "count", Double(allocations)),
        fixed("queries", "count", Double(counters.queries)),
        fixed("rows_materialized", "count", Double(counters.rowsMaterialized)),
      ] + mappingMeasurement + serverMeasurements, error: nil)
  }
}
