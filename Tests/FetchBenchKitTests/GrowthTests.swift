import Catalog
import FetchBenchKit
import Foundation
import Reports
import ResultModel
import Testing
import Vocabulary

/// The growth fit and the crossings are pure functions of measured points, and the report
/// computes them from result rows alone.
@Suite struct GrowthTests {
  @Test func theFitRecoversAKnownExponent() throws {
    for b in [0.5, 1.0, 1.07, 2.0] {
      let points = [10_000.0, 100_000, 244_292, 1_000_000, 2_442_920].map { (x: $0, y: 3 * pow($0, b)) }
      let fit = try #require(Growth(points))
      #expect(abs(fit.exponent - b) < 1e-9)
      #expect(abs(fit.value(at: 500_000) / (3 * pow(500_000, b)) - 1) < 1e-9)
    }
    // Noise around an exponent: least squares on the logs lands between.
    let noisy = try #require(Growth([(1_000, 1.0), (10_000, 12.0), (100_000, 100.0)]))
    #expect(abs(noisy.exponent - 1.0) < 0.05)
    #expect(Growth([(1_000, 1.0)]) == nil)
    #expect(Growth([(1_000, 1.0), (1_000, 2.0)]) == nil, "one size twice is not a line")
  }

  @Test func crossingsAreInterpolatedOnTheLogLogLine() throws {
    // y = 5 · x / 10,000 crosses 16.7 at 33,400 rows, said to two digits.
    let line = [(x: 10_000.0, y: 5.0), (x: 100_000, y: 50), (x: 1_000_000, y: 500)]
    let at = try #require(Growth.crossing(line, over: 16.7))
    guard case .crossesAt(let x) = at else {
      Issue.record("\(at)")
      return
    }
    #expect(abs(x - 33_400) < 1)
    #expect(at.words == "up to about 33,000 rows")
    #expect(Growth.crossing(line, over: 1_000)?.words == "at every measured size (up to 1,000,000 rows)")
    #expect(Growth.crossing(line, over: 1)?.words == "at none of the measured sizes (from 10,000 rows)")
    #expect(Growth.crossing([], over: 1) == nil)
  }

