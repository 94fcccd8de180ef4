import Datasets
import Foundation

/// What `fetchbench check` runs and where it keeps its baseline.
public struct GateOptions: Sendable {
  public var baselinePath = "results/baselines/ci.json"
  public var update = false
  public var batchSize = 20
  /// Rows per dataset: large enough that batching matters, small enough for CI.
  public var rows = 50_000
  public var repetitions = 15
  public var stores: [StoreKind] = [.memory, .sqlite, .postgres]
  public var datasetsDirectory = "datasets"
  public var allowOtherMachine = false
  public var failOnImprovement = false
  public init() {}

  /// The matrix: banks and wells on each store (fetch scenarios), and change tracking on banks.
  public func cases() -> [CaseSpec] {
    var out: [CaseSpec] = []
    // Change tracking first, before any PostgreSQL case has left the server busy, with three
    // times the repetitions: each is a few milliseconds, and the median of more pairs rides
    // out a burst of background work.
    for store in stores {
      out.append(
        CaseSpec(
          dataset: .banks, rows: rows, seed: 1, datasetsDirectory: datasetsDirectory, store: store.rawValue, mode: "gate",
          batchSize: batchSize, index: nil, scenario: "gate_diff", repetitions: repetitions * 3, warmups: 1))
    }
    for kind in DatasetKind.allCases {
      for store in stores {
        out.append(
          CaseSpec(
            dataset: kind, rows: rows, seed: 1, datasetsDirectory: datasetsDirectory, store: store.rawValue, mode: "gate",
            batchSize: batchSize, index: nil, scenario: "gate", repetitions: repetitions, warmups: 1))
      }
    }
    return out
  }
}

public enum GateRun {
  /// Measures the matrix, one child process per case. Throws when a case fails: a gate that
  /// cannot measure must not pass.
  public static func measure(_ options: GateOptions, log: @escaping @Sendable (String) -> Void) throws -> (
    figures: [GateFigure], datasets: [String: String]
  ) {
    var checksums: [String: String] = [:]
    for kind in DatasetKind.allCases {
      let r = try Generation.run(
        GenerationRequest(
          datasets: [kind], rows: options.rows, seed: 1, outDirectory: options.datasetsDirectory, writeCSV: false, ifMissing: true),
        progress: ProgressLine())
      checksums["\(kind.rawValue)-\(options.rows)"] = r.first?.entry.sha256
    }
    let cases = options.cases()
    var figures: [GateFigure] = []
    for (k, spec) in cases.enumerated() {
      let t0 = Clock.wallNanos
      switch Runner.runChild(spec) {
      case .success(let r):
        figures += r.figures ?? []
        log(
          String(
            format: "[%d/%d] %@-%d %@ %@ (%.1f s)", k + 1, cases.count, spec.dataset.rawValue, spec.rows, spec.store, spec.scenario,
            Double(Clock.wallNanos - t0) / 1e9))
      case .failure(let message):
        throw HarnessError.invalidArgument("gate case \(spec.dataset.rawValue) \(spec.store) \(spec.scenario) failed: \(message)")
      }
    }
    return (figures, checksums)
  }

  /// Reads a baseline; nil when the file does not exist.
  public static func loadBaseline(_ path: String) throws -> GateBaseline? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    do {
      return try JSONDecoder().decode(GateBaseline.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
      throw HarnessError.invalidArgument("\(path) is not a readable baseline: \(error)")
    }
  }

  /// Writes a baseline (readable, sorted keys) through a temporary file.
  public static func writeBaseline(_ b: GateBaseline, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try AtomicFile.write(encoder.encode(b), to: path)
  }
}
