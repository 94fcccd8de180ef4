import Foundation

/// The statistics `compare` judges two runs' repetitions with: a rank test for whether they
/// differ at all, and a bootstrap interval for how much.
enum RankStatistics {
  /// The median; the mean of the two middle values for an even count. O(n log n).
  static func median(_ x: [Double]) -> Double {
    let s = x.sorted()
    let n = s.count
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
  }

  /// The two-sided p-value of the Mann–Whitney U test that `a` and `b` come from one
  /// distribution: the normal approximation with the correction for ties and for continuity
  /// (as scipy's `mannwhitneyu` with `method="asymptotic"`). O((m + n) log(m + n)).
  static func mannWhitneyP(_ a: [Double], _ b: [Double]) -> Double {
    let (m, n) = (Double(a.count), Double(b.count))
    guard m > 0, n > 0 else { return 1 }
    let all = (a.map { ($0, 0) } + b.map { ($0, 1) }).sorted { $0.0 < $1.0 }
    var rankSumA = 0.0
    var tieTerm = 0.0
    var i = 0
    while i < all.count {
      var j = i
      while j + 1 < all.count && all[j + 1].0 == all[i].0 { j += 1 }
      // Tied values share the mean of their ranks (1-based).
      let rank = Double(i + j + 2) / 2
      let t = Double(j - i + 1)
      tieTerm += t * t * t - t
      for k in i...j where all[k].1 == 0 { rankSumA += rank }
      i = j + 1
    }
    let u = rankSumA - m * (m + 1) / 2
    let mean = m * n / 2
    let total = m + n
    let variance = m * n / 12 * ((total + 1) - tieTerm / (total * (total - 1)))
    guard variance > 0 else { return 1 }
    let z = (abs(u - mean) - 0.5) / variance.squareRoot()
    return min(1, erfc(max(0, z) / 2.0.squareRoot()))
  }

  /// The 95 % percentile bootstrap interval of median(b) / median(a): `resamples` draws with
  /// replacement from each side, from a fixed seed, so the same runs give the same interval.
  /// O(resamples · (m + n) log(m + n)).
  static func ratioInterval(_ a: [Double], _ b: [Double], resamples: Int = 2_000, seed: UInt64 = 1) -> (lo: Double, hi: Double) {
    var state = seed
    func next(_ bound: Int) -> Int {
      // SplitMix64: small, seeded, and the same on every platform.
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Int((z ^ (z >> 31)) % UInt64(bound))
    }
    var ratios: [Double] = []
    ratios.reserveCapacity(resamples)
    for _ in 0..<resamples {
      let ma = median((0..<a.count).map { _ in a[next(a.count)] })
      let mb = median((0..<b.count).map { _ in b[next(b.count)] })
      if ma > 0 { ratios.append(mb / ma) }
    }
    guard !ratios.isEmpty else { return (.nan, .nan) }
    ratios.sort()
    func at(_ q: Double) -> Double { ratios[min(ratios.count - 1, Int(q * Double(ratios.count)))] }
    return (at(0.025), at(0.975))
  }
}
