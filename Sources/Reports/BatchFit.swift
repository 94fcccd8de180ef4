import Foundation

/// What a batch (or page) costs, fitted over the batch sizes a run measured: each fling reads
/// the same rows in `rows / b` batches, so its time is `rows × perRow + batches × fixed`, and
/// least squares on (batches, time) gives the fixed cost of one batch (its query, and on
/// PostgreSQL its round trip) and the cost of a row. A pure function of the figures.
package struct BatchFit: Sendable, Equatable {
  /// Milliseconds a batch costs whatever its size.
  package var fixedMs: Double
  /// Milliseconds a row costs.
  package var perRowMs: Double

  /// The fit through (batch size, time to read `rows` rows) points; nil with fewer than two
  /// batch sizes, or when the fit gives no positive cost per row or per batch (noise larger
  /// than the effect). O(points).
  package init?(_ points: [(batch: Int, ms: Double)], rows: Int) {
    let xy = points.filter { $0.batch > 0 }.map { (x: (Double(rows) / Double($0.batch)).rounded(.up), y: $0.ms) }
    guard let line = LineFit(xy) else { return nil }
    let (slope, intercept) = (line.slope, line.intercept)
    guard slope > 0, intercept > 0 else { return nil }
    (fixedMs, perRowMs) = (slope, intercept / Double(rows))
  }

  /// The batch size from which the fixed cost is at most `share` of a batch's: fixed ≤
  /// share × (fixed + b × perRow). O(1).
  package func amortizedSize(share: Double = 0.1) -> Double { fixedMs * (1 - share) / (share * perRowMs) }
}
