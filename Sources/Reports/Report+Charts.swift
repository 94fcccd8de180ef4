import Catalog
import Foundation
import ResultModel
import TextFormatting

// The charts under charts/, one SVG each.
extension Report {
  /// Each strategy's bar colour, in the order the charts list them.
  package static let strategyColors: [(FetchMode, String)] = [
    (.full, "#d9534f"), (.batched, "#0275d8"), (.offset, "#f0ad4e"), (.keyset, "#5cb85c"),
  ]

  package func charts() -> [(String, String)] {
    if isDiff { return diffCharts() }
    var out: [(String, String)] = []
    for k in storeKeys {
      for batch in tableBatchSizes {
        let cats = scenarios.map { $0.scenario?.title ?? $0.csv }
        func series(_ metric: Metric) -> [(String, String, [Double?])] {
          Self.strategyColors.map { mode, color in
            let b = mode.batchSize(batch)
            return (
              mode == .full ? "full" : "\(mode.rawValue) (\(batch))", color,
              scenarios.map { find(k, mode: .fetch(mode), batch: b, scenario: $0, metric: metric)?.value }
            )
          }
        }
        out.append(
          (
            Self.slug(k, "time-b\(batch)"),
            SVG.bars(
              title: "\(k.dataset.displayName) \(k.rows.grouped), \(Self.storeName(k)): time per scenario",
              axisTitle: "median time",
              categories: cats, series: series(.time), format: milliseconds,
              threshold: (frameMs, "one frame, \(String(format: "%.1f", frameMs)) ms"))
          ))
        let heapUnit = Self.byteUnit(series(.heapLive))
        out.append(
          (
            Self.slug(k, "heap-b\(batch)"),
            SVG.bars(
              title: "\(k.dataset.displayName) \(k.rows.grouped), \(Self.storeName(k)): heap live with the list open",
              axisTitle: "bytes live",
              categories: cats, series: series(.heapLive), format: { bytes($0) },
              unit: heapUnit.size, tickFormat: heapUnit.tickLabel,
              threshold: (memoryBudget, "memory budget, \(bytes(memoryBudget))"))
          ))
      }
    }
    out += scalingCharts()
    return out
  }

  /// The binary unit the largest value is written in, for round ticks: GiB, MiB, KiB or bytes.
  package static func byteUnit(_ series: [(String, String, [Double?])]) -> ByteUnit {
    let largest = series.flatMap { $0.2.compactMap { $0 } }.max() ?? 0
    return ByteUnit.allCases.first { largest >= $0.size } ?? .bytes
  }
}
