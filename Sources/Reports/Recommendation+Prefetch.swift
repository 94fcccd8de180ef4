import Catalog
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

/// What the recommendation says of prefetching the relationships a list's cells read: the
/// cells scenarios with each related object faulted, against the same cells prefetched,
/// alternately in one process.
extension Recommendation {
  /// Prefetching pays where the faulting cells take at least this much longer per pair.
  static let prefetchPays = 1.1

  /// `Prefetch details for its cells (…): …`, from the chosen way's cells scenarios; nil
  /// where the run measured none for it (no cell reads through a relationship, or a paged
  /// list). O(rows).
  static func prefetchSentence(_ rows: [ResultRow], mode: FetchMode, batch: Int, relationships: [String]) -> String? {
    func figure(_ scenario: Scenario, _ metric: Metric) -> ResultRow? {
      rows.first {
        $0.scenario == .scenario(scenario) && $0.mode == .fetch(mode) && $0.batchSize == batch
          && $0.index == .none && $0.metric == metric && $0.isOK
      }
    }
    let measured: [(what: String, scenario: Scenario)] = [
      ("the first screen's cells", .firstScreenCells),
      ("a fling through the first \(Scenario.flingRows.grouped) rows' cells", .scrollFirst1000Cells),
    ]
    var parts: [String] = []
    var decisive: Double?
    for (what, scenario) in measured {
      guard let faulting = figure(scenario, .time), let prefetched = figure(scenario, .prefetched),
        let ratio = figure(scenario, .faultingOverPrefetched)
      else { continue }
      let statements = figure(scenario, .queries).map { " (\(Int($0.value).grouped) statements)" } ?? ""
      parts.append(
        "\(what): \(milliseconds(faulting.value)) faulting\(statements), \(milliseconds(prefetched.value)) "
          + "prefetched (\(String(format: "%.2f", ratio.value))× per pair)")
      decisive = ratio.value
    }
    guard let decisive, !relationships.isEmpty else { return nil }
    let names = relationships.joined(separator: ", ")
    let keyPaths = relationships.map { "\"\($0)\"" }.joined(separator: ", ")
    let lead =
      decisive >= prefetchPays
      ? "Prefetch \(names) for its cells (relationshipKeyPathsForPrefetching = [\(keyPaths)]): without it, each "
        + "related object a cell reads is a fault, one statement each"
      : decisive <= 1 / prefetchPays
        ? "Do not prefetch \(names) for its cells: prefetching reads every fetched row's related object, more than "
          + "the cells fault"
        : "Prefetching \(names) for its cells changes little"
    return lead + " — " + parts.joined(separator: "; ") + "."
  }
}
