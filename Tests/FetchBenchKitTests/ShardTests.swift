import Catalog
import DatasetStores
import FetchBenchKit
import Foundation
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// `run --shard K/N`: the parts are disjoint, cover every case, keep the run's order, are the
/// same on every call, and balance the expected cost; the parts' folders join into one run.
@Suite struct Shards {
  @Test func partsCoverEveryCaseOnceAndBalance() throws {
    var options = RunOptions()
    options.datasets = [.banks, .wells]
    options.rows = [1_000, 50_000]
    options.stores = [.memory, .sqlite]
    let all = options.cases()
    #expect(all.count > 20)
    for n in [1, 2, 3, 7] {
      let parts = (1...n).map { Shard("\($0)/\(n)")!.select(all) }
      #expect(parts.map(\.count).reduce(0, +) == all.count)
      // Disjoint and in the run's order: each part is a subsequence of the whole.
      var seen = 0
      for part in parts {
        var rest = all[...]
        for c in part {
          guard let i = rest.firstIndex(of: c) else {
            Issue.record("a part's case out of the run's order")
            break
          }
          rest = rest[(i + 1)...]
          seen += 1
        }
      }
      #expect(seen == all.count)
      #expect(parts == (1...n).map { Shard("\($0)/\(n)")!.select(all) }, "the same parts every time")
    }
    #expect(
      Shard("0/2") == nil && Shard("3/2") == nil && Shard("1/0") == nil && Shard("a/b") == nil && Shard("1/1001") == nil
    )
    #expect(Shard("2/4")?.description == "2/4")
  }

  /// The run's first line: how long its cases should take, from their expected costs, and for
  /// a run of several lists when the first list's answer should come.
  @Test func theFirstLineSaysHowLongAndWhenTheFirstAnswerComes() {
    var options = RunOptions()
    options.datasets = [.banks]
    options.rows = [244_292]
    options.stores = [.memory, .sqlite]
    let cases = options.cases()
    let two = Runner.expectation(options, cases: cases, kept: [:])
    #expect(
      two.hasPrefix("about ")
        && two.contains(" on a 2-core machine like this project's, the first answer after about "), "\(two)")
    options.stores = [.memory]
    let one = Runner.expectation(options, cases: options.cases(), kept: [:])
    #expect(one.hasPrefix("about ") && !one.contains("first answer"), "one list's answer is the run's end: \(one)")
    let everyCaseKept = Dictionary(uniqueKeysWithValues: cases.indices.map { ($0, [ResultRow]()) })
    #expect(
      Runner.expectation(options, cases: cases, kept: everyCaseKept)
        == "about 0 s on a 2-core machine like this project's")
  }

  @Test func shardedFoldersJoinIntoOneRun() throws {
    let dir = TestSupport.temporaryFolder("shard")
    defer { TestSupport.remove(dir) }
    let common = [
      "run", "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "full,batched", "--scenario",
      "first_screen,perform_fetch",
      "--repetitions", "1", "--no-index", "--datasets", dir + "/datasets",
    ]
    for part in ["1/2", "2/2"] {
      let out = try TestSupport.run(common + ["--shard", part, "--out", dir + "/part\(part.first!)"])
      #expect(out.status == 0, "\(out.stderr)")
    }
    let whole = try TestSupport.run(common + ["--out", dir + "/whole"])
    #expect(whole.status == 0, "\(whole.stderr)")
    let joined = try TestSupport.run(["report", dir + "/part1", dir + "/part2", "--out", dir + "/joined"])
    #expect(joined.status == 0, "\(joined.stderr)")
    func keys(_ folder: String) throws -> [String] {
      try RunRows.read(folder).figures.map { "\($0.key)/\($0.metric.name)" }.sorted()
    }
    #expect(try keys(dir + "/joined") == keys(dir + "/whole"))
    #expect(try keys(dir + "/part1").count > 0 && keys(dir + "/part2").count > 0)
    let settings = try ResultsCSV.decode(String(contentsOfFile: dir + "/joined/results.csv", encoding: .utf8))
      .filter { $0.mode == .settings }
    #expect(!settings.isEmpty, "the joined run's settings")
    #expect(settings.count == Set(settings.map(\.metric.name)).count, "each setting once")
    let report = try String(contentsOfFile: dir + "/joined/report.md", encoding: .utf8)
    #expect(
      report.contains("Runs `") && report.contains("-1of2` (commit") && report.contains("-2of2` (commit"),
      "\(report.prefix(400))")
    let compared = try TestSupport.run(["compare", "\(dir)/part1,\(dir)/part2", dir + "/whole", "--allow-differences"])
    #expect(compared.status == 0 || compared.status == 2, "\(compared.stdout)\(compared.stderr)")
    #expect(
      compared.stdout.contains("only in base: 0, only in head: 0"), "every figure on both sides: \(compared.stdout)")
    let bad = try TestSupport.run(common + ["--shard", "3/2"])
    #expect(bad.status == 64 && bad.stderr.contains("--shard must be K/N"), "\(bad.stderr)")
    let noOut = try TestSupport.run(["report", dir + "/part1", dir + "/part2"])
    #expect(noOut.status == 64 && noOut.stderr.contains("name it with --out"), "\(noOut.stderr)")
  }
}
