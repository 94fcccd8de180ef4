import Foundation

/// Median, minimum and maximum of repeated measurements.
package struct Summary: Sendable, Equatable, Codable {
  package var median: Double
  package var min: Double
  package var max: Double
  package var count: Int

  /// O(n log n). The median of an even count is the mean of the two middle values.
  package init(_ samples: [Double]) {
    precondition(!samples.isEmpty)
    let s = samples.sorted()
    let n = s.count
    median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    min = s[0]
    max = s[n - 1]
    count = n
  }
}
