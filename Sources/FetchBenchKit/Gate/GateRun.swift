import Catalog
import DatasetStores
import Datasets
import Foundation
import HarnessSupport
import Vocabulary

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

  /// Each list's data's checksum (`banks-50000` or a database's path → SHA-256), a dataset
  /// generated when missing and read from the file when kept: an edited dataset then differs
  /// from the baseline's and the gate cannot judge (3) rather than reporting a regression.
  /// O(rows) per list.
  package static func datasetChecksums(_ lists: [GateList.Resolved], _ options: GateOptions) throws -> [String: String]
  {
    var checksums: [String: String] = [:]
    for list in lists where checksums[list.checksumKey] == nil {
      if let database = list.userList?.database {
        checksums[list.checksumKey] = try database.sha256()
        continue
      }
      var request = GenerationRequest(
        datasets: [list.kind], rows: list.rows, seed: 1, outDirectory: options.datasetsDirectory, writeCSV: false,
        ifMissing: true)
      request.verification = .contentsReported
      let r = try Generation.run(request, progress: ProgressLine())
      checksums[list.checksumKey] = r.first?.entry.sha256
    }
    return checksums
  }

  /// Measures the matrix (or the given cases of it), one child process per case. Throws
  /// when a case fails: a gate that cannot measure must not pass.
  package static func measure(
    _ options: GateOptions, _ lists: [GateList.Resolved], cases only: [CaseSpec]? = nil,
    log: @escaping @Sendable (String) -> Void
  ) throws -> GateMeasurement {
    let checksums = try datasetChecksums(lists, options)
    let cases = only ?? options.cases(lists)
    var m = GateMeasurement(figures: [], datasets: checksums)
    for (k, spec) in cases.enumerated() {
      let before = CPUWatch.read()
      let label = "\(spec.gate?.name ?? spec.dataset.rawValue)-\(spec.rows) \(spec.store.rawValue) \(spec.scenario)"
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
        throw GateError.caseFailed(label: label, message: message)
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
    _ report: inout GateReport, _ first: GateMeasurement, _ options: GateOptions, _ lists: [GateList.Resolved],
    log: @escaping @Sendable (String) -> Void
  ) throws {
    let suspects = report.lines.filter { $0.kind == .ratio && $0.verdict == .regression }
    guard !suspects.isEmpty else { return }
    var specs: [CaseSpec] = []
    for l in suspects {
      if let spec = first.sources[l.name], !specs.contains(spec) { specs.append(spec) }
    }
    log("re-measuring \(suspects.count) time ratio(s) over tolerance: \(specs.count) case(s)")
    let again = try measure(options, lists, cases: specs, log: log)
    report.judgeRemeasured(again.figures, busy: again.busyFigures)
    report.notes += again.busyCases.map { "busy machine while re-measuring \($0)" }
  }

  /// The bytes of the file at `path`, nil when nothing is there. A folder, a FIFO (never
  /// opened: it would block) or an unreadable file is an error saying it is not a readable
  /// `what`. O(file).
  static func contents(of path: String, as what: String) throws -> Data? {
    switch DatasetFile.entry(at: path) {
    case .missing: return nil
    case .other(let kind):
      throw GateError.notAFile(path: path, what: what, isA: kind)
    case .file: break
    }
    do {
      return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw GateError.unreadable(path: path, what: what, detail: AtomicFile.describe(error))
    }
  }

  /// Reads a baseline; nil when nothing is at `path`. A folder, a FIFO or a file that is not a
  /// baseline is an error naming what it is.
  package static func loadBaseline(_ path: String) throws -> GateBaseline? {
    guard let data = try contents(of: path, as: "baseline") else { return nil }
    guard !data.isEmpty else {
      throw GateError.emptyBaseline(path)
    }
    do {
      return try JSONDecoder().decode(GateBaseline.self, from: data)
    } catch {
      throw GateError.notABaseline(path, detail: Self.describe(error, data: data))
    }
  }

  /// Checks, before `--update` measures anything, that its baseline may be written: nothing is
  /// at the path, or a baseline is (the only file `--update` replaces). O(file).
  package static func checkBaselineTarget(_ path: String) throws {
    do {
      _ = try loadBaseline(path)
    } catch {
      throw GateError.notReplaceable(cause: "\(error)")
    }
  }

  /// A decoding error in one line: what is wrong and where, not the decoder's dump. `data`:
  /// the JSON decoded, to find a number that is not whole, which Foundation's decoder reports
  /// only as invalid JSON.
  static func describe(_ error: any Error, data: Data? = nil) -> String {
    if case .dataCorrupted(let c) = error as? DecodingError, c.codingPath.isEmpty, let data,
      let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
      let (path, number) = firstNonWholeNumber(in: tree, at: "")
    {
      return "a wrong value at \(path.isEmpty ? "the top level" : path) (\(number) is not a whole number)"
    }
    return describeDecoding(error)
  }

  /// The path and text of the first number in `tree` that is not a whole number a count can
  /// hold, depth first. O(values).
  static func firstNonWholeNumber(in tree: Any, at path: String) -> (String, String)? {
    switch tree {
    case let object as [String: Any]:
      for key in object.keys.sorted() {
        if let found = firstNonWholeNumber(in: object[key]!, at: path.isEmpty ? key : path + "." + key) { return found }
      }
    case let array as [Any]:
      for (i, element) in array.enumerated() {
        if let found = firstNonWholeNumber(in: element, at: path + "[\(i)]") { return found }
      }
    case let number as NSNumber:
      let value = number.doubleValue
      if value.rounded() != value || abs(value) >= 9.2e18 { return (path, "\(number)") }
    default: break
    }
    return nil
  }

  static func describeDecoding(_ error: any Error) -> String {
    func text(_ path: [any CodingKey]) -> String {
      path.enumerated().map { i, key in key.intValue.map { "[\($0)]" } ?? (i == 0 ? "" : ".") + key.stringValue }
        .joined()
    }
    func at(_ path: [any CodingKey]) -> String { path.isEmpty ? "at the top level" : "at \(text(path))" }
    return switch error as? DecodingError {
    case .dataCorrupted(let c) where c.codingPath.isEmpty: "malformed JSON"
    // A value of the wrong kind (1.5 where a whole number goes): where, and what was found.
    case .dataCorrupted(let c):
      "a wrong value \(at(c.codingPath)) (\(c.debugDescription.trimmingCharacters(in: .punctuationCharacters)))"
    case .keyNotFound(let key, let c): "no \(text(c.codingPath + [key]))"
    case .typeMismatch(_, let c), .valueNotFound(_, let c): "a wrong value \(at(c.codingPath))"
    default: "\(error)"
    }
  }

  /// Writes a baseline (readable, sorted keys) through a temporary file.
  package static func writeBaseline(_ b: GateBaseline, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let folder = (path as NSString).deletingLastPathComponent
    if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
    try AtomicFile.write(encoder.encode(b), to: path)
  }
}
