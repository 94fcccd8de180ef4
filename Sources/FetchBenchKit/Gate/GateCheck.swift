import Datasets
import Foundation
import TextFormatting
import Vocabulary

/// `fetchbench check`: records a baseline, or measures the matrix and judges it against the
/// baseline. Everything that can refuse to judge (a broken baseline, other rows, another
/// machine kind, other datasets) is judged before minutes of measuring.
package enum GateCheck {
  /// Runs the gate; `print` receives the report's lines. Returns the exit code: 0 within
  /// tolerance, 2 a regression, 3 cannot judge, 4 an improvement with `failOnImprovement`.
  package static func run(_ options: GateOptions, log: @escaping @Sendable (String) -> Void, print: (String) -> Void)
    throws -> Int32
  {
    let machine = MachineKind.current()
    // The lists first: a list that cannot be measured is the matrix's error (1), whatever
    // the baseline.
    let lists = try options.resolvedLists()
    if options.update {
      // Held while measuring: a second `--update` of the same baseline is refused at once.
      let claim = try OutputLock.claim(options.baselinePath)
      defer { claim.release() }
      try GateRun.checkBaselineTarget(options.baselinePath)
      try record(options, lists, machine: machine, log: log, print: print)
      return 0
    }
    guard let recorded = baseline(options, print: print) else { return 3 }
    if let why = try refusal(recorded, lists, options, machine: machine) {
      print("cannot judge: \(why)")
      return 3
    }
    let measured = try GateRun.measure(options, lists, log: log)
    var report = judge(recorded, measured, lists, options, machine: machine)
    if let why = report.cannotJudge {
      print("cannot judge: \(why)")
      return 3
    }
    report.notes += measured.busyCases.map { "busy machine during \($0): its time ratios are not judged" }
    try GateRun.confirmRatioRegressions(&report, measured, options, lists, log: log)
    print(
      """
      # fetchbench check: \
      \(lists.map { "\($0.list.figureName) (\($0.rows.grouped) rows)" }.joined(separator: ", ")); batch size \
      \(options.batchSize) (baseline: \(recorded.batchSize)), \(options.repetitions) interleaved repetitions\n
      """
    )
    for n in report.notes { print("note: \(n)\n") }
    print(report.markdown())
    let code = report.exitCode(failOnImprovement: options.failOnImprovement)
    print("\n" + report.summary(failOnImprovement: options.failOnImprovement))
    return code
  }

  /// The baseline, read before minutes of measuring; nil, having printed why, when it is
  /// missing or broken.
  static func baseline(_ options: GateOptions, print: (String) -> Void) -> GateBaseline? {
    let loaded: GateBaseline?
    do {
      loaded = try GateRun.loadBaseline(options.baselinePath)
    } catch {
      print("cannot judge: \(error)")
      return nil
    }
    guard let loaded else {
      // The command that records it, with the options this one was given.
      let matrix = options.matrixPath == GateOptions.projectMatrixPath ? "" : " --matrix \(options.matrixPath)"
      let baseline =
        options.baselinePath == GateOptions.projectBaselinePath ? "" : " --baseline \(options.baselinePath)"
      print(
        """
        cannot judge: no baseline at \(options.baselinePath); record one with `fetchbench check \
        --update\(matrix)\(baseline)`
        """
      )
      return nil
    }
    return loaded
  }

  /// Why the baseline cannot judge these lists before anything is measured: other lists,
  /// machine kind or data (the checksums read from the files, so an edited dataset is another
  /// dataset); nil when it can.
  static func refusal(
    _ recorded: GateBaseline, _ lists: [GateList.Resolved], _ options: GateOptions, machine: MachineKind
  ) throws -> String? {
    if let why = recorded.differs(from: lists, matrix: options.matrix) { return why }
    return GateComparator.compare(
      baseline: recorded, now: [], machine: machine, datasets: try GateRun.datasetChecksums(lists, options),
      allowOtherMachine: options.allowOtherMachine
    ).cannotJudge
  }

  /// The measured figures judged against the baseline's; figures of stores left out with
  /// `--store` are not judged (they are not regressions), and a note says how many.
  static func judge(
    _ recorded: GateBaseline, _ measured: GateMeasurement, _ lists: [GateList.Resolved], _ options: GateOptions,
    machine: MachineKind
  ) -> GateReport {
    var judged = recorded
    let measuredStores = Set(lists.flatMap { l in l.list.measuredStores.map { "\(l.list.figureName)/\($0.rawValue)" } })
    judged.figures.removeAll { f in f.id.map { !measuredStores.contains("\($0.list)/\($0.store.rawValue)") } ?? false }
    var report = GateComparator.compare(
      baseline: judged, now: measured.figures, machine: machine, datasets: measured.datasets,
      allowOtherMachine: options.allowOtherMachine, busy: measured.busyFigures)
    if judged.figures.count < recorded.figures.count {
      report.notes.append(
        """
        \(recorded.figures.count - judged.figures.count) baseline figures of stores not measured (--store) were not \
        judged
        """
      )
    }
    return report
  }

  /// `--update`: the baseline from `updateRuns` runs of the matrix, so that tolerances reflect
  /// run-to-run spread.
  static func record(
    _ options: GateOptions, _ lists: [GateList.Resolved], machine: MachineKind,
    log: @escaping @Sendable (String) -> Void,
    print: (String) -> Void
  ) throws {
    var runs: [[GateFigure]] = []
    var checksums: [String: String] = [:]
    var busy: [String] = []
    for r in 1...options.updateRuns {
      log("baseline run \(r) of \(options.updateRuns)")
      let m = try GateRun.measure(options, lists, log: log)
      runs.append(m.figures)
      checksums = m.datasets
      busy += m.busyCases
    }
    let b = GateBaseline(
      machine: machine, datasets: checksums, batchSize: options.batchSize, lists: lists.map(\.list.recordedForm),
      figures: try GateFigure.combine(runs))
    try GateRun.writeBaseline(b, to: options.baselinePath)
    print(
      """
      wrote \(options.baselinePath): \(b.figures.count) figures from \(options.updateRuns) run(s) on \(machine), \
      \(machine.processor.map { "\($0)" } ?? "unknown processor")
      """
    )
    // Recorded under load, a ratio's value and tolerance carry that load: say so.
    for busyCase in busy { print("note: busy machine during \(busyCase); its time ratios were recorded under load") }
  }
}
