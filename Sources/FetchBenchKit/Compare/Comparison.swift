import Catalog
import DatasetStores
import Foundation
import HarnessSupport
import Reports
import ResultModel
import TextFormatting
import Vocabulary

/// Two runs' figures joined on their full key and judged, one line per figure: exact
/// counters exactly, heap figures within a percentage, times and rates by the processes that
/// measured them (a change counts when Welch's t-test between the two sides' process medians
/// finds it at `alpha` *and* their ratio is beyond `threshold`), with its 95 % interval.
package struct Comparison: Sendable {
  package enum Verdict: String, Sendable, CaseIterable {
    case regressed, improved
    /// A counter that has no better direction differs: the work is not the same.
    case changed
    case unchanged
    case notJudged = "not judged"
    case onlyInBase = "only in base"
    case onlyInHead = "only in head"
  }

  package struct Line: Sendable {
    package var name: String
    package var verdict: Verdict
    /// The two values and how they were judged, in words.
    package var detail: String
    /// A time not judged because a side was measured in too few processes.
    package var tooFewProcesses = false
    /// A time not judged because the machine was busy while a side measured it.
    package var busyMachine = false
    /// A time's test, before the correction over every time of the comparison: its p-value,
    /// whether the change is beyond the threshold and the noise floor, and which way is
    /// better. nil for a figure judged otherwise.
    package var test: TimedTest?

    package init(name: String, verdict: Verdict, detail: String, test: TimedTest? = nil) {
      (self.name, self.verdict, self.detail, self.test) = (name, verdict, detail, test)
    }

    init(name: String, verdict: Verdict, detail: String, tooFewProcesses: Bool) {
      (self.name, self.verdict, self.detail, self.tooFewProcesses) = (name, verdict, detail, tooFewProcesses)
    }
  }

  package struct TimedTest: Sendable {
    package var p: Double
    package var beyond: Bool
    package var better: Bool
    package init(p: Double, beyond: Bool, better: Bool) { (self.p, self.beyond, self.better) = (p, beyond, better) }
  }

  package struct Options: Sendable {
    /// The smallest change of a time or rate that counts, as a fraction of the base.
    package var threshold = 0.10
    /// The change a heap figure may show either way, as a fraction of the base.
    package var heapTolerance = 0.05
    /// The t-test's significance level.
    package var alpha = 0.01
    /// Processes each side needs before its times are judged: one process's repetitions do
    /// not hold the offset between processes, and with two a side the test has one degree
    /// of freedom.
    package var minimumProcesses = 3
    /// Compare runs measured on other machines, toolchains or datasets anyway.
    package var allowDifferences = false
    /// A case during which the rest of the machine used this many cores (or the hypervisor
    /// stole this many) has its times left unjudged, as the gate leaves its ratios.
    package var busyCores = 0.25
    package var stealCores = 0.05
    /// The least change of a count that varies between repetitions that can count.
    package var countFloor = 16.0
    package init() {}

    /// The clock's resolution in a time's unit: a change below it is not measured.
    func clockResolution(_ unit: Metric.Unit) -> Double {
      switch unit {
      case .ms: 0.001
      case .us: 1
      case .s: 1e-6
      default: 0
      }
    }
  }

  package var lines: [Line]
  /// Why the two runs cannot be compared (other datasets, machine or toolchain, or no figure
  /// on both sides); nil if they can.
  package var refusal: String?
  /// What the comparison measures when the two runs' stores come from two models.
  package var modelNote: String?
  /// That the two machines ran the same fixed work at speeds more than `speedTolerance` apart,
  /// so a time's change includes the machine's; nil when they did not, or a run did not record it.
  package var speedNote: String?
  /// The head's cases that failed or did not fit, by `caseName`, with why: a failure of the
  /// head, whatever its other figures say.
  package var headFailures: [String: String] = [:]

  /// 3 when the runs cannot be compared, 2 when a case of the head failed, a figure regressed
  /// or a counter changed, else 0.
  package var exitCode: Int32 {
    if refusal != nil { return 3 }
    return !headFailures.isEmpty || lines.contains { $0.verdict == .regressed || $0.verdict == .changed } ? 2 : 0
  }

  /// The comparison of two runs' rows as their files hold them, settings among them.
  package init(base: [ResultRow], head: [ResultRow], options: Options = Options()) {
    self.init(base: RunResults(recorded: base), head: RunResults(recorded: head), options: options)
  }

  /// O(rows · (samples log samples + bootstrap)).
  package init(base baseRun: RunResults, head headRun: RunResults, options: Options = Options()) {
    let (allBase, allHead) = (baseRun.figures, headRun.figures)
    let base = allBase.filter(\.isOK)
    let head = allHead.filter(\.isOK)
    for r in allHead where !r.isOK {
      headFailures[Self.caseName(r)] =
        r.status == .doesNotFit ? "did not fit in memory" : (r.error.isEmpty ? "failed" : r.error)
    }
    refusal = options.allowDifferences ? nil : Self.differences(baseRun, headRun)
    modelNote = Self.modelChange(baseRun.settings, headRun.settings)
    speedNote = Self.speedChange(allBase.first?.machine.speed, allHead.first?.machine.speed)
    func index(_ rows: [ResultRow]) -> [String: ResultRow] {
      Dictionary(rows.map { (Self.name($0), $0) }, uniquingKeysWith: { a, _ in a })
    }
    let (b, h) = (index(base), index(head))
    let busy = Self.busyCases(base, "base", options).merging(Self.busyCases(head, "head", options)) { $0 + "; " + $1 }
    var lines: [Line] = []
    for name in Set(b.keys).union(h.keys).sorted() {
      switch (b[name], h[name]) {
      case (let x?, let y?):
        guard var line = Self.judge(name, x, y, options) else { continue }
        if let why = busy[Self.caseName(x)], Self.isTimed(x), line.verdict != .notJudged {
          (line.verdict, line.detail, line.busyMachine) = (.notJudged, line.detail + " (busy machine: \(why))", true)
          line.test = nil
          line.detail = line.detail.replacingOccurrences(of: "{holm}", with: "not counted in the correction")
        }
        lines.append(line)
      case (let x?, nil): lines.append(Line(name: name, verdict: .onlyInBase, detail: Self.value(x)))
      case (nil, let y?): lines.append(Line(name: name, verdict: .onlyInHead, detail: Self.value(y)))
      case (nil, nil): break
      }
    }
    Self.correct(&lines, alpha: options.alpha)
    self.lines = lines
    if refusal == nil, headFailures.isEmpty,
      !lines.contains(where: { $0.verdict != .onlyInBase && $0.verdict != .onlyInHead })
    {
      refusal =
        """
        nothing was compared: no figure is in both runs (base \(b.count), head \(h.count)); compare runs of the same \
        cases, at the same --rows
        """
    }
  }

  /// The cases measured while the rest of the machine was busy, by `caseName`, with how busy.
  /// O(rows).
  static func busyCases(_ rows: [ResultRow], _ side: String, _ o: Options) -> [String: String] {
    var out: [String: String] = [:]
    for r in rows where r.metric == .othersCores || r.metric == .stealCores {
      let limit = r.metric == .othersCores ? o.busyCores : o.stealCores
      guard r.value >= limit else { continue }
      let what = String(
        format: "%@ %.2f cores while the %@ measured it",
        r.metric == .othersCores ? "others used" : "the hypervisor stole", r.value, side)
      out[caseName(r)] = out[caseName(r)].map { $0 + "; " + what } ?? what
    }
    return out
  }

  /// The case that measured a figure: its key without the metric (and for the index advice,
  /// whose one case names each figure's index and operation, without those too).
  static func caseName(_ r: ResultRow) -> String {
    let parts = r.key.parts
    return (r.mode == .indexAdvice ? parts.prefix(5) : parts[...]).joined(separator: "/")
  }

  /// A figure judged by its repetitions: a time, a rate, a ratio, or a count that varies.
  static func isTimed(_ r: ResultRow) -> Bool {
    [.ms, .us, .s, .ratio, .perSecond].contains(r.unit) || r.samples.count > 1
  }

  /// A figure's full key: `banks/244292/sqlite/batched/20/none/first_screen/time_ms`.
  static func name(_ r: ResultRow) -> String { (r.key.parts + [r.metric.name]).joined(separator: "/") }

  /// What differs between the runs that makes their figures incomparable. O(rows).
  static func differences(_ baseRun: RunResults, _ headRun: RunResults) -> String? {
    let (base, head) = (baseRun.figures, headRun.figures)
    guard let x = base.first?.machine, let y = head.first?.machine else { return nil }
    if x.swiftVersion != y.swiftVersion { return "the toolchains differ (\(x.swiftVersion) and \(y.swiftVersion))" }
    if x.cores != y.cores || x.os != y.os || x.memoryBytes != y.memoryBytes {
      return
        """
        the machines differ (\(x.cores) cores, \(bytes(Double(x.memoryBytes))), \(x.os) and \(y.cores) cores, \
        \(bytes(Double(y.memoryBytes))), \(y.os))
        """
    }
    func checksums(_ rows: [ResultRow]) -> [String: String] {
      Dictionary(
        rows.filter { !$0.datasetSHA256.isEmpty }.map {
          ("\($0.dataset?.rawValue ?? "")-\($0.rows)", $0.datasetSHA256)
        },
        uniquingKeysWith: { a, _ in a })
    }
    let (cx, cy) = (checksums(base), checksums(head))
    if let d = cx.keys.sorted().first(where: { cy[$0] != nil && cy[$0] != cx[$0] }),
      modelChange(baseRun.settings, headRun.settings) == nil
    {
      return "the datasets differ (\(d): other checksums)"
    }
    // Keys name the dataset and the case, not the list: two lists' figures would meet.
    let (lx, ly) = (baseRun.settings.request, headRun.settings.request)
    if lx != ly {
      return
        """
        the lists differ (\(lx?.description ?? "the dataset's own list") and \
        \(ly?.description ?? "the dataset's own list"))
        """
    }
    return nil
  }

  /// How far apart two machines' times for `MachineSpeed`'s work may be before `speedNote` says so.
  static let speedTolerance = 1.25

  /// "The machines' speeds differ: …" when either of `MachineSpeed`'s two times differs between
  /// the runs by `speedTolerance` or more, either way; nil otherwise or when a run did not record it. O(1).
  static func speedChange(_ base: MachineSpeed?, _ head: MachineSpeed?) -> String? {
    guard let x = base, let y = head, x.sortMs > 0, x.faultMs > 0 else { return nil }
    let (sort, fault) = (y.sortMs / x.sortMs, y.faultMs / x.faultMs)
    guard [sort, fault].contains(where: { $0 >= speedTolerance || $0 <= 1 / speedTolerance }) else { return nil }
    return
      """
      The machines' speeds differ: the base \(x), the head \(y); the head took \(ratio(sort)) and \(ratio(fault)) \
      the base's time for the same work, so a time's change includes the machine's. Counters and heap figures do not.
      """
  }

  private static func ratio(_ r: Double) -> String { String(format: "%.2f×", r) }

  /// "the models differ (…)" when both runs measured stores `generate --model` wrote for
  /// the same entity, rows and seed from two models: the data differs because the model does,
  /// which is what such a comparison measures. nil otherwise. O(rows).
  static func modelChange(_ base: RunSettings, _ head: RunSettings) -> String? {
    guard let x = base.database?.model, let y = head.database?.model,
      x.differsOnlyByModel(from: y)
    else { return nil }
    return
      """
      The models differ (\(x.entity), \(x.rows.grouped) rows generated from model \(x.checksum) and from \
      \(y.checksum)): every figure compares the two models' stores.
      """
  }

  static func value(_ r: ResultRow) -> String {
    "\(ResultRow.number(r.value)) \(r.unit.rawValue)".trimmingCharacters(in: .whitespaces)
  }

  /// One figure on both sides; nil for a figure with no value to judge (text, context).
  static func judge(_ name: String, _ x: ResultRow, _ y: ResultRow, _ o: Options) -> Line? {
    let both = "\(value(x)) → \(value(y))"
    switch x.unit {
    case .none: return nil
    case .count, .rows, .bool:
      if spreadCounts.contains(x.metric) || Set(x.samples).count > 1 || Set(y.samples).count > 1 {
        return varyingCount(name, x, y, o)
      }
      return counter(name, x, y)
    case .bytes where x.metric == .peakRSS:
      return Line(
        name: name, verdict: .notJudged, detail: both + " (the process's peak, which varies with the allocator's state)"
      )
    case .bytes where !x.metric.name.hasPrefix("heap_"):
      return counter(name, x, y)
    case .bytes:
      let change = x.value == 0 ? (y.value == 0 ? 0 : .infinity) : (y.value - x.value) / x.value
      let detail =
        both + String(format: " (%+.1f %%, tolerance ±%.0f %% + 16 KiB)", change * 100, o.heapTolerance * 100)
      // The gate's slack too: jemalloc's thread caches move a small heap by more than 5 %.
      let beyond = abs(y.value - x.value) > x.value * o.heapTolerance + GateFigure.heapSlackBytes
      guard beyond, x.metric.better != .neither else {
        return Line(name: name, verdict: .unchanged, detail: detail)
      }
      return Line(
        name: name, verdict: (change < 0) == (x.metric.better == .lower) ? .improved : .regressed, detail: detail)
    case .ms, .us, .s, .ratio, .perSecond:
      return timed(name, x, y, o)
    }
  }

  /// An exact counter: the same work gives the same count, so any change is the work
  /// changing, either way: a regression when it went the wrong way, otherwise `changed`, with
  /// which way it went (exit 2 both: a baseline that no longer describes the code is updated
  /// on purpose).
  static func counter(_ name: String, _ x: ResultRow, _ y: ResultRow) -> Line {
    let both = "\(value(x)) → \(value(y))"
    if x.value == y.value { return Line(name: name, verdict: .unchanged, detail: "\(value(x)), exactly") }
    let fewer = y.value < x.value
    let way = fewer ? "fewer" : "more"
    switch x.metric.better {
    case .neither: return Line(name: name, verdict: .changed, detail: "\(both) (\(way))")
    case .lower, .higher:
      let better = fewer == (x.metric.better == .lower)
      return better
        ? Line(
          name: name, verdict: .changed, detail: "\(both) (\(way), which is better: update the baseline if intended)")
        : Line(name: name, verdict: .regressed, detail: "\(both) (\(way))")
    }
  }

  /// Holm–Bonferroni over every time tested: the chance that any time of the comparison is
  /// flagged on unchanged code stays under `alpha`, however many figures it holds. A time is
  /// flagged when its adjusted p-value is under `alpha` and its change is beyond the threshold
  /// and the noise floor. O(times log times).
  package static func correct(_ lines: inout [Line], alpha: Double) {
    let tested = lines.indices.filter { lines[$0].test != nil }.sorted { lines[$0].test!.p < lines[$1].test!.p }
    let m = tested.count
    var running = 0.0
    for (k, i) in tested.enumerated() {
      let test = lines[i].test!
      // Adjusted p-values are monotone: each is at least the one before it.
      running = max(running, min(1, Double(m - k) * test.p))
      let flagged = running < alpha && test.beyond
      lines[i].verdict = flagged ? (test.better ? .improved : .regressed) : .unchanged
      lines[i].detail = lines[i].detail.replacingOccurrences(
        of: "{holm}", with: String(format: "%.4f over %d time%@ (Holm)", running, m, m == 1 ? "" : "s"))
    }
  }

  /// A count that varies between repetitions (page faults): changed when every repetition of
  /// one side lies beyond every repetition of the other, by more than the threshold and by at
  /// least `countFloor`; no test of identical values, no exact comparison.
  static func varyingCount(_ name: String, _ x: ResultRow, _ y: ResultRow, _ o: Options) -> Line? {
    guard x.metric.better != .neither else { return nil }
    let both = "\(value(x)) → \(value(y))"
    // A page fault depends on the process's memory (the page cache, huge pages), which one
    // process's repetitions share: judged, as a time is, with processes enough a side.
    if x.metric == .pageFaults && min(x.processes, y.processes) < o.minimumProcesses {
      return Line(
        name: name, verdict: .notJudged,
        detail: both
          + """
           (too few processes: \(x.processes) and \(y.processes); page faults move between processes by more than \
          within one, so they are judged with \(o.minimumProcesses) a side: run --processes \(o.minimumProcesses))
          """,
        tooFewProcesses: true)
    }
    let (a, b) = (x.samples.isEmpty ? [x.value] : x.samples, y.samples.isEmpty ? [y.value] : y.samples)
    let (aLo, aHi, bLo, bHi) = (a.min()!, a.max()!, b.min()!, b.max()!)
    let gap = bLo > aHi ? bLo - aHi : (aLo > bHi ? aLo - bHi : 0)
    let ratio = x.value == 0 ? (y.value == 0 ? 1 : .infinity) : y.value / x.value
    let detail =
      both
        + """
         (each side's repetitions \(ResultRow.number(aLo))–\(ResultRow.number(aHi)) and \
        \(ResultRow.number(bLo))–\(ResultRow.number(bHi)); a count that varies is judged by its spread)
        """
    guard gap >= o.countFloor, abs(ratio - 1) > o.threshold else {
      return Line(name: name, verdict: .unchanged, detail: detail)
    }
    let better = (y.value < x.value) == (x.metric.better == .lower)
    return Line(name: name, verdict: better ? .improved : .regressed, detail: detail)
  }

  /// Counts that move between runs of unchanged code (a statement cache, a thread's first
  /// allocation, the page cache): judged by their spread even when a side has one repetition.
  static let spreadCounts: Set<Metric> = [.allocations, .pageFaults]

  /// A figure measured several times: judged by its repetitions. nil for context figures.
  static func timed(_ name: String, _ x: ResultRow, _ y: ResultRow, _ o: Options) -> Line? {
    let both = "\(value(x)) → \(value(y))"
    guard x.metric.better != .neither else { return nil }
    let (a, b) = (
      ProcessStatistics.processMedians(x.samples, processes: x.processes),
      ProcessStatistics.processMedians(y.samples, processes: y.processes)
    )
    guard a.count >= o.minimumProcesses && b.count >= o.minimumProcesses else {
      return Line(
        name: name, verdict: .notJudged,
        detail: both
          + """
           (too few processes: \(a.count) and \(b.count); a time moves between processes by more than within one, so \
          it is judged with \(o.minimumProcesses) a side: run --processes \(o.minimumProcesses))
          """,
        tooFewProcesses: true
      )
    }
    let (ratio, lo, hi, p) = ProcessStatistics.welch(a, b)
    // Below the noise floor a change is the clock's and the scheduler's: the spread of either
    // side's process medians, and the clock's resolution.
    let floor = max(a.max()! - a.min()!, b.max()! - b.min()!, o.clockResolution(x.unit))
    let change = abs(Summary(b).median - Summary(a).median)
    let detail =
      both
      + String(format: " (×%.3f [%.3f–%.3f], p = %.4f, ", ratio, lo, hi, p) + "{holm}"
      + String(format: ", %d and %d processes", a.count, b.count)
      + (change > floor ? ")" : ", within the noise floor of " + ResultRow.number(floor) + " " + x.unit.rawValue + ")")
    let better = x.metric.better == .lower ? ratio < 1 : ratio > 1
    var line = Line(name: name, verdict: .unchanged, detail: detail)
    line.test = TimedTest(p: p, beyond: abs(ratio - 1) > o.threshold && change > floor, better: better)
    return line
  }
}
