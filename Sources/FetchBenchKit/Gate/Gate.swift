import Catalog
import DatasetStores
import Datasets
import Foundation

/// One gated figure. Every figure is "lower is better": counts, bytes, and time ratios.
public struct GateFigure: Sendable, Codable, Equatable {
  public enum Kind: String, Sendable, Codable {
    /// Deterministic for a seed: queries, rows materialized, change-set sizes. Tolerance 0.
    case counter
    /// jemalloc figures: live and peak heap, allocations. A few percent.
    case heap
    /// Two times measured in one process with interleaved repetitions; tolerance from spread.
    case ratio
  }

  /// `dataset/store/scenario/what`, unique in a baseline (the baseline file's key; `id`
  /// reads its parts).
  public var name: String

  /// What a figure's name says: which dataset and store, and what was measured.
  public struct ID: Sendable, Hashable, CustomStringConvertible {
    public var dataset: DatasetKind
    public var store: StoreKind
    /// The rest of the name: `perform_fetch/batched/queries`, `diff_k100/moves`.
    public var what: String
    public var description: String { "\(dataset.rawValue)/\(store.rawValue)/\(what)" }
  }

  /// The parts of `name`; nil for a name the gate did not write.
  public var id: ID? {
    let parts = name.split(separator: "/", maxSplits: 2).map(String.init)
    guard parts.count == 3, let dataset = DatasetKind(rawValue: parts[0]), let store = StoreKind(rawValue: parts[1]) else { return nil }
    return ID(dataset: dataset, store: store, what: parts[2])
  }
  public var kind: Kind
  public var value: Double
  public var unit: String
  /// Relative tolerance (0.05 = 5%); for counters 0.
  public var tolerance: Double
  /// Relative spread of the measurement (interquartile range / median of the pair ratios).
  public var spread: Double
  /// Interleaved pairs behind a ratio.
  public var samples: Int

  public init(name: String, kind: Kind, value: Double, unit: String, tolerance: Double, spread: Double = 0, samples: Int = 1) {
    self.name = name
    self.kind = kind
    self.value = value
    self.unit = unit
    self.tolerance = tolerance
    self.spread = spread
    self.samples = samples
  }

  /// Heap figures vary with jemalloc's thread caches by a few hundred bytes; this much
  /// absolute slack keeps small figures from flapping.
  public static let heapSlackBytes = 16_384.0

  /// The tolerance a ratio's median gets from the spread of its n interleaved samples: four
  /// standard errors of the median (≈ 0.93 × IQR / √n for a normal spread), at least 20% (a
  /// shared 2-core machine moves 10–30%; a ratio of interleaved runs moves far less).
  /// `--update` widens it by what it sees between runs (`combine`).
  public static func ratioTolerance(spread: Double, samples: Int) -> Double {
    max(0.20, 4 * 0.93 * spread / Double(max(1, samples)).squareRoot())
  }

  /// A baseline from several runs of the matrix: counters must agree exactly; heap figures
  /// take the median with a tolerance of at least twice their relative range; ratios the
  /// median of the runs' medians with a tolerance of at least twice their relative range.
  /// Throws when a counter differs between runs: a counter that is not deterministic cannot
  /// be gated exactly.
  public static func combine(_ runs: [[GateFigure]]) throws -> [GateFigure] {
    guard let first = runs.first else { return [] }
    var out: [GateFigure] = []
    for f in first {
      let values = runs.compactMap { run in run.first { $0.name == f.name } }
      guard values.count == runs.count else { throw HarnessError.invalidArgument("figure \(f.name) is missing from a run") }
      let sorted = values.map(\.value).sorted()
      let median = sorted[sorted.count / 2]
      let range = median > 0 ? (sorted.last! - sorted.first!) / median : 0
      var g = f
      switch f.kind {
      case .counter:
        guard sorted.first == sorted.last else {
          throw HarnessError.invalidArgument("counter \(f.name) differs between runs (\(sorted)); it cannot be gated exactly")
        }
      case .heap:
        g.value = median
        g.tolerance = max(f.tolerance, 2 * range)
      case .ratio:
        g.value = median
        g.spread = values.map(\.spread).max() ?? f.spread
        // The first run's tolerance carries a figure's own floor (see `GateMatrix.ratio`).
        g.tolerance = max(f.tolerance, ratioTolerance(spread: g.spread, samples: f.samples), 2 * range)
      }
      out.append(g)
    }
    return out
  }
}

