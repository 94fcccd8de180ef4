import Catalog
import DatasetStores
import Datasets
import Foundation

/// What `fetchbench check` runs and where it keeps its baseline.
package struct GateOptions: Sendable {
  package var baselinePath = "results/baselines/ci.json"
  package var update = false
  package var batchSize = 20
  /// Rows per dataset: large enough that batching matters, small enough for CI.
  package var rows = 50_000
  package var repetitions = 15
  package var stores: [StoreKind] = [.memory, .sqlite, .postgres]
  package var datasetsDirectory = "datasets"
  package var allowOtherMachine = false
  package var failOnImprovement = false
  /// Runs of the matrix `update` combines.
  package var updateRuns = 3
  package init() {}

  /// The matrix: banks and wells on each store (fetch scenarios), and change tracking on banks.
  package func cases() -> [CaseSpec] {
    var out: [CaseSpec] = []
    // Change tracking first, before any PostgreSQL case has left the server busy, with three
    // times the repetitions: each is a few milliseconds, and the median of more pairs rides
    // out a burst of background work.
    for store in stores {
      out.append(
        CaseSpec(
          dataset: .banks, rows: rows, seed: 1, datasetsDirectory: datasetsDirectory, store: store, work: .gate(.diff),
          batchSize: batchSize, index: nil, repetitions: repetitions * 3, warmups: 1))
    }
    for kind in DatasetKind.allCases {
      for store in stores {
        out.append(
          CaseSpec(
            dataset: kind, rows: rows, seed: 1, datasetsDirectory: datasetsDirectory, store: store, work: .gate(.fetch),
            batchSize: batchSize, index: nil, repetitions: repetitions, warmups: 1))
      }
    }
    return out
  }
}

/// One run of the gate's matrix.
package struct GateMeasurement: Sendable {
  package var figures: [GateFigure]
  /// Dataset checksums by `dataset-rows`.
  package var datasets: [String: String]
  /// Cases during which the rest of the machine was busy (other processes, or CPU time
  /// stolen by the hypervisor), each with how busy; empty on a quiet machine.
  package var busyCases: [String] = []
  /// The names of the figures those cases measured: their time ratios are not judged.
  package var busyFigures: Set<String> = []
  /// The case that measured each figure, to measure it again.
  var sources: [String: CaseSpec] = [:]
}

