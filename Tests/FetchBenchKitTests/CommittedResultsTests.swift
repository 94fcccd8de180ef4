import DatasetStores
import FetchBenchKit
import FetchedResults
import Foundation
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// Every run and load folder committed under results/ renders again with today's code to the
/// report committed beside it: `fetchbench report DIR --out NEW` from its results alone,
/// page for page. A change to the report's words or rules that would change a committed page fails
/// here until the page is rendered again (or, where its figures no longer tell the answer, the
/// run is recorded again).
@Suite(.serialized) struct CommittedResults {
  /// The folders under results/ holding a run's results.csv or a load test's summary.csv, in
  /// path order.
  static func runFolders() -> [String] {
    let root = TestSupport.packageRoot.appendingPathComponent("results").path
    let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
    let files = found.filter { $0.hasSuffix("/results.csv") || $0.hasSuffix("/summary.csv") }
    return Set(files.map { root + "/" + ($0 as NSString).deletingLastPathComponent }).sorted()
  }

  /// A run of a generated dataset's file (banks in Core Data's schema) names its list by that
  /// file: it is generated first where it is missing, as `run` generated it.
  static func generateRecordedDatasets(_ folder: String) throws {
    // A load folder names no database.
    guard let csv = try? String(contentsOfFile: folder + "/results.csv", encoding: .utf8) else { return }
    guard csv.contains("banks-244292.coredata.sqlite"),
      !FileManager.default.fileExists(
        atPath: TestSupport.packageRoot.appendingPathComponent("datasets/banks-244292.coredata.sqlite").path)
    else { return }
    let out = try TestSupport.run(
      [
        "generate", "--dataset", "banks", "--rows", "244292", "--schema", "coredata", "--format", "sqlite",
        "--if-missing",
      ],
      currentDirectory: TestSupport.packageRoot.path)
    #expect(out.status == 0, "\(out.stderr)")
  }

  @Test func everyCommittedRunRendersAsCommitted() throws {
    let folders = Self.runFolders()
    #expect(folders.count >= 22, "\(folders)")
    let dir = TestSupport.temporaryFolder("committed")
    defer { TestSupport.remove(dir) }
    for (i, folder) in folders.enumerated() {
      try Self.generateRecordedDatasets(folder)
      let out = "\(dir)/\(i)"
      let rendered = try TestSupport.run(
        ["report", folder, "--out", out], currentDirectory: TestSupport.packageRoot.path)
      #expect(rendered.status == 0, "\(folder): \(rendered.stderr)")
      let committed = try String(contentsOfFile: folder + "/report.md", encoding: .utf8)
      let again = (try? String(contentsOfFile: out + "/report.md", encoding: .utf8)) ?? ""
      let first = zip(committed.split(separator: "\n"), again.split(separator: "\n")).first { $0 != $1 }
      #expect(
        again == committed,
        "\(folder): render it again (fetchbench report DIR --out NEW, then copy report.md and charts/): \(first.map { "\($0.0) ≠ \($0.1)" } ?? "length")"
      )
    }
  }

  /// A report rendered again in place marks every file it wrote, the recommendation too: a
  /// folder rendered twice, the first time from a run that kept no recommendation, renders the
  /// second time and still matches its marker.
  @Test func renderingInPlaceMarksTheRecommendation() throws {
    let dir = TestSupport.temporaryFolder("in-place")
    defer { TestSupport.remove(dir) }
    let folder = dir + "/recommend"
    try FileManager.default.copyItem(
      atPath: TestSupport.packageRoot.appendingPathComponent("results/reference-recommend").path, toPath: folder)
    try FileManager.default.removeItem(atPath: folder + "/recommendation.json")
    var marker = try OutputFolder.readMarker(folder)
    marker.files.removeAll { $0 == "recommendation.json" }
    marker.checksums?["recommendation.json"] = nil
    try JSONEncoder().encode(marker).write(to: URL(fileURLWithPath: folder + "/" + OutputFolder.markerName))
    for pass in 1...2 {
      let out = try TestSupport.run(["report", folder], currentDirectory: TestSupport.packageRoot.path)
      #expect(out.status == 0, "pass \(pass): \(out.stderr)")
    }
    let after = try OutputFolder.readMarker(folder)
    #expect(after.files.contains("recommendation.json") && after.checksums?["recommendation.json"] != nil)
    #expect(OutputFolder.editedFiles(folder, after.checksums).isEmpty)
  }

  /// Every committed folder FetchBench marked lists exactly the files it holds, each with the
  /// checksum it has: a page or chart rendered again but committed without its marker would make
  /// `fetchbench report DIR` refuse the folder as the user's.
  @Test func everyCommittedMarkerMatchesItsFiles() throws {
    let root = TestSupport.packageRoot.appendingPathComponent("results").path
    let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
    let folders = found.filter { ($0 as NSString).lastPathComponent == OutputFolder.markerName }
      .map { root + "/" + ($0 as NSString).deletingLastPathComponent }.sorted()
    #expect(folders.count >= 20, "\(folders)")
    for folder in folders {
      let marker = try OutputFolder.readMarker(folder)
      let files = try OutputFolder.tree(folder).filter { $0 != OutputFolder.markerName }
      #expect(files == marker.files, "\(folder): its marker lists other files than it holds")
      #expect(marker.checksums != nil, "\(folder): its marker keeps no checksums")
      let edited = OutputFolder.editedFiles(folder, marker.checksums)
      #expect(
        edited.isEmpty,
        "\(folder): \(edited.joined(separator: ", ")) differ from the marker; commit the folder as `fetchbench report` wrote it"
      )
    }
  }
}

