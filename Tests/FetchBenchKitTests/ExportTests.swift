import DatasetStores
import FetchBenchKit
import Foundation
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// `export`: a run's figures with a direction, in Bencher's and github-action-benchmark's
/// formats, each under its full key; files written new, never over one FetchBench did not write.
@Suite struct ExportRuns {
  static let rows = [
    CompareRuns.timed(.full, CompareRuns.base, processes: 1), row(.sqlite, .batched, .firstScreen, .queries, 2),
    row(.sqlite, .batched, .firstScreen, .memoryBudget, 5), row(.sqlite, .full, .firstScreen, .commitsPerSecond, 40),
  ]

  @Test func bmfHoldsEachFigureWithItsSpread() throws {
    let json = try #require(
      JSONSerialization.jsonObject(with: RunExport.bmf(Self.rows)) as? [String: [String: [String: Double]]])
    let full = "banks/1000/sqlite/full/0/none/first_screen"
    let batched = "banks/1000/sqlite/batched/20/none/first_screen"
    #expect(json[full]?["time_ms"] == ["value": 10.05, "lower_value": 9.9, "upper_value": 10.2])
    #expect(json[full]?["commits_per_s"] == ["value": 40, "lower_value": 39, "upper_value": 41])
    #expect(
      json[batched] == ["queries": ["value": 2, "lower_value": 1, "upper_value": 3]],
      "a budget has no direction: not written")
    #expect(json.count == 2)
  }

  @Test func githubActionBenchmarkSplitsByDirection() throws {
    let (smaller, bigger) = try RunExport.githubActionBenchmark(Self.rows)
    let low = try #require(JSONSerialization.jsonObject(with: smaller) as? [[String: Any]])
    let high = try #require(JSONSerialization.jsonObject(with: bigger) as? [[String: Any]])
    #expect(
      low.map { $0["name"] as? String } == [
        "banks/1000/sqlite/batched/20/none/first_screen/queries", "banks/1000/sqlite/full/0/none/first_screen/time_ms",
      ])
    #expect(high.map { $0["name"] as? String } == ["banks/1000/sqlite/full/0/none/first_screen/commits_per_s"])
    let time = low[1]
    #expect(
      time["unit"] as? String == "ms" && time["value"] as? Double == 10.05 && time["range"] as? String == "-0.15 +0.15")
    #expect((time["extra"] as? String)?.hasPrefix("median of 5 repetitions, run r1, commit abc") == true, "\(time)")
  }

  @Test func exportWritesNewFilesOnly() throws {
    let dir = TestSupport.temporaryFolder("export")
    defer { TestSupport.remove(dir) }
    try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true)
    try JSONEncoder().encode(Self.rows).write(to: URL(fileURLWithPath: dir + "/run/results.json"))
    let bmf = try TestSupport.run(["export", dir + "/run", "--format", "bmf"])
    #expect(bmf.status == 0 && bmf.stdout.contains("\"lower_value\" : 9.9"), "\(bmf.stdout)\(bmf.stderr)")
    let action = try TestSupport.run([
      "export", dir + "/run", "--format", "github-action-benchmark", "--out", dir + "/action",
    ])
    #expect(action.status == 0, "\(action.stderr)")
    #expect(
      TestSupport.listing(dir + "/action") == [
        ".fetchbench-output.json", "bigger-is-better.json", "smaller-is-better.json",
      ])
    let again = try TestSupport.run([
      "export", dir + "/run", "--format", "github-action-benchmark", "--out", dir + "/action",
    ])
    #expect(again.status == 0, "its own two files are written again: \(again.stderr)")

    try Data("mine".utf8).write(to: URL(fileURLWithPath: dir + "/mine.json"))
    let existing = try TestSupport.run(["export", dir + "/run", "--format", "bmf", "--out", dir + "/mine.json"])
    #expect(
      existing.status == 1
        && existing.stderr.contains("mine.json: something is already there, and FetchBench does not replace it"),
      "\(existing.stderr)")
    #expect(try String(contentsOfFile: dir + "/mine.json", encoding: .utf8) == "mine")
    try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/action/notes.txt"))
    let foreign = try TestSupport.run([
      "export", dir + "/run", "--format", "github-action-benchmark", "--out", dir + "/action",
    ])
    #expect(
      foreign.status == 1 && foreign.stderr.contains("holds files FetchBench did not write (notes.txt)"),
      "\(foreign.stderr)")
    let noFolder = try TestSupport.run(["export", dir + "/run", "--format", "github-action-benchmark"])
    #expect(noFolder.status == 64 && noFolder.stderr.contains("name their folder with --out"), "\(noFolder.stderr)")
    let format = try TestSupport.run(["export", dir + "/run", "--format", "csv"])
    #expect(
      format.status == 64 && format.stderr.contains("unknown format 'csv'; expected bmf or github-action-benchmark"),
      "\(format.stderr)")
  }
}
