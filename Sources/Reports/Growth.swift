import Foundation
import TextFormatting

/// How a figure grows with the row count: `y ∝ rows^exponent`, fitted by least squares on the
/// logarithms of the measured points, and where the measured line crosses a threshold (one
/// frame, 100 ms, a memory budget). Pure functions of the points, so a report computes them
/// from a results CSV alone.
package struct Growth: Sendable, Equatable {
  /// `b` in y = a · x^b.
  package var exponent: Double
  /// ln a.
  package var logIntercept: Double

  /// The fit through `points` (x, y), both positive; nil with fewer than two distinct x.
  /// O(points).
  package init?(_ points: [(x: Double, y: Double)]) {
    let logs = points.filter { $0.x > 0 && $0.y > 0 }.map { (x: Foundation.log($0.x), y: Foundation.log($0.y)) }
    guard let line = LineFit(logs) else { return nil }
    (exponent, logIntercept) = (line.slope, line.intercept)
  }

  /// The fitted value at `x`. O(1).
  package func value(at x: Double) -> Double { exp(logIntercept + exponent * Foundation.log(x)) }

  /// Where a measured line stands against a threshold it should stay under.
  package enum Crossing: Sendable, Equatable {
    /// Under it at every measured size, up to this one.
    case underThroughout(Double)
    /// Over it already at the smallest measured size.
    case overThroughout(Double)
    /// Under it up to about this many rows: interpolated on the log-log line between the
    /// last measured size under it and the next.
    case crossesAt(Double)
  }

  /// Where `points` (sorted or not) first rise over `threshold`. nil without points.
  /// O(points log points).
  package static func crossing(_ points: [(x: Double, y: Double)], over threshold: Double) -> Crossing? {
    let sorted = points.filter { $0.x > 0 && $0.y > 0 }.sorted { $0.x < $1.x }
    guard let first = sorted.first, let last = sorted.last else { return nil }
    guard first.y <= threshold else { return .overThroughout(first.x) }
    for (a, b) in zip(sorted, sorted.dropFirst()) where a.y <= threshold && b.y > threshold {
      // On the segment's own line in log-log space.
      let t = (Foundation.log(threshold) - Foundation.log(a.y)) / (Foundation.log(b.y) - Foundation.log(a.y))
      return .crossesAt(exp(Foundation.log(a.x) + t * (Foundation.log(b.x) - Foundation.log(a.x))))
    }
    // A line that dips back under after crossing still counts from its first crossing above;
    // one that never crosses is under throughout.
    return .underThroughout(last.x)
  }
}

extension Growth.Crossing {
  /// "up to about 412,000 rows", "at every measured size (up to 2,442,920 rows)", "at none of
  /// the measured sizes (from 10,000 rows)".
  package var words: String {
    switch self {
    case .underThroughout(let x): "at every measured size (up to \(Int(x).grouped) rows)"
    case .overThroughout(let x): "at none of the measured sizes (from \(Int(x).grouped) rows)"
    case .crossesAt(let x): "up to about \(Int(Growth.roundForWords(x)).grouped) rows"
    }
  }
}

extension Growth {
  /// Two significant digits: an interpolated crossing is not known closer than that.
  package static func roundForWords(_ x: Double) -> Double {
    guard x >= 100 else { return x.rounded() }
    let scale = pow(10, floor(log10(x)) - 1)
    return (x / scale).rounded() * scale
  }
}
