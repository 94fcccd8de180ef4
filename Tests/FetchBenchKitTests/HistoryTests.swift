import DatasetStores
import FetchBenchKit
import Foundation
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// `history`: runs kept across commits, and the runs where a figure moved: a step that lasts,
/// never one outlier or the noise.
@Suite struct HistoryOfRuns {
  @Test func aStepIsAChangeThatLasts() {
    #expect(StepDetection.steps([10, 10, 10, 10, 15, 15, 15]) == [StepDetection.Step(index: 4, ratio: 1.5)])
    #expect(StepDetection.steps([10, 10, 10, 20, 10, 10, 10]).isEmpty, "one outlier")
    #expect(StepDetection.steps([10, 10.5, 9.8, 10.3, 10.6, 10.1, 9.9]).isEmpty, "noise within 10 %")
    #expect(
      StepDetection.steps([10, 10, 10, 20, 20, 20, 10, 10, 10]) == [
        StepDetection.Step(index: 3, ratio: 2), StepDetection.Step(index: 6, ratio: 0.5),
      ])
    #expect(StepDetection.steps([10, 20]).isEmpty, "too few runs")
  }

  /// A run of one figure: the first screen's time, as `run` writes it.
  static func run(_ i: Int, time: Double, in dir: String) throws -> String {
    var r = row(.sqlite, .batched, .firstScreen, .time, time)
    r.runID = "20261126T10000\(i)Z"
    let folder = dir + "/run\(i)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try JSONEncoder().encode([r, row(.sqlite, .batched, .firstScreen, .memoryBudget, 1)]).write(
      to: URL(fileURLWithPath: folder + "/results.json"))
    return folder
  }

  @Test func addKeepsRunsAndReportMarksWhereAFigureMoved() throws {
    let dir = TestSupport.temporaryFolder("history")
    defer { TestSupport.remove(dir) }
    let file = dir + "/history.jsonl"
    for (i, time) in [10.0, 10, 10, 15, 15, 15].enumerated() {
      let add = try TestSupport.run(["history", "add", try Self.run(i, time: time, in: dir), "--file", file])
      #expect(
        add.status == 0 && add.stdout.contains("(commit abc, 1 figures) to \(file): \(i + 1) runs"),
        "\(add.stdout)\(add.stderr)")
    }
    let entries = try HistoryFile.read(file)
    #expect(entries.map(\.date) == (0..<6).map { "2026-11-26T10:00:0\($0)Z" })
    #expect(entries[3].figures["banks/1000/sqlite/batched/20/none/first_screen/time_ms"]?.value == 15)
    let twice = try TestSupport.run(["history", "add", dir + "/run0", "--file", file])
    #expect(twice.status == 1 && twice.stderr.contains("already holds run 20261126T100000Z"), "\(twice.stderr)")

    let report = try TestSupport.run(["history", "report", file, "--out", dir + "/report"])
    #expect(report.status == 0, "\(report.stderr)")
    let md = try String(contentsOfFile: dir + "/report/report.md", encoding: .utf8)
    #expect(
      md.contains("| `banks/1000/sqlite/batched/20/none/first_screen/time_ms` | 4 | `abc` | ×1.50 | worse |"), "\(md)")
    #expect(
      TestSupport.listing(dir + "/report/charts") == ["banks-1000-sqlite-batched-20-none-first-screen-time-ms.svg"])

    try Data("{\"not\": \"a run\"}\n".utf8).write(to: URL(fileURLWithPath: dir + "/other.jsonl"))
    let foreign = try TestSupport.run(["history", "add", dir + "/run0", "--file", dir + "/other.jsonl"])
    #expect(
      foreign.status == 1
        && foreign.stderr.contains("other.jsonl, line 1: not a run that `fetchbench history add` wrote"))
    #expect(
      try String(contentsOfFile: dir + "/other.jsonl", encoding: .utf8) == "{\"not\": \"a run\"}\n", "left as it was")
    let one = dir + "/one.jsonl"
    _ = try TestSupport.run(["history", "add", dir + "/run0", "--file", one])
    let short = try TestSupport.run(["history", "report", one, "--out", dir + "/short"])
    #expect(
      short.status == 1 && short.stderr.contains("holds 1 run(s); a history needs two or more"), "\(short.stderr)")
  }

  /// A figure the last run lacks (its case failed or was removed) is listed, not taken as held.
  @Test func reportListsFiguresTheLastRunNoLongerHas() throws {
    let dir = TestSupport.temporaryFolder("history-vanished")
    defer { TestSupport.remove(dir) }
    let file = dir + "/history.jsonl"
    for i in 0..<3 {
      let folder = try Self.run(i, time: 10, in: dir)
      if i == 2 {
        var r = row(.sqlite, .batched, .performFetch, .time, 3)
        r.runID = "20261126T100002Z"
        try JSONEncoder().encode([r]).write(to: URL(fileURLWithPath: folder + "/results.json"))
      }
      #expect(try TestSupport.run(["history", "add", folder, "--file", file]).status == 0)
    }
    let report = try TestSupport.run(["history", "report", file, "--out", dir + "/report"])
    #expect(report.status == 0, "\(report.stderr)")
    #expect(report.stdout.contains("1 figures measured earlier are missing from the last run"), "\(report.stdout)")
    let md = try String(contentsOfFile: dir + "/report/report.md", encoding: .utf8)
    #expect(md.contains("## Figures the last run no longer has"), "\(md)")
    #expect(md.contains("| `banks/1000/sqlite/batched/20/none/first_screen/time_ms` | 2 | `abc` |"), "\(md)")
    #expect(
      !md.contains("| `banks/1000/sqlite/batched/20/none/perform_fetch/time_ms` | 2"),
      "a figure new in the last run is not missing")
  }
}
