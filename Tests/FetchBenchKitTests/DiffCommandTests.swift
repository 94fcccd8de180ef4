import Datasets
import FetchBenchKit
import FetchedResults
import Foundation
import ResultModel
import TestSupport
import Testing

/// `fetchbench diff` end to end on a small dataset: exact counters, the stdlib's time budget,
/// and an `--emit-changes` stream that replays under UIKit's rules to its final snapshot.
@Suite struct DiffCommand {
  @Test func diffRunsCountsExactlyAndEmitsAReplayableStream() throws {
    let dir = TestSupport.temporaryFolder("diff")
    defer { TestSupport.remove(dir) }
    let datasets = dir + "/datasets"
    let jsonl = dir + "/changes.jsonl"
    let out = try TestSupport.run(
      [
        "diff", "--rows", "2000", "--store", "sqlite", "--k", "10", "--no-edit", "--sections", "state", "--repetitions",
        "3",
        "--stdlib-budget", "0.000001", "--emit-changes", jsonl, "--datasets", datasets, "--out", dir + "/out",
      ])
    #expect(out.status == 0, "\(out.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    func value(_ metric: Metric) -> ResultRow? { rows.first { $0.metric == metric } }
    #expect(value(.queries)?.value == 1 && value(.queries)?.max == 1, "one keys query per transaction on SQLite")
    #expect(value(.rowsMaterialized)?.max == 0, "tracking faults no row")
    #expect(value(.incremental)?.repetitions == 3)
    // FetchBench's own save: one transaction, one commit.
    #expect(value(.saveCommits)?.min == 1 && value(.saveCommits)?.max == 1)
    #expect((value(.moves)?.value ?? -1) >= (value(.movesMinimal)?.value ?? 0))
    #expect(value(.stdlibDiffSkipped) != nil, "a budget of 1 µs is exceeded")
    // Core Data's rules leave re-dated banks out of place; a relaunch after each save finds the
    // section cache stale and the next one valid (the step throws otherwise).
    #expect((value(.staleRowsCoreData)?.max ?? 0) > 0 && value(.movesCoreData) != nil && value(.reloadsCoreData) != nil)
    #expect(value(.relaunchAfterSave)?.repetitions == 3 && value(.relaunchCached)?.repetitions == 3)
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("A relaunch with a section cache (`cacheName`) after each save takes"))
    #expect(report.contains("| Core Data's rules: moves / reloads | stale rows (most) |"))
    #expect(report.contains("skipped (> 0 s)"))
    let charts = try FileManager.default.contentsOfDirectory(atPath: dir + "/out/charts").filter {
      $0.hasPrefix("diff-")
    }
    #expect(!charts.isEmpty)
    for chart in charts {
      let svg = try String(contentsOfFile: dir + "/out/charts/" + chart, encoding: .utf8)
      #expect(svg.contains("stdlib: skipped (> 0 s)"), "the skipped bar is named, not drawn as nothing: \(chart)")
    }
    #expect(report.contains("k = 10"))

