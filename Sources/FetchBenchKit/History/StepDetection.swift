/// Where a figure moved across a history of runs: a change that lasts, not one outlier. A
/// step at run i needs the runs before it (up to `window`, since the last step) to agree, and
/// the first `persist` runs from i on to lie beyond all of them by more than `threshold`, on
/// the same side, with the medians apart by as much.
package enum StepDetection {
  package struct Step: Sendable, Equatable {
    /// The first run after the step.
    package var index: Int
    /// The median after it over the median before it.
    package var ratio: Double

    package init(index: Int, ratio: Double) {
      self.index = index
      self.ratio = ratio
    }
  }

  /// O(values · window log window).
  package static func steps(_ values: [Double], threshold: Double = 0.10, window: Int = 5, persist: Int = 2) -> [Step] {
    var steps: [Step] = []
    var segmentStart = 0
    var i = 2
    while i + persist <= values.count {
      let before = Array(values[max(segmentStart, i - window)..<i])
      let after = Array(values[i..<min(values.count, i + window)])
      guard before.count >= 2, let lo = before.min(), let hi = before.max() else {
        i += 1
        continue
      }
      let first = after.prefix(persist)
      let (mb, ma) = (median(before), median(after))
      let up = first.allSatisfy { $0 > hi * (1 + threshold) } && ma > mb * (1 + threshold)
      let down = first.allSatisfy { $0 < lo * (1 - threshold) } && ma < mb * (1 - threshold)
      if (up || down) && mb != 0 {
        steps.append(Step(index: i, ratio: ma / mb))
        segmentStart = i
        i += 2
      } else {
        i += 1
      }
    }
    return steps
  }

  static func median(_ v: [Double]) -> Double {
    let s = v.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
  }
}
