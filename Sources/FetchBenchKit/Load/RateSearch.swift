/// `--find-max-rate`'s search: the rate doubles from the first one until a step is not
/// sustained (or, when the first is not, halves down to the lowest), then bisects between the
/// highest sustained and the lowest unsustained rate until they are within 10% of each other
/// or after three bisections. A pure state machine: `next` is the rate to try, nil when done.
package struct RateSearch: Sendable, Equatable {
  package private(set) var highestSustained: Double?
  package private(set) var lowestUnsustained: Double?
  package private(set) var next: Double?
  private var bisections = 0
  let lowest: Double
  let highest: Double

  package static let maxBisections = 3
  /// Bracketing ends when the unsustained rate is at most this multiple of the sustained one.
  package static let closeEnough = 1.1

  package init(first: Double, lowest: Double, highest: Double) {
    next = first
    self.lowest = lowest
    self.highest = highest
  }

  /// Records the step at `rate` and chooses the next rate.
  package mutating func record(_ rate: Double, sustained: Bool) {
    if sustained {
      highestSustained = max(highestSustained ?? rate, rate)
    } else {
      lowestUnsustained = min(lowestUnsustained ?? rate, rate)
    }
    switch (highestSustained, lowestUnsustained) {
    case (_, nil): next = rate * 2 <= highest ? rate * 2 : nil
    case (nil, _): next = (rate / 2).rounded(.down) >= lowest ? (rate / 2).rounded(.down) : nil
    case (let good?, let bad?):
      let middle = ((good + bad) / 2).rounded()
      if bad <= good * Self.closeEnough || bisections >= Self.maxBisections || middle <= good || middle >= bad {
        next = nil
      } else {
        bisections += 1
        next = middle
      }
    }
  }
}