/// `results/baselines/ci.json`: what the gate compares with.
public struct GateBaseline: Sendable, Codable, Equatable {
  public var machine: MachineKind
  /// Dataset checksums by `dataset-rows` (SHA-256 of the CSV, as datasets/manifest.json).
  public var datasets: [String: String]
  public var batchSize: Int
  public var rows: Int
  public var figures: [GateFigure]

  public init(machine: MachineKind, datasets: [String: String], batchSize: Int, rows: Int, figures: [GateFigure]) {
    self.machine = machine
    self.datasets = datasets
    self.batchSize = batchSize
    self.rows = rows
    self.figures = figures
  }
}

/// What makes two machines comparable: cores, OS, Swift. Memory is reported, not compared.
public struct MachineKind: Sendable, Codable, Equatable, CustomStringConvertible {
  public var cores: Int
  public var os: String
  public var swiftVersion: String
  public var memoryBytes: Int

  public init(cores: Int, os: String, swiftVersion: String, memoryBytes: Int) {
    self.cores = cores
    self.os = os
    self.swiftVersion = swiftVersion
    self.memoryBytes = memoryBytes
  }

  public static func current() -> MachineKind {
    let m = Machine.current()
    return MachineKind(cores: m.cores, os: m.os, swiftVersion: m.swiftVersion, memoryBytes: m.memoryBytes)
  }

  public func sameKind(as other: MachineKind) -> Bool {
    cores == other.cores && os == other.os && swiftVersion == other.swiftVersion
  }

  public var description: String { "\(cores) cores, \(os), \(swiftVersion)" }
}

/// The comparison of a run with a baseline.
public struct GateReport: Sendable {
  public enum Verdict: String, Sendable {
    case within, regression, improvement, missing, new
  }

  public struct Line: Sendable {
    public var name: String
    public var kind: GateFigure.Kind
    public var unit: String
    public var baseline: Double?
    public var now: Double?
    public var tolerance: Double
    public var verdict: Verdict
  }

  public var lines: [Line]
  /// Why the gate cannot judge (no baseline, other datasets, another machine kind).
  public var cannotJudge: String?
  public var notes: [String] = []

  public var regressions: [Line] { lines.filter { $0.verdict == .regression || $0.verdict == .missing } }
  public var improvements: [Line] { lines.filter { $0.verdict == .improvement } }

  /// 0 within tolerance, 2 regression (a missing figure counts), 3 cannot judge,
  /// 4 improvement when `failOnImprovement`.
  public func exitCode(failOnImprovement: Bool) -> Int32 {
    if cannotJudge != nil { return 3 }
    if !regressions.isEmpty { return 2 }
    if failOnImprovement && !improvements.isEmpty { return 4 }
    return 0
  }

