import DatasetStores
import Foundation
import Reports
import ResultModel
import Vocabulary

/// One run's figures as a line of a history file (`fetchbench history add`): where and when it
/// was measured, and every figure with a direction under its full key.
package struct HistoryEntry: Codable, Sendable, Equatable {
  package struct Figure: Codable, Sendable, Equatable {
    /// The median of the repetitions, with the smallest and largest.
    package var value: Double
    package var min: Double
    package var max: Double
    package var unit: String
    package var better: Metric.Better
  }

  package var runID: String
  package var commit: String
  /// When the run started, ISO 8601 (from its run ID).
  package var date: String
  package var machine: String
  package var toolchain: String
  package var figures: [String: Figure]

  /// The run's figures that have a direction (`RunExport`'s). Throws when the run has none.
  /// O(rows log rows).
  package init(rows: [ResultRow]) throws {
    let tracked = RunExport.tracked(rows)
    guard let first = tracked.first else {
      throw HistoryError.noFigureToKeep
    }
    runID = first.runID
    commit = first.machine.gitCommit
    date = Self.isoDate(runID: first.runID) ?? first.runID
    machine = "\(first.machine.cores) cores, \(bytes(Double(first.machine.memoryBytes))), \(first.machine.os)"
    toolchain = first.machine.swiftVersion
    figures = Dictionary(
      tracked.map { r in
        (
          Comparison.name(r),
          Figure(value: r.value, min: r.min, max: r.max, unit: r.unit.rawValue, better: r.metric.better)
        )
      }, uniquingKeysWith: { a, _ in a })
  }

  /// `20261126T193619Z` as `2026-11-26T19:36:19Z`.
  static func isoDate(runID: String) -> String? {
    let c = Array(runID)
    guard c.count == 16, c[8] == "T", c[15] == "Z" else { return nil }
    let s = String(c)
    func part(_ a: Int, _ b: Int) -> Substring {
      s[s.index(s.startIndex, offsetBy: a)..<s.index(s.startIndex, offsetBy: b)]
    }
    return "\(part(0, 4))-\(part(4, 6))-\(part(6, 8))T\(part(9, 11)):\(part(11, 13)):\(part(13, 15))Z"
  }
}
