import Foundation
import ResultModel

extension Recommendation {
  /// The figures the choice was made from, as `recommendation.json` carries them beside the
  /// sentences: what a script or a second tool reads instead of the prose.
  package struct Figures: Sendable, Equatable, Encodable {
    /// The chosen way's opening (performFetch and the first screen), in milliseconds, and the
    /// frame it was judged against.
    package var openMs: Double
    package var frameMs: Double
    /// True when `openMs` is an estimate: the opening measured without the index times the
    /// index advice's per-pair ratio (the run did not read the list with the index).
    package var openEstimated: Bool
    /// The opening measured without an index (the fastest batch size's), when one was.
    package var unindexedOpenMs: Double?
    /// The index advice's per-pair ratio for the index advised (median), when one is.
    package var indexRatio: Double?
    /// The open list's live heap and the budget it was held to, in bytes.
    package var heapLiveBytes: Double
    package var memoryBudgetBytes: Double
    /// The fling: the time through `flingRows` rows (every row of the list when
    /// `flingReadsEveryRow`), opening included.
    package var flingMs: Double?
    package var flingRows: Int
    package var flingReadsEveryRow: Bool
    /// The batch sizes the chosen way was measured at, and the fit of its fling over them.
    package var batchSizesMeasured: [Int]
    package var batchFit: Fit?

    /// A batch's fixed cost and a row's, in microseconds, and the size from which the fixed
    /// cost is at most a tenth of a batch's.
    package struct Fit: Sendable, Equatable, Encodable {
      package var fixedUs: Double
      package var perRowUs: Double
      package var amortizedRows: Double

      enum CodingKeys: String, CodingKey {
        case fixedUs = "fixed_us"
        case perRowUs = "per_row_us"
        case amortizedRows = "amortized_rows"
      }
    }

    enum CodingKeys: String, CodingKey {
      case openMs = "open_ms"
      case frameMs = "frame_ms"
      case openEstimated = "open_estimated"
      case unindexedOpenMs = "unindexed_open_ms"
      case indexRatio = "index_ratio"
      case heapLiveBytes = "heap_live_bytes"
      case memoryBudgetBytes = "memory_budget_bytes"
      case flingMs = "fling_ms"
      case flingRows = "fling_rows"
      case flingReadsEveryRow = "fling_reads_every_row"
      case batchSizesMeasured = "batch_sizes_measured"
      case batchFit = "batch_fit"
    }

    /// Every key, a figure not measured as `null`, as the recommendation's own keys are.
    package func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(openMs, forKey: .openMs)
      try c.encode(frameMs, forKey: .frameMs)
      try c.encode(openEstimated, forKey: .openEstimated)
      try c.encode(unindexedOpenMs, forKey: .unindexedOpenMs)
      try c.encode(indexRatio, forKey: .indexRatio)
      try c.encode(heapLiveBytes, forKey: .heapLiveBytes)
      try c.encode(memoryBudgetBytes, forKey: .memoryBudgetBytes)
      try c.encode(flingMs, forKey: .flingMs)
      try c.encode(flingRows, forKey: .flingRows)
      try c.encode(flingReadsEveryRow, forKey: .flingReadsEveryRow)
      try c.encode(batchSizesMeasured, forKey: .batchSizesMeasured)
      try c.encode(batchFit, forKey: .batchFit)
    }
  }
}

extension Recommendation.Ranking {
  /// The ranking's figures, the chosen candidate's; `indexRatio`: the advised index's, when the
  /// advice picked one the chosen way was not measured with. O(sizes).
  func figures(indexRatio: Double?) -> Recommendation.Figures {
    let s = Self.significant
    return Recommendation.Figures(
      openMs: s(chosen.openMs), frameMs: s(budget.frameMs), openEstimated: chosen.advice != nil,
      unindexedOpenMs: unindexed.map(s), indexRatio: chosen.advice?.ratio.value ?? indexRatio,
      heapLiveBytes: chosen.heap, memoryBudgetBytes: budget.memoryBytes, flingMs: chosen.flingMs.map(s),
      flingRows: chosen.flingRows, flingReadsEveryRow: chosen.flingReadsEveryRow,
      batchSizesMeasured: chosen.mode == .full ? [] : sizes.map(\.batch).sorted(),
      batchFit: fit.map { f in
        .init(
          fixedUs: s(f.fixedMs * 1000), perRowUs: s(f.perRowMs * 1000), amortizedRows: s(amortized ?? f.amortizedSize())
        )
      })
  }

  /// `x` to six significant digits: a product or a fit carries no more, and the file stays
  /// readable. O(1).
  static func significant(_ x: Double) -> Double {
    guard x.isFinite, x != 0 else { return x }
    let scale = pow(10, 5 - floor(log10(abs(x))))
    return (x * scale).rounded() / scale
  }
}
