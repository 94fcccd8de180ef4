import Foundation
import ResultModel

/// Compares a run's figures with a baseline.
///
/// Counters and heap figures are judged whatever the processor and load: they do not depend
/// on either. A time ratio is judged only where it is robust to what differs from the
/// baseline's run: on the baseline's processor (or, for a ratio of like work, on any), and
/// on a quiet machine.
package enum GateComparator {
  /// O(baseline + now). `busy`: the names of figures measured while the machine was busy.
  package static func compare(
    baseline: GateBaseline?, now: [GateFigure], machine: MachineKind, datasets: [String: String],
    allowOtherMachine: Bool = false, busy: Set<String> = []
  ) -> GateReport {
    guard let baseline else {
      return GateReport(lines: [], cannotJudge: "no baseline; record one with `fetchbench check --update`")
    }
    var report = GateReport(lines: [], cannotJudge: nil)
    if !baseline.machine.sameKind(as: machine) {
      if allowOtherMachine {
        report.notes.append(
          "baseline from another machine kind (\(baseline.machine)); compared anyway (--allow-other-machine)")
      } else {
        report.cannotJudge =
          """
          the baseline was recorded on another machine kind (\(baseline.machine)); this is \(machine). Record a \
          baseline here with --update, or pass --allow-other-machine
          """
        return report
      }
    }
    for (key, sha) in datasets where baseline.datasets[key] != nil && baseline.datasets[key] != sha {
      report.cannotJudge =
        """
        dataset \(key) has checksum \(sha.prefix(12))…, the baseline's was \(baseline.datasets[key]!.prefix(12))…: \
        another dataset, nothing to compare
        """
      return report
    }
    let sameProcessor = baseline.machine.sameProcessor(as: machine)
    if !sameProcessor {
      let recorded = baseline.machine.processor.map { "was recorded on \($0)" } ?? "does not record its processor"
      report.notes.append(
        """
        the baseline \(recorded); this is \(machine.processor.map { "\($0)" } ?? "an unknown processor"): time \
        ratios of unlike work are not judged (counters and heap figures are)
        """
      )
    }
    let current = Dictionary(now.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    for b in baseline.figures {
      guard let n = current[b.name] else {
        report.lines.append(
          .init(
            name: b.name, kind: b.kind, unit: b.unit, baseline: b.value, now: nil, tolerance: b.tolerance,
            verdict: .missing))
        continue
      }
      var v = verdict(b, n.value)
      if b.kind == .ratio {
        if !sameProcessor && b.likeForLike != true {
          v = .otherProcessor
        } else if busy.contains(b.name) {
          v = .busyMachine
        }
      }
      report.lines.append(
        .init(
          name: b.name, kind: b.kind, unit: b.unit, baseline: b.value, now: n.value, tolerance: b.tolerance, verdict: v)
      )
    }
    let known = Set(baseline.figures.map(\.name))
    for n in now where !known.contains(n.name) {
      report.lines.append(
        .init(
          name: n.name, kind: n.kind, unit: n.unit, baseline: nil, now: n.value, tolerance: n.tolerance,
          verdict: .notInBaseline))
    }
    return report
  }

  static func verdict(_ b: GateFigure, _ now: Double) -> GateReport.Verdict {
    switch b.kind {
    case .counter:
      // Exact both ways: fewer queries or rows than recorded can be a bug that skips work,
      // so it fails until the baseline is recorded again (--update).
      return now == b.value ? .within : .regression
    case .heap:
      let slack =
        b.value * b.tolerance + GateFigure.heapSlackBytes * (b.unit == .bytes ? 1 : 0) + (b.unit == .count ? 16 : 0)
      return now > b.value + slack ? .regression : (now < b.value - slack ? .improvement : .within)
    case .ratio:
      return now > b.value * (1 + b.tolerance)
        ? .regression : (now < b.value * (1 - b.tolerance) ? .improvement : .within)
    }
  }
}
