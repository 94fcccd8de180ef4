import FetchBenchKit
import Testing

/// `--find-max-rate`'s search, step by step, for a store whose limit is known: the exact
/// rates it tries and the rate it ends on.
@Suite struct RateSearchSteps {
  /// The rates tried and the highest sustained, when every rate up to `limit` is sustained.
  static func search(limit: Double) -> (tried: [Double], highest: Double?) {
    var search = RateSearch(first: 125, lowest: 8, highest: 16_000)
    var tried: [Double] = []
    while let rate = search.next {
      tried.append(rate)
      search.record(rate, sustained: rate <= limit)
    }
    return (tried, search.highestSustained)
  }

  @Test func climbsByDoublingThenBisectsToWithinTenPercent() {
    let (tried, highest) = Self.search(limit: 700)
    #expect(tried == [125, 250, 500, 1_000, 750, 625, 688])
    #expect(highest == 688)
  }

  @Test func halvesFromTheFirstRateThenBisectsAtMostThreeTimes() {
    let (tried, highest) = Self.search(limit: 40)
    #expect(tried == [125, 62, 31, 47, 39, 43])
    #expect(highest == 39)
  }

  @Test func endsWithoutARateBelowTheLowest() {
    let (tried, highest) = Self.search(limit: 0)
    #expect(tried == [125, 62, 31, 15])
    #expect(highest == nil)
  }

  @Test func stopsAtTheHighestRate() {
    let (tried, highest) = Self.search(limit: .infinity)
    #expect(tried == [125, 250, 500, 1_000, 2_000, 4_000, 8_000, 16_000])
    #expect(highest == 16_000)
  }
}
