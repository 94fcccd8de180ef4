/// `run --shard K/N`: the K-th of N deterministic parts of a run's cases, so that N machines
/// measure one sweep in parallel, each case on one machine. Parts are balanced by each case's
/// expected cost (longest first, each to the part with the least so far), computed from the
/// cases alone: every machine given the same options and N picks the same parts.
package struct Shard: Sendable, Equatable, CustomStringConvertible {
  /// 1-based.
  package var index: Int
  package var count: Int

  /// `K/N` with 1 ≤ K ≤ N ≤ 1,000; nil otherwise.
  package init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), (1...1_000).contains(n), (1...n).contains(k)
    else { return nil }
    (index, count) = (k, n)
  }

  package var description: String { "\(index)/\(count)" }

  /// The cases of this part, in the run's order. O(cases · (log cases + parts)).
  package func select(_ cases: [CaseSpec]) -> [CaseSpec] {
    let order = cases.indices.sorted { (cases[$0].expectedCost, $1) > (cases[$1].expectedCost, $0) }
    var load = [Double](repeating: 0, count: count)
    var mine: [Int] = []
    for i in order {
      let part = load.indices.min { (load[$0], $0) < (load[$1], $1) }!
      load[part] += cases[i].expectedCost
      if part == index - 1 { mine.append(i) }
    }
    return mine.sorted().map { cases[$0] }
  }
}
