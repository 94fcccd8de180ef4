import Foundation
import HarnessSupport

/// The statistics `compare` judges two runs' times with. Repetitions in one process share
/// that process's offset (where its memory landed, what ran beside it), which moves a time
/// between runs of the same code by more than the repetitions spread; so the unit is the
/// process: each process's median, and Welch's t-test between the two sides' process medians.
package enum ProcessStatistics {
  /// Each process's median of `samples`, which hold `processes` equal shares in order.
  /// O(n log n).
  package static func processMedians(_ samples: [Double], processes: Int) -> [Double] {
    let share = samples.count / max(1, processes)
    guard share > 0 else { return [] }
    return (0..<processes).map { Summary(Array(samples[($0 * share)..<(($0 + 1) * share)])).median }
  }

  /// How `b` compares with `a`: the ratio of their means on a log scale (when every value is
  /// positive; of their plain means otherwise), its 95 % interval, and the two-sided p-value
  /// of Welch's t-test. O(m + n).
  package static func welch(_ a: [Double], _ b: [Double]) -> (ratio: Double, lo: Double, hi: Double, p: Double) {
    let logScale = (a + b).allSatisfy { $0 > 0 }
    let (x, y) = logScale ? (a.map(log), b.map(log)) : (a, b)
    func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(v.count) }
    func variance(_ v: [Double]) -> Double {
      let m = mean(v)
      return v.count > 1 ? v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count - 1) : 0
    }
    let (mx, my) = (mean(x), mean(y))
    let (sx, sy) = (variance(x) / Double(x.count), variance(y) / Double(y.count))
    let se = (sx + sy).squareRoot()
    let difference = my - mx
    func ratio(_ d: Double) -> Double { logScale ? exp(d) : (mx == 0 ? (mx + d == 0 ? 1 : .infinity) : (mx + d) / mx) }
    guard se > 0 else { return (ratio(difference), ratio(difference), ratio(difference), difference == 0 ? 1 : 0) }
    let df = (sx + sy) * (sx + sy) / (sx * sx / Double(max(1, x.count - 1)) + sy * sy / Double(max(1, y.count - 1)))
    let q = tQuantile(0.05, df: df)
    return (
      ratio(difference), ratio(difference - q * se), ratio(difference + q * se), tTwoSidedP(difference / se, df: df)
    )
  }

  /// P(|T| ≥ |t|) for Student's t with `df` degrees of freedom. O(1).
  package static func tTwoSidedP(_ t: Double, df: Double) -> Double {
    incompleteBeta(df / (df + t * t), df / 2, 0.5)
  }

  /// The t with P(|T| ≥ t) = `p`, by bisection. O(1).
  package static func tQuantile(_ p: Double, df: Double) -> Double {
    var (lo, hi) = (0.0, 1_000.0)
    for _ in 0..<100 {
      let mid = (lo + hi) / 2
      if tTwoSidedP(mid, df: df) > p { lo = mid } else { hi = mid }
    }
    return (lo + hi) / 2
  }

  /// The regularized incomplete beta function I_x(a, b), by its continued fraction (Lentz's
  /// method, as in Numerical Recipes' `betai`). O(1).
  package static func incompleteBeta(_ x: Double, _ a: Double, _ b: Double) -> Double {
    guard x > 0 else { return 0 }
    guard x < 1 else { return 1 }
    // The fraction converges fast for x < (a + 1) / (a + b + 2); the symmetry covers the rest.
    if x > (a + 1) / (a + b + 2) { return 1 - incompleteBeta(1 - x, b, a) }
    let logBeta: Double = lgamma(a + b) - lgamma(a) - lgamma(b)
    let logPowers: Double = a * log(x) + b * log(1 - x)
    let front = exp(logBeta + logPowers)
    let tiny = 1e-300
    var (c, d) = (1.0, 1 - (a + b) * x / (a + 1))
    d = 1 / (abs(d) < tiny ? tiny : d)
    var f = d
    for m in 1...300 {
      let m = Double(m)
      let even: Double = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
      let odd: Double = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
      for numerator in [even, odd] {
        d = 1 + numerator * d
        d = 1 / (abs(d) < tiny ? tiny : d)
        c = 1 + numerator / c
        if abs(c) < tiny { c = tiny }
        f *= c * d
      }
      if abs(c * d - 1) < 1e-15 { break }
    }
    return front * f / a
  }
}
