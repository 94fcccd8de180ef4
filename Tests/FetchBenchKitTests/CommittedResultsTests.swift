import Foundation
import ResultModel
import TestSupport
import Testing

/// Every run folder committed under results/ renders again with today's code to the report
/// committed beside it (#54): `fetchbench report DIR --out NEW` from its results alone, page
/// for page. A change to the report's words or rules that would change a committed page fails
/// here until the page is rendered again (or, where its figures no longer tell the answer, the
/// run is recorded again).
@Suite(.serialized) struct CommittedResults {
  /// The folders holding a results.csv under results/, in path order.
  static func runFolders() -> [String] {
    let root = TestSupport.packageRoot.appendingPathComponent("results").path
    let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
    return found.filter { $0.hasSuffix("/results.csv") }.map { root + "/" + String($0.dropLast("/results.csv".count)) }
      .sorted()
  }

  /// A run of a generated dataset's file (banks in Core Data's schema) names its list by that
  /// file: it is generated first where it is missing, as `run` generated it.
  static func generateRecordedDatasets(_ folder: String) throws {
    let csv = try String(contentsOfFile: folder + "/results.csv", encoding: .utf8)
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
    #expect(folders.count >= 18, "\(folders)")
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
}
