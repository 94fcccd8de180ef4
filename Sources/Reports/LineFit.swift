/// The least-squares line through points: the one fit behind a growth exponent (on the
/// log-log points), a batch's fixed and per-row costs, and PostgreSQL's round-trip sweep.
package struct LineFit: Sendable, Equatable {
  package var slope: Double
  package var intercept: Double

  /// Nil with fewer than two distinct x. O(points).
  package init?(_ points: [(x: Double, y: Double)]) {
    guard Set(points.map(\.x)).count >= 2 else { return nil }
    let n = Double(points.count)
    let mx = points.map(\.x).reduce(0, +) / n
    let my = points.map(\.y).reduce(0, +) / n
    let sxx = points.map { ($0.x - mx) * ($0.x - mx) }.reduce(0, +)
    let sxy = points.map { ($0.x - mx) * ($0.y - my) }.reduce(0, +)
    slope = sxy / sxx
    intercept = my - slope * mx
  }
}
