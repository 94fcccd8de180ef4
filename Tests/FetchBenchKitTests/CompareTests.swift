import DatasetStores
import FetchBenchKit
import Foundation
import TestSupport
import Testing

/// `compare`: figures joined on their key and judged as their kind allows.
@Suite struct CompareRuns {
  static func timed(_ mode: FetchMode, _ samples: [Double], metric: Metric = .time) -> ResultRow {
    var r = row(.sqlite, mode, .firstScreen, metric, 0)
    r.samples = samples
    (r.value, r.min, r.max, r.repetitions) = (samples.sorted()[samples.count / 2], samples.min()!, samples.max()!, samples.count)
    return r
  }

  static let base = [10.0, 10.1, 10.2, 9.9, 10.05]

  @Test func eachKindOfFigureIsJudgedItsWay() throws {
    let before = [
      Self.timed(.full, Self.base), Self.timed(.batched, Self.base), Self.timed(.offset, Self.base), Self.timed(.keyset, [1, 2, 3]),
      row(.sqlite, .full, .firstScreen, .queries, 2), row(.sqlite, .batched, .firstScreen, .queries, 2),
      row(.sqlite, .full, .firstScreen, .heapLive, 100_000), row(.sqlite, .batched, .firstScreen, .heapLive, 100_000),
      row(.sqlite, .full, .scrollThrough, .time, 5),
    ]
    let after = [
      Self.timed(.full, Self.base.map { $0 * 1.2 }), Self.timed(.batched, Self.base.map { $0 * 1.05 }),
      Self.timed(.offset, Self.base.map { $0 * 0.5 }), Self.timed(.keyset, [9, 9, 9]),
      row(.sqlite, .full, .firstScreen, .queries, 3), row(.sqlite, .batched, .firstScreen, .queries, 2),
      row(.sqlite, .full, .firstScreen, .heapLive, 104_000), row(.sqlite, .batched, .firstScreen, .heapLive, 110_000),
      row(.sqlite, .batched, .scrollThrough, .time, 5),
    ]
    let c = Comparison(base: before, head: after)
    func verdict(_ name: String) -> Comparison.Verdict? { c.lines.first { $0.name == name }?.verdict }
    let k = "banks/1000/sqlite"
    // 20 % slower, every repetition apart (p = 0.012): regressed; 5 % is under the threshold.
    #expect(verdict("\(k)/full/0/none/first_screen/time_ms") == .regressed)
    #expect(verdict("\(k)/batched/20/none/first_screen/time_ms") == .unchanged)
    #expect(verdict("\(k)/offset/20/none/first_screen/time_ms") == .improved)
    #expect(verdict("\(k)/keyset/20/none/first_screen/time_ms") == .notJudged, "three repetitions a side")
    #expect(
      verdict("\(k)/full/0/none/first_screen/queries") == .regressed && verdict("\(k)/batched/20/none/first_screen/queries") == .unchanged)
    #expect(verdict("\(k)/full/0/none/first_screen/heap_live_bytes") == .unchanged, "4 % is within 5 %")
    #expect(verdict("\(k)/batched/20/none/first_screen/heap_live_bytes") == .regressed)
    #expect(verdict("\(k)/full/0/none/scroll_through/time_ms") == .onlyInBase)
    #expect(verdict("\(k)/batched/20/none/scroll_through/time_ms") == .onlyInHead)
    #expect(c.exitCode == 2)
    let full = try #require(c.lines.first { $0.name == "\(k)/full/0/none/first_screen/time_ms" })
    #expect(full.detail.contains("(×1.200 [") && full.detail.contains("p = 0.0122)"), "\(full.detail)")
    #expect(c.text().hasPrefix("3 figure(s) regressed or changed.\nregressed: 3, improved: 1, changed: 0, unchanged: 3, not judged: 1"))
    let md = c.markdown()
    #expect(md.hasPrefix("### FetchBench: 3 figure(s) regressed or changed.") && md.contains("<details><summary>6 other figures</summary>"))

    // The same runs on another machine are not compared, unless told.
    var elsewhere = after
    for i in elsewhere.indices { elsewhere[i].machine.cores = 8 }
    #expect(Comparison(base: before, head: elsewhere).exitCode == 3)
    var options = Comparison.Options()
    options.allowDifferences = true
    #expect(Comparison(base: before, head: elsewhere, options: options).exitCode == 2)
    #expect(Comparison(base: before, head: before).exitCode == 0)
  }

  /// End to end: a run against itself changes nothing; against a copy whose first screen took
  /// ten times as long, that figure regressed; bad input fails clearly.
  @Test func compareReadsRunFolders() throws {
    let dir = TestSupport.temporaryFolder("compare")
    defer { TestSupport.remove(dir) }
    let run = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "batched", "--scenario", "first_screen",
      "--repetitions", "5", "--no-index", "--datasets", dir + "/datasets", "--out", dir + "/a",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let same = try TestSupport.run(["compare", dir + "/a", dir + "/a"])
    #expect(same.status == 0 && same.stdout.hasPrefix("No figure regressed."), "\(same.stdout)\(same.stderr)")
    var rows = try JSONDecoder().decode([ResultRow].self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/a/results.json")))
    let i = try #require(rows.firstIndex { $0.metric == .time })
    #expect(rows[i].samples.count == 5)
    // Every repetition ten times the slowest: apart from the base's whatever the machine's noise.
    rows[i].samples = Array(repeating: rows[i].samples.max()! * 10, count: 5)
    try JSONEncoder().encode(rows).write(to: URL(fileURLWithPath: dir + "/slower.json"))
    let slower = try TestSupport.run(["compare", dir + "/a", dir + "/slower.json", "--format", "markdown"])
    #expect(slower.status == 2, "\(slower.stdout)\(slower.stderr)")
    #expect(slower.stdout.contains("| `banks/300/memory/batched/20/none/first_screen/time_ms` | regressed |"), "\(slower.stdout)")
    let missing = try TestSupport.run(["compare", dir + "/nothing", dir + "/a"])
    #expect(missing.status == 1 && missing.stderr.contains("no such run"), "\(missing.stderr)")
    let format = try TestSupport.run(["compare", dir + "/a", dir + "/a", "--format", "xml"])
    #expect(
      format.status == 64 && format.stderr.contains("unknown format 'xml'; expected text, markdown, json, bmf, github-action-benchmark"),
      "\(format.stderr)")
    let json = try TestSupport.run(["compare", dir + "/a", dir + "/slower.json", "--format", "json"])
    let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
    #expect(json.status == 2 && document["exitCode"] as? Int == 2, "\(json.stdout)")
    let figures = try #require(document["figures"] as? [[String: String]])
    #expect(figures.first { $0["name"] == "banks/300/memory/batched/20/none/first_screen/time_ms" }?["verdict"] == "regressed")
    let action = try TestSupport.run(["compare", dir + "/a", dir + "/a", "--format", "github-action-benchmark", "--out", dir + "/action"])
    #expect(action.status == 0 && TestSupport.listing(dir + "/action") == ["bigger-is-better.json", "smaller-is-better.json"])
    let noOut = try TestSupport.run(["compare", dir + "/a", dir + "/a", "--format", "github-action-benchmark"])
    #expect(noOut.status == 64 && noOut.stderr.contains("name their folder with --out"), "\(noOut.stderr)")
  }
}
