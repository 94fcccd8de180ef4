import DatasetStores
import Datasets
import Foundation
import ResultModel

/// One run's figures in the formats CI tools keep and chart: Bencher's Metric Format and
/// github-action-benchmark's custom JSON. Only figures that have a direction to track are
/// written (times, rates, counts and bytes that are better lower or higher), each under its
/// full key.
package enum RunExport {
  package enum Format: String, Sendable, CaseIterable {
    /// Bencher Metric Format: `{"<benchmark>": {"<measure>": {"value", "lower_value", "upper_value"}}}`.
    case bmf
    /// github-action-benchmark's `customSmallerIsBetter` and `customBiggerIsBetter` lists,
    /// one file each: `[{"name", "unit", "value", "range", "extra"}]`.
    case githubActionBenchmark = "github-action-benchmark"
  }

  /// The figures worth tracking, in key order. O(rows log rows).
  static func tracked(_ rows: [ResultRow]) -> [ResultRow] {
    rows.filter { $0.isOK && $0.unit != .none && $0.metric.better != .neither }
      .sorted { Comparison.name($0) < Comparison.name($1) }
  }

  /// A figure's benchmark (its key without the metric) and measure (the metric, with its unit
  /// when it has one): `banks/244292/sqlite/batched/20/none/first_screen` and `time_ms`.
  static func benchmarkAndMeasure(_ r: ResultRow) -> (benchmark: String, measure: String) {
    (r.key.parts.joined(separator: "/"), r.metric.name)
  }

  /// Bencher Metric Format: the median as the value, the smallest and largest repetition as
  /// its bounds. O(rows).
  package static func bmf(_ rows: [ResultRow]) throws -> Data {
    var out: [String: [String: [String: Double]]] = [:]
    for r in tracked(rows) {
      let (benchmark, measure) = benchmarkAndMeasure(r)
      out[benchmark, default: [:]][measure] = ["value": r.value, "lower_value": r.min, "upper_value": r.max]
    }
    return try encode(out)
  }

  /// One entry of github-action-benchmark's custom format.
  struct ActionEntry: Encodable {
    var name: String
    var unit: String
    var value: Double
    var range: String
    var extra: String
  }

  /// github-action-benchmark's two lists: figures better lower (`customSmallerIsBetter`) and
  /// better higher (`customBiggerIsBetter`). The range is the repetitions' spread around the
  /// median. O(rows).
  package static func githubActionBenchmark(_ rows: [ResultRow]) throws -> (smallerIsBetter: Data, biggerIsBetter: Data)
  {
    func entries(_ better: Metric.Better) -> [ActionEntry] {
      tracked(rows).filter { $0.metric.better == better }.map { r in
        ActionEntry(
          name: Comparison.name(r), unit: r.unit.rawValue, value: r.value,
          range: "-\(ResultRow.number(r.value - r.min)) +\(ResultRow.number(r.max - r.value))",
          extra:
            """
            median of \(r.repetitions) repetition\(r.repetitions == 1 ? "" : "s"), run \(r.runID), commit \
            \(r.machine.gitCommit)
            """
        )
      }
    }
    return (try encode(entries(.lower)), try encode(entries(.higher)))
  }

  /// The two files github-action-benchmark reads, by the tool each is for.
  package static let actionFiles = ["smaller-is-better.json", "bigger-is-better.json"]

  /// Writes github-action-benchmark's two files into `folder` as an `OutputFolder` of
  /// `export`: a new or empty folder, or one this command wrote before; a folder holding
  /// anything else, the same two names of the user's among them, is left as it is. O(rows).
  package static func writeActionFiles(_ rows: [ResultRow], to folder: String) throws {
    let (smaller, bigger) = try githubActionBenchmark(rows)
    try OutputFolder.write(to: folder, command: .export) { tmp in
      try smaller.write(to: URL(fileURLWithPath: tmp + "/" + actionFiles[0]))
      try bigger.write(to: URL(fileURLWithPath: tmp + "/" + actionFiles[1]))
    }
  }

  static func encode(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value) + Data("\n".utf8)
  }
}