package enum GateRun {
  /// Other processes using this much of a core on average, or the hypervisor stealing this
  /// much, during a case makes its figures suspect (reported, never hidden).
  static let busyCores = 0.25
  static let stealCores = 0.05

  /// Each dataset's checksum (`banks-50000` → SHA-256), generated when missing and read from
  /// the file when kept: an edited dataset then differs from the baseline's and the gate
  /// cannot judge (3) rather than reporting a regression. O(rows).
  package static func datasetChecksums(_ options: GateOptions) throws -> [String: String] {
    var checksums: [String: String] = [:]
    for kind in DatasetKind.allCases {
      var request = GenerationRequest(
        datasets: [kind], rows: options.rows, seed: 1, outDirectory: options.datasetsDirectory, writeCSV: false, ifMissing: true)
      request.verification = .contentsReported
      let r = try Generation.run(request, progress: ProgressLine())
      checksums["\(kind.rawValue)-\(options.rows)"] = r.first?.entry.sha256
    }
    return checksums
  }

  /// Measures the matrix (or the given cases of it), one child process per case. Throws
  /// when a case fails: a gate that cannot measure must not pass.
  package static func measure(
    _ options: GateOptions, cases only: [CaseSpec]? = nil, log: @escaping @Sendable (String) -> Void
  ) throws -> GateMeasurement {
    let checksums = try datasetChecksums(options)
    let cases = only ?? options.cases()
    var m = GateMeasurement(figures: [], datasets: checksums)
    for (k, spec) in cases.enumerated() {
      let before = CPUWatch.read()
      let label = "\(spec.dataset.rawValue)-\(spec.rows) \(spec.store.rawValue) \(spec.scenario)"
      switch Runner.runChild(spec) {
      case .success(let r):
        let load = CPUWatch.load(from: before, to: CPUWatch.read())
        let busy = String(format: "others %.2f cores, steal %.2f", load.othersCores, load.stealCores)
        let isBusy = load.othersCores >= busyCores || load.stealCores >= stealCores
        for f in r.figures ?? [] {
          m.figures.append(f)
          m.sources[f.name] = spec
          if isBusy { m.busyFigures.insert(f.name) }
        }
        if isBusy { m.busyCases.append("\(label): \(busy)") }
        log(String(format: "[%d/%d] %@ (%.1f s; %@)", k + 1, cases.count, label, load.seconds, busy))
      case .failure(let message), .doesNotFit(_, let message):
        throw HarnessError.invalidArgument("gate case \(label) failed: \(message)")
      }
    }
    return m
  }

  /// Measures once more the cases behind time ratios that regressed, and judges each such
  /// ratio on the lower of its two measurements: a slow ratio must reproduce in a second
  /// child process on a quiet machine to count, so that one burst of background work on a
  /// shared machine does not fail CI, while a real regression (which reproduces) still does.
  /// Both values are noted in the report.
  package static func confirmRatioRegressions(
    _ report: inout GateReport, _ first: GateMeasurement, _ options: GateOptions, log: @escaping @Sendable (String) -> Void
  ) throws {
    let suspects = report.lines.filter { $0.kind == .ratio && $0.verdict == .regression }
    guard !suspects.isEmpty else { return }
    var specs: [CaseSpec] = []
    for l in suspects {
      if let spec = first.sources[l.name], !specs.contains(spec) { specs.append(spec) }
    }
    log("re-measuring \(suspects.count) time ratio(s) over tolerance: \(specs.count) case(s)")
    let again = try measure(options, cases: specs, log: log)
    report.judgeRemeasured(again.figures, busy: again.busyFigures)
    report.notes += again.busyCases.map { "busy machine while re-measuring \($0)" }
  }

  /// Reads a baseline; nil when nothing is at `path`. A folder, a FIFO or a file that is not a
  /// baseline is an error naming what it is (a FIFO is never opened: it would block).
  package static func loadBaseline(_ path: String) throws -> GateBaseline? {
    switch DatasetFile.entry(at: path) {
    case .missing: return nil
    case .other(let what): throw HarnessError.invalidArgument("\(path) is not a readable baseline: it is \(what), not a file")
    case .file: break
    }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw HarnessError.invalidArgument("\(path) is not a readable baseline: \(AtomicFile.describe(error))")
    }
    guard !data.isEmpty else { throw HarnessError.invalidArgument("\(path) is not a readable baseline: the file is empty") }
    do {
      return try JSONDecoder().decode(GateBaseline.self, from: data)
    } catch {
      throw HarnessError.invalidArgument("\(path) is not a readable baseline: it is not a baseline's JSON (\(Self.describe(error)))")
    }
  }

  /// Checks, before `--update` measures anything, that its baseline may be written: nothing is
  /// at the path, or a baseline is (the only file `--update` replaces). O(file).
  package static func checkBaselineTarget(_ path: String) throws {
    do {
      _ = try loadBaseline(path)
    } catch {
      throw HarnessError.invalidArgument(
        "\(error); --update replaces only a baseline. Name a new file with --baseline, or move this one away")
    }
  }

  /// A decoding error in one line: what is wrong and where, not the decoder's dump.
  static func describe(_ error: any Error) -> String {
    switch error as? DecodingError {
    case .dataCorrupted(let c):
      "malformed JSON" + (c.codingPath.isEmpty ? "" : " at \(c.codingPath.map(\.stringValue).joined(separator: "."))")
    case .keyNotFound(let key, let c): "no \((c.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
    case .typeMismatch(_, let c), .valueNotFound(_, let c): "a wrong value at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
    default: "\(error)"
    }
  }

  /// Writes a baseline (readable, sorted keys) through a temporary file.
  package static func writeBaseline(_ b: GateBaseline, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try AtomicFile.write(encoder.encode(b), to: path)
  }
}
