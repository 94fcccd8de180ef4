import Foundation

// The charts under charts/, one SVG each.
extension Report {

  package func charts() -> [(String, String)] {
    if isDiff { return diffCharts() }
    var out: [(String, String)] = []
    for k in storeKeys {
      for batch in batchSizes {
        let cats = scenarios.map(\.csv)
        func series(_ metric: Metric) -> [(String, String, [Double?])] {
          [
            ("full", "#d9534f", scenarios.map { find(k, mode: .fetch(.full), batch: 0, scenario: $0, metric: metric)?.value }),
            (
              "batched (\(batch))", "#0275d8",
              scenarios.map { find(k, mode: .fetch(.batched), batch: batch, scenario: $0, metric: metric)?.value }
            ),
          ]
        }
        out.append(
          (
            Self.slug(k, "time-b\(batch)"),
            SVG.bars(
              title: "\(k.dataset.rawValue) \(k.rows.grouped), \(Self.storeName(k)): time (ms, log scale)", categories: cats,
              series: series(.time), format: { String(format: "%.1f ms", $0) })
          ))
        out.append(
          (
            Self.slug(k, "heap-b\(batch)"),
            SVG.bars(
              title: "\(k.dataset.rawValue) \(k.rows.grouped), \(Self.storeName(k)): heap live (log scale)", categories: cats,
              series: series(.heapLive), format: { bytes($0) })
          ))
      }
    }
    out += scalingCharts()
    return out
  }
}