  /// Judges each regressed time ratio again on the lower of its first value and its value in
  /// `again` (a second measurement): it stays a regression only when both are over
  /// tolerance. Notes both values. Other lines are left as they are. O(lines + again).
  public mutating func judgeRemeasured(_ again: [GateFigure]) {
    let second = Dictionary(again.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    for i in lines.indices where lines[i].kind == .ratio && lines[i].verdict == .regression {
      let l = lines[i]
      guard let b = l.baseline, let first = l.now, let then = second[l.name] else { continue }
      let judged = min(first, then)
      let reference = GateFigure(name: l.name, kind: l.kind, value: b, unit: l.unit, tolerance: l.tolerance)
      lines[i].now = judged
      lines[i].verdict = GateComparator.verdict(reference, judged)
      let outcome = lines[i].verdict == .regression ? "confirmed" : "not confirmed (a transient)"
      notes.append(
        String(format: "`%@` was %.3f, re-measured %.3f: regression %@; judged on the lower", l.name, first, then, outcome))
    }
  }

  /// Every gated figure: baseline, now, delta, tolerance, verdict.
  public func markdown() -> String {
    var md = "| figure | kind | baseline | now | delta | tolerance | verdict |\n|---|---|---:|---:|---:|---:|---|\n"
    func fmt(_ v: Double?, _ unit: String) -> String {
      guard let v else { return "—" }
      if unit == "bytes" { return bytes(v) }
      if unit == "ratio" { return String(format: "%.3f", v) }
      return v == v.rounded() ? Int(v).grouped : String(format: "%.3f", v)
    }
    for l in lines {
      let delta: String
      if let b = l.baseline, let n = l.now {
        delta = b == 0 ? (n == 0 ? "0" : "+∞") : String(format: "%+.1f%%", (n - b) / b * 100)
      } else {
        delta = "—"
      }
      let tol = l.kind == .counter ? "exact" : String(format: "±%.0f%%", l.tolerance * 100) + (l.kind == .heap ? " (+16 KiB)" : "")
      let mark = ["within": "ok", "regression": "**REGRESSION**", "improvement": "improvement", "missing": "**MISSING**", "new": "new"][
        l.verdict.rawValue]!
      md += "| `\(l.name)` | \(l.kind.rawValue) | \(fmt(l.baseline, l.unit)) | \(fmt(l.now, l.unit)) | \(delta) | \(tol) | \(mark) |\n"
    }
    return md
  }
}

/// Compares a run's figures with a baseline.
public enum GateComparator {
  public static func compare(
    baseline: GateBaseline?, now: [GateFigure], machine: MachineKind, datasets: [String: String],
    allowOtherMachine: Bool = false
  ) -> GateReport {
    guard let baseline else {
      return GateReport(lines: [], cannotJudge: "no baseline; record one with `fetchbench check --update`")
    }
    var report = GateReport(lines: [], cannotJudge: nil)
    if !baseline.machine.sameKind(as: machine) {
      if allowOtherMachine {
        report.notes.append("baseline from another machine kind (\(baseline.machine)); compared anyway (--allow-other-machine)")
      } else {
        report.cannotJudge =
          "the baseline was recorded on another machine kind (\(baseline.machine)); this is \(machine). Record a baseline here with --update, or pass --allow-other-machine"
        return report
      }
    }
    for (key, sha) in datasets where baseline.datasets[key] != nil && baseline.datasets[key] != sha {
      report.cannotJudge =
        "dataset \(key) has checksum \(sha.prefix(12))…, the baseline's was \(baseline.datasets[key]!.prefix(12))…: another dataset, nothing to compare"
      return report
    }
    let current = Dictionary(now.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    for b in baseline.figures {
      guard let n = current[b.name] else {
        report.lines.append(
          .init(name: b.name, kind: b.kind, unit: b.unit, baseline: b.value, now: nil, tolerance: b.tolerance, verdict: .missing))
        continue
      }
      report.lines.append(
        .init(
          name: b.name, kind: b.kind, unit: b.unit, baseline: b.value, now: n.value, tolerance: b.tolerance, verdict: verdict(b, n.value)))
    }
    let known = Set(baseline.figures.map(\.name))
    for n in now where !known.contains(n.name) {
      report.lines.append(
        .init(name: n.name, kind: n.kind, unit: n.unit, baseline: nil, now: n.value, tolerance: n.tolerance, verdict: .new))
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
      let slack = b.value * b.tolerance + GateFigure.heapSlackBytes * (b.unit == "bytes" ? 1 : 0) + (b.unit == "count" ? 16 : 0)
      return now > b.value + slack ? .regression : (now < b.value - slack ? .improvement : .within)
    case .ratio:
      return now > b.value * (1 + b.tolerance) ? .regression : (now < b.value * (1 - b.tolerance) ? .improvement : .within)
    }
  }
}