/// A load run's results.json reads back whole, and one recorded before an option or a figure
/// existed takes its default: a report rendered again reads what the run recorded.
@Suite struct LoadResultsReadBack {
  @Test func everyOptionAndFigureRoundTripsAndOldOnesTakeTheirDefaults() throws {
    var config = LoadConfig()
    (config.store, config.rows, config.seed, config.datasetsDirectory, config.writers) = (.postgres, 2_000, 7, "d", 3)
    (config.rate, config.transactionSizeMin, config.transactionSizeMax, config.observers) = (250, 2, 9, 5)
    (config.duration, config.maxTransactions, config.batchSize, config.failureRate) = (12, 40, 50, 0.05)
    (config.observerDelayMs, config.suspendObservers, config.frameBudgetMs) = (3, true, 8.3)
    (config.dropConnectionAt, config.screensPerSecond, config.heapBoundBytes) = (4, 10, 1 << 20)
    (config.changeRules, config.schema, config.historyTracking, config.rawWrites) = (.coreData, .coreData, true, true)
    config.drainTimeout = 9
    var result = LoadResult(config: config)
    (result.seconds, result.targetCommits, result.commits, result.failedCommits) = (1, 2, 3, 4)
    (result.faults, result.changeSets, result.changeSetSeconds, result.coalescedTransactions) = (5, 6, 7, 8)
    (result.reconnects, result.staleReads, result.invalidChangeSets, result.missedTransactions) = (9, 10, 11, 12)
    (result.repeatedTransactions, result.mirrorsMatch, result.rolledBackRowsVisible) = (13, false, 14)
    (result.staleRows, result.heapGrowthBytes, result.peakRSSBytes, result.durability) = (15, 16, 17, "FULL")
    (result.statementsPerSave, result.commitsPerSave, result.cpuSeconds, result.failures) = (18, 2, 19, ["x"])
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = try encoder.encode(result)
    #expect(try encoder.encode(JSONDecoder().decode(LoadResult.self, from: data)) == data, "every field is read back")
    // A run from before `schema`, `changeRules` and `changeSetSeconds` were recorded.
    var old = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    var oldConfig = old["config"] as! [String: Any]
    for key in ["schema", "changeRules", "historyTracking"] { oldConfig[key] = nil }
    old["config"] = oldConfig
    old["changeSetSeconds"] = nil
    let back = try JSONDecoder().decode(LoadResult.self, from: JSONSerialization.data(withJSONObject: old))
    #expect(
      back.config.schema == PhysicalSchema.fetchbench && back.config.changeRules == .minimal
        && !back.config.historyTracking)
    #expect(back.changeSetSeconds == 0 && back.commits == 3 && back.config.writers == 3)
  }
}