  @Test func theReportGivesGrowthExponentAndCrossingsFromTheRows() throws {
    var rows: [ResultRow] = []
    for (n, full, batched) in [(10_000, 8.0, 2.0), (100_000, 80.0, 4.0), (1_000_000, 800.0, 8.0)] {
      for (mode, ms, heap) in [(FetchMode.full, full, Double(n) * 400), (.batched, batched, Double(n) * 10)] {
        for (metric, value) in [(Metric.time, ms), (.heapLive, heap)] {
          rows.append(
            figure(
              rows: n, mode: .fetch(mode), scenario: .scenario(.firstScreen), metric: metric, value: value, min: value,
              max: value,
              repetitions: 3))
        }
      }
    }
    let report = Report(rows: rows)
    let md = report.markdown()
    #expect(md.contains("| × growth | 100.0× | 4.0× |"), "\(md)")
    #expect(md.contains("| exponent b | 1.00 | 0.30 |"), "\(md)")
    // Full: 8 ms at 10,000 rows, ×10 per decade: one frame at about 21,000, 100 ms at 125,000.
    #expect(
      md.contains(
        "takes under one frame (16.7 ms) with full fetch up to about 21,000 rows; batched at every measured size (up to 1,000,000 rows)."
      ))
    #expect(md.contains("Under 100 ms: with full fetch up to about 130,000 rows;"))
    // 400 bytes a row passes 100 MiB at 262,144 rows.
    #expect(
      md.contains(
        "live heap stays under the 100.0 MiB budget with full fetch up to about 260,000 rows; batched at every measured size"
      ))
    let charts = Dictionary(uniqueKeysWithValues: report.charts())
    let time = try #require(charts["banks-0-sqlite-scaling.svg"])
    #expect(time.contains("one frame, 16.7 ms") && time.contains("100 ms"))
    #expect(try #require(charts["banks-0-sqlite-scaling-heap.svg"]).contains("budget, 100.0 MiB"))
    // The run's --memory-budget, recorded as a settings row, moves the line: half the budget,
    // half the rows.
    var budget = rows[0]
    (budget.mode, budget.scenario, budget.metric, budget.value, budget.rows) = (
      .settings, .settings, .memoryBudget, 50 * 1_048_576, 0
    )
    let halved = Report(rows: [budget] + rows)
    #expect(
      halved.markdown().contains("under the 50.0 MiB budget with full fetch up to about 130,000 rows"),
      "\(halved.markdown())")
    #expect(
      Dictionary(uniqueKeysWithValues: halved.charts())["banks-0-sqlite-scaling-heap.svg"]?.contains("budget, 50.0 MiB")
        == true)
  }

  /// A case's process holds the store and the list, linear in rows, and a fixed part: the
  /// line through the two largest sizes' peaks says where it reaches the machine's memory; a
  /// size stopped at the ceiling is measured instead.
  @Test func theRowCountWhereACaseStopsFittingComesFromItsPeaks() throws {
    let memory = Double(24 << 30)
    // 100 MiB fixed and 1,000 B a row: 24 GiB is reached at (24 GiB - 100 MiB) / 1,000.
    let points = [2_442_920, 10_000_000].map { (rows: $0, peak: 104_857_600 + 1_000 * Double($0)) }
    let fit = try #require(MemoryFit(points, memoryBytes: memory))
    #expect(fit.rows == 10_000_000 && !fit.measured)
    #expect(abs(fit.bytesPerRow - 1_000) < 1e-6)
    #expect(abs(fit.fitsUpTo - (memory - 104_857_600) / 1_000) < 1e-3)
    // One size: the line through the origin, which errs low by the fixed part.
    let one = try #require(MemoryFit([points[1]], memoryBytes: memory))
    #expect(one.fitsUpTo < fit.fitsUpTo && abs(one.fitsUpTo - memory / (points[1].peak / 10_000_000)) < 1e-3)
    #expect(
      MemoryFit([(10, 5.0), (20, 5.0)], memoryBytes: memory) == nil, "a peak that does not grow projects nothing")
    #expect(try #require(MemoryFit(points, memoryBytes: memory, unfit: 20_000_000)).fitsUpTo == 20_000_000)
    // Two joined runs that both measured the largest size: the larger peak counts, not a 0/0 slope.
    let twice = try #require(
      MemoryFit(points + [(rows: 10_000_000, peak: points[1].peak - 1_000_000)], memoryBytes: memory))
    #expect(twice == fit)

    var rows: [ResultRow] = []
    for (n, peak) in points {
      for (mode, scale) in [(FetchMode.full, 1.0), (.batched, 0.25)] {
        var r = figure(
          .wells, rows: n, store: .engine(.memory), mode: .fetch(mode), scenario: .scenario(.performFetch),
          metric: .peakRSS,
          value: peak * scale, min: peak * scale, max: peak * scale, repetitions: 1)
        r.runID = "r"
        rows.append(r)
      }
    }
    var stopped = rows[0]
    (stopped.rows, stopped.metric, stopped.status, stopped.value) = (30_000_000, .doesNotFit, .doesNotFit, memory)
    (stopped.runID, stopped.machine.gitCommit) = ("r2", "def")
    let md = Report(rows: rows + [stopped]).markdown()
    #expect(
      md.contains(
        "Runs `r` (commit `abc`, 4 figures), `r2` (commit `def`, 1 figure) on processor not recorded, 2 cores, 24 GiB"),
      "a report of two runs names both, with what each measured")
    #expect(md.contains("## Where each case stops fitting in memory"), "\(md)")
    #expect(
      md.contains(
        "| wells memory full perform_fetch | 10,000,000 | 9.41 GiB | 1000 | does not fit at 30,000,000 (measured) |"),
      "\(md)")
    // 250 B a row from 2.35 GiB at 10,000,000 rows: 103,000,000 rows, said to two digits.
    #expect(
      md.contains("| wells memory batched(20) perform_fetch | 10,000,000 | 2.35 GiB | 250 | 100,000,000 rows |"),
      "\(md)")
  }

  /// Read as a person would: values labelled at the same size never overlap, and a line that
  /// runs on another's (offset and keyset pages hold the same heap) is drawn dashed and named,
  /// not hidden under it.
  @Test func chartLabelsDoNotOverlapAndCoincidingLinesAreShown() throws {
    var rows: [ResultRow] = []
    for n in [10_000, 100_000, 1_000_000] {
      // Offset and keyset open 10 % apart (a few pixels on the log axis), with one heap.
      for (mode, ms, heap) in [
        (FetchMode.full, 0.8, 400.0), (.batched, 0.02, 10.0), (.offset, 0.001, 0.3), (.keyset, 0.0011, 0.3),
      ] {
        for (metric, value) in [(Metric.time, ms * Double(n) / 1_000), (.heapLive, heap * Double(n))] {
          rows.append(
            figure(
              .wells, rows: n, store: .engine(.memory), mode: .fetch(mode), scenario: .scenario(.firstScreen),
              metric: metric, value: value,
              min: value, max: value, repetitions: 3))
        }
      }
    }
    let charts = Dictionary(uniqueKeysWithValues: Report(rows: rows).charts())
    let heap = try #require(charts["wells-0-memory-scaling-heap.svg"])
    #expect(heap.contains("keyset first screen (MiB) (on offset first screen's line)"), "\(heap)")
    #expect(heap.components(separatedBy: "stroke-dasharray=\"6 4\"").count == 2, "only keyset's line is dashed")
    let time = try #require(charts["wells-0-memory-scaling.svg"])
    #expect(!time.contains("'s line)"), "10 % apart is two lines")
    for chart in [heap, time] {
      // Every value label: x and y of `<text x="…" y="…" dx="-4" dy="-3" …>`.
      var byX: [String: [Double]] = [:]
      for piece in chart.components(separatedBy: "<text x=\"").dropFirst() where piece.contains("dx=\"-4\" dy=\"-3\"") {
        let x = String(piece.prefix { $0 != "\"" })
        let y = try #require(Double(piece.components(separatedBy: "y=\"")[1].prefix { $0 != "\"" }))
        byX[x, default: []].append(y)
      }
      #expect(byX.count == 3, "a label column per size")
      for (_, ys) in byX {
        let sorted = ys.sorted()
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $1 - $0 >= 11 - 1e-9 }, "\(sorted)")
      }
      // Four series, one value each at the largest size on the time chart (a label that would
      // cover another at a smaller size is left to the tables); the heap chart labels keyset's
      // points once, on offset's line.
      let largest = try #require(byX.keys.max { Double($0)! < Double($1)! })
      #expect(byX[largest]?.count == (chart == heap ? 3 : 4), "\(byX)")
      #expect(byX.values.allSatisfy { !$0.isEmpty && $0.count <= (chart == heap ? 3 : 4) })
    }
  }
}
