import DatasetStores
import Datasets
import Foundation
import Reports
import ResultModel
import Vocabulary

/// Writes a run's files as an `OutputFolder`.
package enum ResultFiles {
  /// What a run folder holds; an unmarked `latest` folder of these alone is FetchBench's own.
  package static let names: Set<String> = ["results.csv", "results.json", "recommendation.json", "report.md", "charts"]

  /// The rows as results.csv holds them (`ResultRow.rounded`), each with its repetitions:
  /// what every file and every printed answer is made from, so that `fetchbench report DIR`
  /// gives the same page, results.json the same figures and the printed recommendation the
  /// same text as recommendation.json. O(rows).
  /// Throws on a figure that is not finite, which results.csv would not read back.
  package static func rounded(_ measured: [ResultRow]) throws -> [ResultRow] {
    if let bad = measured.first(where: { ![$0.value, $0.min, $0.max].allSatisfy(\.isFinite) }) {
      throw RunFolderError.notFinite(
        figure: "\(bad.metric) of \(bad.key.store) \(bad.key.mode) \(bad.key.scenario)", value: bad.value, min: bad.min,
        max: bad.max)
    }
    return measured.map(\.rounded)
  }

  /// Writes the run's files from `measured` and returns the recommendation that
  /// recommendation.json holds (empty when no list has one). O(rows).
  @discardableResult
  package static func write(_ measured: RunResults, to dir: String, command: OutputFolder.Command) throws
    -> [Recommendation]
  {
    let results = RunResults(settings: measured.settings, figures: try rounded(measured.figures))
    let rows = results.recorded
    let csv = ResultsCSV.encode(rows)
    let picks = Recommendation.all(results)
    try OutputFolder.write(to: dir, command: command) { tmp in
      try FileManager.default.createDirectory(atPath: tmp + "/charts", withIntermediateDirectories: false)
      try Data(csv.utf8).write(to: URL(fileURLWithPath: tmp + "/results.csv"))
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      try encoder.encode(rows).write(to: URL(fileURLWithPath: tmp + "/results.json"))
      if !picks.isEmpty { try Recommendation.json(picks).write(to: URL(fileURLWithPath: tmp + "/recommendation.json")) }
      let report = Report(results, recommendations: picks)
      for (name, svg) in report.charts() {
        try Data(svg.utf8).write(to: URL(fileURLWithPath: try OutputFolder.child(tmp + "/charts", name)))
      }
      try Data(report.markdown().utf8).write(to: URL(fileURLWithPath: tmp + "/report.md"))
    }
    return picks
  }

  /// Renders report.md and the charts again from the run's figures (`RunRows.read`), in a folder FetchBench
  /// wrote and marked as its output, holding nothing FetchBench did not write (a folder of
  /// the user's is rendered elsewhere with `--out`). Holds the folder's lock while it writes.
  package static func rerender(_ dir: String) throws {
    try OutputLock.with(dir) { try rerenderHoldingLock(dir) }
  }

  /// Throws unless `dir` is a marked output of FetchBench with no file it did not write.
  static func checkRerenderable(_ dir: String) throws {
    guard let marker = try? OutputFolder.readMarker(dir) else {
      throw RunFolderError.notFetchBenchsFolder(dir)
    }
    if let why = OutputFolder.whyNotReplaceable(
      dir, command: marker.command, legacyNames: nil, kept: ["results.csv", "results.json"])
    {
      let what = why.split(separator: ";", maxSplits: 1).first.map(String.init) ?? why
      throw DatasetError.cannotWrite(path: dir, reason: what + "; render it into a new folder with --out NEW_FOLDER")
    }
  }

  private static func rerenderHoldingLock(_ dir: String) throws {
    let results = try RunRows.read(dir)
    try checkRerenderable(dir)
    results.settings.database?.reregister(request: results.settings.request)
    let picks = Recommendation.all(results)
    let report = Report(results, recommendations: picks)
    var isDir: ObjCBool = false
    if FileManager.default.fileExists(atPath: dir + "/charts", isDirectory: &isDir),
      !isDir.boolValue || DatasetFile.isSymbolicLink(dir + "/charts")
    {
      throw DatasetError.cannotWrite(
        path: dir + "/charts", reason: "it is not a folder of charts, and FetchBench does not replace it")
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
    var written = ["charts/", "report.md"] + charts.map { "charts/\($0.0)" }
    if !picks.isEmpty {
      try AtomicFile.write(try Recommendation.json(picks), to: dir + "/recommendation.json")
      written.append("recommendation.json")
    }
    try OutputFolder.addToMarker(written, in: dir)
  }
}
