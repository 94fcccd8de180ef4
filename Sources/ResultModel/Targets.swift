/// A bound the report holds a figure to, stated once with the issue that set it: the report's
/// sentences and tables print `text`, so a target changed here is changed everywhere.
package struct Target: Sendable, CustomStringConvertible {
  /// The most the figure may be (a ratio, bytes per row, milliseconds or seconds).
  package var bound: Double
  package var unit: String
  /// What is held to it.
  package var what: String
  /// Where the target was set.
  package var source: String

  /// `≤ 1.15`, `≤ 25 ms`.
  package var description: String {
    let number = bound == bound.rounded() ? String(Int(bound)) : String(bound)
    return "≤ \(number)" + (unit.isEmpty ? "" : " \(unit)")
  }

  /// Whether `value` is within the target.
  package func isMet(by value: Double) -> Bool { value <= bound }
}

/// The report's targets.
package enum Targets {
  package static let engineOverFloor = Target(
    bound: 1.15, unit: "", what: "SQLite: batched performFetch and a scroll-through over the C API's same statements",
    source: "issue #3")
  package static let heapBytesPerRow = Target(
    bound: 16, unit: "", what: "live heap after batched performFetch, bytes per row", source: "issue #3")
  package static let tenPercentEditDiffMs = Target(
    bound: 25, unit: "ms", what: "the whole-list diff of the 10% edit", source: "issue #3")
  package static let engineOverPsql = Target(
    bound: 1.3, unit: "", what: "PostgreSQL: batched performFetch over psql fetching the same IDs", source: "issue #6")
  package static let postgresLoadSeconds = Target(
    bound: 5, unit: "s", what: "loading a dataset into PostgreSQL (well under)", source: "issue #6")
  package static let batchedOverLimit = Target(
    bound: 1.5, unit: "", what: "batched performFetch over the in-memory limit", source: "issue #15")
  package static let fullOverLimit = Target(
    bound: 2, unit: "", what: "full performFetch over the in-memory limit", source: "issue #15")
  package static let sectionedOverUnsectioned = Target(
    bound: 1.3, unit: "", what: "a sectioned list over the same list without sections", source: "issue #15")
}
