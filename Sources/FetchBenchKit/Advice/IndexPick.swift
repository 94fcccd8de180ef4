import Catalog
import Foundation

/// The index to add for one operation of a list (the ID query, the sectioned ID query, the
/// first page), read from the index advice's rows: the candidate whose per-pair ratio to the
/// unindexed file has the lowest median, advised when that median is at most `threshold`.
public struct IndexPick: Sendable, Equatable {
  public var dataset: String
  public var rows: Int
  public var store: String
  /// `IndexAdvice.Work`'s raw value: perform_fetch, sectioned, batch_fault, first_page, seek_middle.
  public var scenario: String
  /// The best candidate's tag, advised or not.
  public var tag: String
  public var index: IndexSpec?
  /// Its time and the unindexed file's, in the work's unit, with their rows for ranges.
  public var indexed: ResultRow
  public var unindexed: ResultRow
  /// The per-pair ratio to the unindexed file: median [min–max].
  public var ratio: ResultRow
  /// Whether the ratio's median is at most the threshold.
  public var advised: Bool

  /// The statement to copy, in the store's own SQL.
  public var createStatement: String? { index?.createStatement(postgres: store == "postgres") }

  static let timeMetrics: Set<String> = [Metric.time.name, Metric.timeUs.name]

  /// An index counts when it saves at least 10 % per pair.
  public static let threshold = 0.9

  /// One pick per (dataset, rows, store, scenario) that the advice measured, in row order.
  /// O(rows).
  public static func all(_ rows: [ResultRow]) -> [IndexPick] {
    let advice = rows.filter { $0.mode == CaseWork.indexAdvice.mode && $0.status == "ok" }
    var order: [String] = []
    var groups: [String: [ResultRow]] = [:]
    for r in advice {
      let key = "\(r.dataset)\u{0}\(r.rows)\u{0}\(r.store)\u{0}\(r.scenario)"
      if groups[key] == nil { order.append(key) }
      groups[key, default: []].append(r)
    }
    return order.compactMap { key in
      let g = groups[key]!
      // Equal ratios (results recorded with three decimals hold 0.001 for any ratio that
      // small) go to the faster median time.
      func ms(_ index: String) -> Double {
        guard let r = g.first(where: { $0.index == index && Self.timeMetrics.contains($0.metric) }) else { return .infinity }
        return r.metric == Metric.timeUs.name ? r.value / 1_000 : r.value
      }
      guard
        let best = g.filter({ $0.metric == Metric.overUnindexed.name }).min(by: {
          ($0.value, ms($0.index)) < ($1.value, ms($1.index))
        }),
        let time = g.first(where: { $0.index == best.index && Self.timeMetrics.contains($0.metric) }),
        let none = g.first(where: { $0.index == "none" && $0.metric == time.metric })
      else { return nil }
      return IndexPick(
        dataset: best.dataset, rows: best.rows, store: best.store, scenario: best.scenario, tag: best.index,
        index: DatasetKind(rawValue: best.dataset).flatMap { IndexSpec(tag: best.index, in: $0) }, indexed: time, unindexed: none,
        ratio: best, advised: best.value <= threshold)
    }
  }
}