    // Replay the stream: every change set validates; the last snapshot is the final line's.
    let lines = try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
    #expect(lines.first?["type"] as? String == "snapshot" && lines.last?["type"] as? String == "final")
    #expect(lines.count == 2 + 4, "a warm-up and three measured transactions")
    var snapshot = Self.snapshot(lines[0])
    for line in lines.dropFirst().dropLast() {
      snapshot = try BatchUpdateValidator.apply(Self.changeSet(line), to: snapshot)
    }
    #expect(snapshot.sameRows(as: Self.snapshot(lines.last!)))
    #expect(!FileManager.default.fileExists(atPath: jsonl + ".partial"))
  }

  /// On banks' Core Data file every save of the diff's transactions (each inserts) commits
  /// twice, its keys first, and the report says what a save issued.
  @Test func aCoreDataFilesSavesCommitTwice() throws {
    let dir = TestSupport.temporaryFolder("diff-coredata")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run(
      [
        "diff", "--rows", "2000", "--schema", "coredata", "--store", "sqlite", "--k", "10", "--no-edit",
        "--repetitions", "3",
        "--datasets", dir + "/datasets", "--out", dir + "/out",
      ])
    #expect(out.status == 0, "\(out.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    let commits = try #require(rows.first { $0.metric == .saveCommits })
    #expect(commits.min == 2 && commits.max == 2 && commits.repetitions == 3)
    let statements = try #require(rows.first { $0.metric == .saveStatements })
    #expect(statements.min >= 14, "each insert allocates its key: \(statements)")
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("| save: statements / commits |") && report.contains(" / 2 |"))
  }

  /// The diff benchmark's writer on tables smaller than its transactions need: 40 changes a
  /// transaction delete one bank more than they insert, so 300 of them would empty 200 rows,
  /// and 5 changes on 10 rows touch half the table. Deletes turn into inserts at the floor,
  /// changes of banks already in the transaction into inserts; every change set still replays
  /// under UIKit's rules and equals a fresh fetch (the case fails otherwise).
  @Test func theWriterNeverRunsDryOnSmallTables() throws {
    let dir = TestSupport.temporaryFolder("diff-dry")
    defer { TestSupport.remove(dir) }
    for (rows, k, repetitions) in [(200, 40, 300), (10, 5, 10_000)] {
      let out = try TestSupport.run([
        "diff", "--store", "memory", "--rows", "\(rows)", "--k", "\(k)", "--sections", "state", "--no-edit",
        "--repetitions",
        "\(repetitions)", "--stdlib-budget", "1", "--datasets", dir + "/datasets", "--out", dir + "/out-\(rows)",
      ])
      #expect(out.status == 0, "\(rows) rows: \(out.stderr)")
      let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out-\(rows)/results.csv", encoding: .utf8))
      #expect(rows.allSatisfy { $0.isOK }, "\(rows.filter { !$0.isOK }.map(\.error))")
      #expect(rows.first { $0.metric == .changeSetSize }?.repetitions == repetitions)
      #expect((rows.first { $0.metric == .rowsAfter }?.value ?? 0) >= 4, "the table keeps its floor of banks")
    }
  }

  @Test func badDiffInputFailsClearly() throws {
    let many = try TestSupport.run(["diff", "--emit-changes", "/tmp/x.jsonl", "--rows", "1000", "--k", "1,10"])
    #expect(many.status != 0 && many.stderr.contains("--emit-changes writes one case's change sets"), "\(many.stderr)")
    let big = try TestSupport.run(["diff", "--rows", "1000", "--k", "800"])
    #expect(big.status != 0 && big.stderr.contains("changes more than half of 1000 rows"), "\(big.stderr)")
    let sections = try TestSupport.run(["diff", "--sections", "city"])
    #expect(sections.status != 0 && sections.stderr.contains("'city' is neither none nor state"), "\(sections.stderr)")
  }

  static func snapshot(_ line: [String: Any]) -> ListSnapshot {
    ListSnapshot(
      sections: (line["sections"] as! [[String: Any]]).map {
        ListSnapshot.Section(name: $0["name"] as! String, ids: ($0["ids"] as! [NSNumber]).map(\.int64Value))
      })
  }

  static func changeSet(_ line: [String: Any]) -> ChangeSet {
    func path(_ p: Any?) -> RowPath {
      let d = p as! [String: Any]
      return RowPath(row: (d["row"] as! NSNumber).intValue, section: (d["section"] as! NSNumber).intValue)
    }
    func rows(_ key: String) -> [ChangeSet.Row] {
      (line[key] as! [[String: Any]]).map { ChangeSet.Row(path($0["path"]), id: ($0["id"] as! NSNumber).int64Value) }
    }
    var c = ChangeSet()
    c.oldSectionCounts = (line["old_section_counts"] as! [NSNumber]).map(\.intValue)
    c.newSectionCounts = (line["new_section_counts"] as! [NSNumber]).map(\.intValue)
    c.sectionDeletes = (line["section_deletes"] as! [NSNumber]).map(\.intValue)
    c.sectionInserts = (line["section_inserts"] as! [[String: Any]]).map {
      ChangeSet.SectionInsert(
        index: ($0["index"] as! NSNumber).intValue, name: $0["name"] as! String,
        ids: ($0["ids"] as! [NSNumber]).map(\.int64Value))
    }
    c.deletes = rows("deletes")
    c.inserts = rows("inserts")
    c.reloads = rows("reloads")
    c.moves = (line["moves"] as! [[String: Any]]).map {
      ChangeSet.Move(
        from: path($0["from"]), to: path($0["to"]), id: ($0["id"] as! NSNumber).int64Value,
        contentChanged: $0["content_changed"] as! Bool)
    }
    return c
  }
}
