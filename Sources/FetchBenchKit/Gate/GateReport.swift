import Foundation
import Reports
import ResultModel
import TextFormatting

/// The comparison of a run with a baseline: a line per figure, each judged or said not to be.
package struct GateReport: Sendable {
  package enum Verdict: String, Sendable {
    case within, regression, improvement, missing
    /// A time ratio of unlike work against a baseline from another processor.
    case otherProcessor
    /// A time ratio measured while other processes took a share of the cores.
    case busyMachine
    /// A figure the baseline does not have (a store or scenario it did not measure).
    case notInBaseline

    /// Whether the figure was compared with its baseline at all.
    package var judged: Bool {
      switch self {
      case .within, .regression, .improvement, .missing: true
      case .otherProcessor, .busyMachine, .notInBaseline: false
      }
    }

    /// The report's verdict column.
    package var label: String {
      switch self {
      case .within: "ok"
      case .regression: "**REGRESSION**"
      case .improvement: "improvement"
      case .missing: "**MISSING**"
      case .otherProcessor: "not judged: other processor"
      case .busyMachine: "not judged: busy machine"
      case .notInBaseline: "not judged: not in the baseline"
      }
    }
  }

  package struct Line: Sendable {
    package var name: String
    package var kind: GateFigure.Kind
    package var unit: Metric.Unit
    package var baseline: Double?
    package var now: Double?
    package var tolerance: Double
    package var verdict: Verdict
  }

  package var lines: [Line]
  /// Why the gate cannot judge (no baseline, other datasets, another machine kind).
  package var cannotJudge: String?
  package var notes: [String] = []

  package var regressions: [Line] { lines.filter { $0.verdict == .regression || $0.verdict == .missing } }
  package var improvements: [Line] { lines.filter { $0.verdict == .improvement } }
  package var notJudged: [Line] { lines.filter { !$0.verdict.judged } }

  /// 0 within tolerance, 2 regression (a missing figure counts), 3 cannot judge (nothing at all
  /// could be judged), 4 improvement when `failOnImprovement`.
  package func exitCode(failOnImprovement: Bool) -> Int32 {
    if cannotJudge != nil || (!lines.isEmpty && notJudged.count == lines.count) { return 3 }
    if !regressions.isEmpty { return 2 }
    if failOnImprovement && !improvements.isEmpty { return 4 }
    return 0
  }

  /// Judges each regressed time ratio again on the lower of its first value and its value in
  /// `again` (a second measurement, with the names of its figures measured on a busy machine):
  /// it stays a regression only when both are over tolerance and the second was measured on a
  /// quiet machine; over tolerance with a busy second measurement, it is not judged. Notes
  /// both values. Other lines are left as they are. O(lines + again).
  package mutating func judgeRemeasured(_ again: [GateFigure], busy: Set<String> = []) {
    let second = Dictionary(again.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    for i in lines.indices where lines[i].kind == .ratio && lines[i].verdict == .regression {
      let l = lines[i]
      guard let b = l.baseline, let first = l.now, let then = second[l.name] else { continue }
      let judged = min(first, then)
      let reference = GateFigure(name: l.name, kind: l.kind, value: b, unit: l.unit, tolerance: l.tolerance)
      lines[i].now = judged
      lines[i].verdict = GateComparator.verdict(reference, judged)
      if lines[i].verdict == .regression && busy.contains(l.name) { lines[i].verdict = .busyMachine }
      let outcome =
        switch lines[i].verdict {
        case .regression: "regression confirmed"
        case .busyMachine: "not judged (the machine was busy while re-measuring)"
        default: "regression not confirmed (a transient)"
        }
      notes.append(
        String(format: "`%@` was %.3f, re-measured %.3f: %@; judged on the lower", l.name, first, then, outcome))
    }
  }

  /// The closing line: what was judged, what was not and why.
  package func summary(failOnImprovement: Bool) -> String {
    let judged = lines.count - notJudged.count
    var reasons: [String] = []
    for verdict in [Verdict.otherProcessor, .busyMachine, .notInBaseline] {
      let n = lines.filter { $0.verdict == verdict }.count
      if n > 0 { reasons.append("\(n) \(verdict.label.replacingOccurrences(of: "not judged: ", with: ""))") }
    }
    let notJudgedText = reasons.isEmpty ? "" : "; \(notJudged.count) not judged (\(reasons.joined(separator: ", ")))"
    switch exitCode(failOnImprovement: failOnImprovement) {
    case 2:
      return "\(regressions.count) regression(s): " + regressions.map { "`\($0.name)`" }.joined(separator: ", ")
        + notJudgedText
    case 3:
      return "nothing could be judged\(notJudgedText)"
    case 4:
      return "\(improvements.count) figure(s) improved beyond tolerance; update the baseline with --update: "
        + improvements.map { "`\($0.name)`" }.joined(separator: ", ") + notJudgedText
    default:
      return "all \(judged) judged figures within tolerance (\(improvements.count) improved)\(notJudgedText)"
    }
  }

  /// Every figure: baseline, now, delta, tolerance, verdict.
  package func markdown() -> String {
    var md = MarkdownTable(
      .left("figure"), .left("kind"), .right("baseline"), .right("now"), .right("delta"), .right("tolerance"),
      .left("verdict")
    ).header
    func fmt(_ v: Double?, _ unit: Metric.Unit) -> String {
      guard let v else { return "—" }
      if unit == .bytes { return bytes(v) }
      if unit == .ratio { return String(format: "%.3f", v) }
      return v == v.rounded() ? Int(v).grouped : String(format: "%.3f", v)
    }
    for l in lines {
      let delta: String
      if let b = l.baseline, let n = l.now {
        delta = b == 0 ? (n == 0 ? "0" : "+∞") : String(format: "%+.1f%%", (n - b) / b * 100)
      } else {
        delta = "—"
      }
      // The slack beside the percentage, as GateComparator adds it: bytes for heap sizes, a
      // count for allocation counts.
      let slack = l.kind != .heap ? "" : l.unit == .count ? " (+16)" : " (+16 KiB)"
      let tol = l.kind == .counter ? "exact" : String(format: "±%.0f%%", l.tolerance * 100) + slack
      md +=
        """
        | `\(l.name)` | \(l.kind.rawValue) | \(fmt(l.baseline, l.unit)) | \(fmt(l.now, l.unit)) | \(delta) | \(tol) \
        | \(l.verdict.label) |\n
        """
    }
    return md
  }
}
