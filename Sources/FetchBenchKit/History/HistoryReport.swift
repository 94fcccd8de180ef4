import Foundation
import Reports
import ResultModel

/// `fetchbench history report`: each figure across the history's runs, the runs where it moved
/// beyond its noise (`StepDetection`) marked, as report.md and a chart per figure that moved.
package struct HistoryReport {
  let entries: [HistoryEntry]

  package init(_ entries: [HistoryEntry]) { self.entries = entries }

  /// A figure that stepped, at which run, by how much, and whether that is better.
  struct Moved {
    var name: String
    var unit: String
    var step: StepDetection.Step
    var better: Bool
  }

  /// Every figure's values in run order (nil where a run lacks it).
  var series: [(name: String, values: [Double?])] {
    let names = Set(entries.flatMap(\.figures.keys)).sorted()
    return names.map { name in (name, entries.map { $0.figures[name]?.value }) }
  }

  /// The steps of every figure, over the runs that have it. O(figures · runs · window).
  var moved: [Moved] {
    series.flatMap { name, values -> [Moved] in
      let present = values.enumerated().compactMap { i, v in v.map { (i, $0) } }
      let figure = entries.lazy.compactMap { $0.figures[name] }.first!
      return StepDetection.steps(present.map(\.1)).map { s in
        var step = s
        step.index = present[s.index].0
        let lower = s.ratio < 1
        return Moved(name: name, unit: figure.unit, step: step, better: figure.better == .lower ? lower : !lower)
      }
    }
  }

  /// Figures an earlier run measured that the last run lacks, with the last run that has each:
  /// a case that stopped being measured is not a figure that held. O(figures · runs).
  package var vanished: [(name: String, lastRun: Int)] {
    guard entries.count > 1 else { return [] }
    return series.compactMap { name, values in
      guard values.last! == nil, let last = values.lastIndex(where: { $0 != nil }) else { return nil }
      return (name, last)
    }
  }

  /// report.md: the runs, then each figure that moved with the run where it did, then each that
  /// the last run no longer has. O(figures · runs).
  func markdown() -> String {
    var md = "# FetchBench history\n\n"
    md +=
      """
      \(entries.count) runs, oldest first. A figure moved at a run when the runs before it (up to five, since its \
      last move) agree and the next two lie beyond all of them by more than 10 %, on the same side, with the medians \
      apart by as much: a step, not one outlier.\n\n
      """
    md += MarkdownTable(.right("#"), .left("run"), .left("commit"), .left("machine"), .left("toolchain")).header
    for (i, e) in entries.enumerated() {
      md += "| \(i + 1) | \(e.date) | `\(e.commit)` | \(e.machine) | \(e.toolchain) |\n"
    }
    let moved = self.moved
    md += "\n## Figures that moved\n\n"
    if moved.isEmpty {
      md += "None: every figure stayed within its noise.\n"
    } else {
      md += MarkdownTable(.left("figure"), .right("at run"), .left("commit"), .right("change"), .left("")).header
      for m in moved {
        md +=
          """
          | `\(m.name)` | \(m.step.index + 1) | `\(entries[m.step.index].commit)` | \
          ×\(String(format: "%.2f", m.step.ratio)) | \(m.better ? "better" : "worse") |\n
          """
      }
      md += "\n"
      for (name, chart) in Set(moved.map(\.name)).sorted().map({ ($0, Self.slug($0)) }) {
        md += "![\(name)](charts/\(chart).svg)\n"
      }
    }
    let vanished = self.vanished
    if !vanished.isEmpty {
      md += "\n## Figures the last run no longer has\n\n"
      md +=
        """
        \(vanished.count) figures measured earlier are missing from run \(entries.count) \
        (`\(entries.last!.commit)`): their cases failed, were removed or were renamed. The steps above cannot see \
        them.\n\n
        """
      md += MarkdownTable(.left("figure"), .right("last measured at run"), .left("commit")).header
      for v in vanished { md += "| `\(v.name)` | \(v.lastRun + 1) | `\(entries[v.lastRun].commit)` |\n" }
    }
    md +=
      "\n## Every figure, last run\n\n"
      + MarkdownTable(.left("figure"), .right("runs"), .right("first"), .right("last")).header
    for (name, values) in series {
      let present = values.compactMap { $0 }
      let unit = entries.lazy.compactMap { $0.figures[name] }.first?.unit ?? ""
      md +=
        """
        | `\(name)` | \(present.count) | \(ResultRow.number(present.first!)) \(unit) | \
        \(ResultRow.number(present.last!)) \(unit) |\n
        """
    }
    return md
  }

  /// A chart per figure that moved, the runs where it did drawn as lines.
  func charts() -> [(String, String)] {
    let xs = entries.indices.map { Double($0 + 1) }
    let moved = self.moved
    let valuesByName = Dictionary(series.map { ($0.name, $0.values) }, uniquingKeysWith: { a, _ in a })
    return Set(moved.map(\.name)).sorted().map { name in
      let values = valuesByName[name]!
      let unit = entries.lazy.compactMap { $0.figures[name] }.first?.unit ?? ""
      let marks = moved.filter { $0.name == name }.map { m in
        (
          label: "moved at run \(m.step.index + 1) (×\(String(format: "%.2f", m.step.ratio)))",
          value: values[m.step.index] ?? 0
        )
      }
      let svg = SVG.lines(
        title: name, xs: xs, series: [(unit.isEmpty ? "value" : unit, values)], x: .linear, y: .linear,
        thresholds: marks,
        xLabel: { i in
          let k = Int(i) - 1
          return self.entries.indices.contains(k) ? String(self.entries[k].commit.prefix(7)) : ""
        })
      return ("\(Self.slug(name)).svg", svg)
    }
  }

  static func slug(_ name: String) -> String { String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" }) }

  /// Writes report.md and charts/ into `dir` (new, empty, or an earlier history report).
  package func write(to dir: String) throws {
    try OutputFolder.write(to: dir, command: .history) { tmp in
      try FileManager.default.createDirectory(atPath: tmp + "/charts", withIntermediateDirectories: false)
      for (name, svg) in charts() {
        try Data(svg.utf8).write(to: URL(fileURLWithPath: try OutputFolder.child(tmp + "/charts", name)))
      }
      try Data(markdown().utf8).write(to: URL(fileURLWithPath: tmp + "/report.md"))
    }
  }
}
