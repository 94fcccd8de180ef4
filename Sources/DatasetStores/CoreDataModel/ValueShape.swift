import Datasets
import Foundation

/// What a population file sets for one attribute beyond its NULL share: how many distinct
/// values it takes, from which range or of which length, and how unevenly they are used.
public struct ValueShape: Sendable, Equatable {
  /// The share of rows left NULL (optional attributes and to-ones only).
  public var nullShare: Double?
  /// How many distinct values the attribute takes (1 to `maxDistinct`).
  public var distinct: Int?
  /// The least and greatest value of a number or a date (a date in seconds since 2001, as
  /// Core Data stores it).
  public var range: ClosedRange<Double>?
  /// The least and greatest length of a string (characters) or of binary data (bytes).
  public var length: ClosedRange<Int>?
  /// How unevenly the `distinct` values are used: the value of rank k (from 0) is drawn with
  /// weight 1 / (k + 1)^skew, a Zipf law. 0 (the default) uses every value equally; at 1 the
  /// commonest of 100 values is in about one row of five.
  public var skew: Double?

  public static let maxDistinct = 1_000_000

  public init() {}

  /// The rank of the value a row takes, from 0 to `distinct - 1`: uniform without a skew, by
  /// `Ranks`' cumulative weights with one. O(log distinct).
  func rank(_ random: inout SeededRandom, _ ranks: Ranks?) -> Int {
    guard let distinct else { return 0 }
    guard let ranks else { return Int(random.below(UInt64(distinct))) }
    return ranks.draw(random.unit())
  }

  /// The cumulative Zipf weights of a skewed attribute; nil without a skew or `distinct`.
  /// O(distinct).
  var ranks: Ranks? {
    guard let distinct, let skew, skew > 0 else { return nil }
    return Ranks(count: distinct, skew: skew)
  }

  /// The shares of each rank, cumulated: drawing a rank is a binary search for a uniform
  /// number, so a value of rank k is drawn with probability `(k + 1)^-skew / H(count, skew)`.
  struct Ranks {
    private var cumulative: [Double]

    init(count: Int, skew: Double) {
      cumulative = []
      cumulative.reserveCapacity(count)
      var total = 0.0
      for k in 1...count {
        total += 1 / pow(Double(k), skew)
        cumulative.append(total)
      }
      cumulative = cumulative.map { $0 / total }
    }

    /// The first rank whose cumulative share exceeds `u` (in [0, 1)). O(log count).
    func draw(_ u: Double) -> Int {
      var (low, high) = (0, cumulative.count - 1)
      while low < high {
        let mid = (low + high) / 2
        if cumulative[mid] > u { high = mid } else { low = mid + 1 }
      }
      return low
    }
  }
}
