import Foundation

/// Median, minimum and maximum of repeated measurements, and the measurements in the order
/// they were taken, so that two runs can be compared after the fact.
package struct Summary: Sendable, Equatable, Codable {
  package var median: Double
  package var min: Double
  package var max: Double
  package var count: Int
  package var samples: [Double]

  /// O(n log n). The median of an even count is the mean of the two middle values.
  package init(_ samples: [Double]) {
    precondition(!samples.isEmpty)
    let s = samples.sorted()
    let n = s.count
    median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    min = s[0]
    max = s[n - 1]
    count = n
    self.samples = samples
  }

  package enum CodingKeys: String, CodingKey { case median, min, max, count, samples }

  /// A case journaled before samples were kept reads with none.
  package init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    (median, min, max, count) = (
      try c.decode(Double.self, forKey: .median), try c.decode(Double.self, forKey: .min),
      try c.decode(Double.self, forKey: .max),
      try c.decode(Int.self, forKey: .count)
    )
    samples = try c.decodeIfPresent([Double].self, forKey: .samples) ?? []
  }
}
