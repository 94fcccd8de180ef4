import DatasetStores
import Datasets
import Foundation
import HarnessSupport
import Reports
import ResultModel
import Vocabulary

// The load report's charts: a timeline per store and rate.
extension LoadReport {
  static func slug(_ r: LoadResult) -> String { "\(r.config.store.rawValue)-\(Int(r.config.rate))" }

  func charts() -> [(String, String)] {
    var out: [(String, String)] = []
    for r in results where !r.timeline.isEmpty {
      let xs = r.timeline.map { Double($0.second + 1) }
      let name = Self.storeName(r.config.store)
      out.append(
        (
          "\(Self.slug(r))-commits.svg",
          Self.timeChart(
            title: "\(name): commits per second (target \(Int(r.config.rate)))", xs: xs,
            series: [("achieved", r.timeline.map { Double($0.commits) }), ("target", xs.map { _ in r.config.rate })])
        ))
      out.append(
        (
          "\(Self.slug(r))-delivery.svg",
          // On a log axis: on a linear one p50 is a flat line under a 2 s spike.
          Self.timeChart(
            title: "\(name): delivery latency per second (ms, log scale)", xs: xs,
            series: [("p50", r.timeline.map(\.deliveryP50Ms)), ("p99", r.timeline.map(\.deliveryP99Ms))], y: .log,
            thresholds: [
              (r.config.frameBudgetMs == LoadRunner.frameMs ? "one frame" : "frame budget", r.config.frameBudgetMs)
            ])
        ))
      out.append(
        (
          "\(Self.slug(r))-heap.svg",
          Self.timeChart(
            title: "\(name): live heap and RSS (MiB)", xs: xs,
            series: [
              ("heap", r.timeline.map { Double($0.heapBytes) / 1_048_576 }),
              ("RSS", r.timeline.map { Double($0.rssBytes) / 1_048_576 }),
            ])
        ))
    }
    return out
  }

  /// Lines over the run's seconds, on a linear x axis from zero; y linear from zero or log.
  static func timeChart(
    title: String, xs: [Double], series: [(String, [Double])], y: SVG.Axis = .linear,
    thresholds: [(label: String, value: Double)] = []
  ) -> String {
    SVG.lines(
      title: title, xs: xs, series: series.map { ($0.0, $0.1.map(Optional.some)) }, x: .linear, y: y,
      thresholds: thresholds,
      xLabel: { "\(Int($0)) s" })
  }
}
