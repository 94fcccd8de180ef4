import Foundation

/// Median, minimum and maximum of repeated measurements.
public struct Summary: Sendable, Equatable, Codable {
  public var median: Double
  public var min: Double
  public var max: Double
  public var count: Int

  /// O(n log n). The median of an even count is the mean of the two middle values.
  public init(_ samples: [Double]) {
    precondition(!samples.isEmpty)
    let s = samples.sorted()
    let n = s.count
    median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    min = s[0]
    max = s[n - 1]
    count = n
  }
}
