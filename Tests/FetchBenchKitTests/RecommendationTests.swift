import FetchBenchKit
import Foundation
import Testing

/// The recommendation is a pure function of a results CSV: the same text gives the same
/// choice, and a changed figure changes it as the rule says.
@Suite struct RecommendationTests {
  /// (store, mode, batch, index, first-screen ms, live heap bytes, fling ms)
  static let figures: [(String, String, Int, String, Double, Double, Double)] = [
    ("sqlite", "full", 0, "none", 800, 150 * 1_048_576, 800),
    ("sqlite", "batched", 20, "none", 12, 2_000_000, 30),
    ("sqlite", "batched", 50, "none", 13, 3_000_000, 20),
    ("sqlite", "offset", 20, "none", 9, 10_000, 400),
    ("sqlite", "keyset", 20, "none", 8, 10_000, 60),
    ("sqlite", "batched", 20, "close_date", 11.5, 2_000_000, 28),
    ("memory", "full", 0, "none", 200, 90 * 1_048_576, 200),
    ("memory", "batched", 20, "none", 20, 2_000_000, 25),
    ("memory", "offset", 20, "none", 15, 10_000, 300),
  ]

  static func csv(_ figures: [(String, String, Int, String, Double, Double, Double)]) -> String {
    let machine = Machine(cores: 2, memoryBytes: 24 << 30, os: "Debian", swiftVersion: "6.3.1", gitCommit: "abc")
    var rows: [ResultRow] = []
    for (store, mode, batch, index, open, heap, fling) in figures {
      for (scenario, metric, value) in [
        ("first_screen", "time_ms", open), ("first_screen", "heap_live_bytes", heap), ("scroll_first_1000", "time_ms", fling),
      ] {
        rows.append(
          ResultRow(
            run_id: "r", dataset: "banks", rows: 244_292, store: store, mode: mode, batch_size: batch, index: index, scenario: scenario,
            metric: metric, value: value, unit: metric == "time_ms" ? "ms" : "bytes", min: value, max: value, repetitions: 5,
            status: "ok", error: "", machine: machine, dataset_sha256: ""))
      }
    }
    return ResultsCSV.encode(rows)
  }

  @Test func theRuleReadsTheFigures() throws {
    let picks = Recommendation.all(try ResultsCSV.decode(Self.csv(Self.figures)))
    let sqlite = try #require(picks.first { $0.store == "sqlite" })
    // Every paged and batched way opens within a frame; batched keeps row-level change sets;
    // 50 flings fastest; the index saves 4 %, under the 10 % that counts.
    #expect(sqlite.mode == .batched && sqlite.batchSize == 50 && sqlite.index == nil, "\(sqlite)")
    #expect(sqlite.reasons.first?.contains("batched faulting opens the list in 13.0 ms (within one frame)") == true, "\(sqlite.reasons)")
    #expect(sqlite.reasons.contains { $0.contains("full: 800.0 ms, 150.0 MiB live, over the 100.0 MiB budget") }, "\(sqlite.reasons)")
    // On memory only offset opens within a frame.
    let memory = try #require(picks.first { $0.store == "memory" })
    #expect(memory.mode == .offset && memory.batchSize == 20, "\(memory)")
    #expect(memory.reasons.first?.contains("page refresh") == true)
  }

  @Test func aChangedFigureChangesTheChoice() throws {
    var figures = Self.figures
    // The index now opens batched at 6 ms: 50 % faster, so it counts; its only size is 20.
    figures[5].4 = 6
    let sqlite = try #require(Recommendation.all(try ResultsCSV.decode(Self.csv(figures))).first { $0.store == "sqlite" })
    #expect(sqlite.mode == .batched && sqlite.index == "close_date" && sqlite.batchSize == 20, "\(sqlite)")
    #expect(sqlite.reasons.contains { $0.contains("The index on close_date opens it in 6.0 ms instead of 12.0 ms.") }, "\(sqlite.reasons)")
    // Every heap over the budget: nothing to recommend.
    let none = Self.figures.map { f in (f.0, f.1, f.2, f.3, f.4, 1e12, f.6) }
    #expect(Recommendation.all(try ResultsCSV.decode(Self.csv(none))).isEmpty)
  }

  @Test func theBatchSizeComesFromTheFit() throws {
    // 30 µs a batch and 2 µs a row, exactly: a tenth of a batch is fixed from 135 rows on.
    let fling = { (b: Int) in 1000 * 0.002 + (1000.0 / Double(b)).rounded(.up) * 0.03 }
    let fit = try #require(BatchFit([20, 50, 100, 200].map { (batch: $0, ms: fling($0)) }, rows: 1000))
    #expect(abs(fit.fixedMs - 0.03) < 1e-9 && abs(fit.perRowMs - 0.002) < 1e-9, "\(fit)")
    #expect(abs(fit.amortizedSize() - 135) < 1e-6)
    #expect(BatchFit([(batch: 20, ms: 3)], rows: 1000) == nil, "one size fits nothing")
    let figures = [20, 50, 100, 200].map { b in ("sqlite", "batched", b, "none", 10.0, 2_000_000.0, fling(b)) }
    let pick = try #require(Recommendation.all(try ResultsCSV.decode(Self.csv(figures))).first)
    #expect(pick.batchSize == 200, "the smallest size from 135 rows on: \(pick)")
    #expect(
      pick.reasons.contains {
        $0.contains(
          "fitted over 20, 50, 100, 200 (a fling through 1,000 rows), a batch costs 30.0 µs fixed plus 2.00 µs a row, so from about 135 rows"
        )
      },
      "\(pick.reasons)")
  }
}
