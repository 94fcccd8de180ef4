import Catalog
import DatasetStores
import Datasets
import Foundation
import HarnessSupport
import ResultModel
import TextFormatting
import Vocabulary

/// One gated figure. Every figure is "lower is better": counts, bytes, and time ratios.
package struct GateFigure: Sendable, Codable, Equatable {
  package enum Kind: String, Sendable, Codable {
    /// Deterministic for a seed: queries, rows materialized, change-set sizes. Tolerance 0.
    case counter
    /// jemalloc figures: live and peak heap, allocations. A few percent.
    case heap
    /// Two times measured in one process with interleaved repetitions; tolerance from spread.
    case ratio
  }

  /// `dataset/store/scenario/what`, unique in a baseline (the baseline file's key; `id`
  /// reads its parts).
  package var name: String

  /// What a figure's name says: which list (a dataset's name, or the name a matrix gives it)
  /// and store, and what was measured.
  package struct ID: Sendable, Hashable, CustomStringConvertible {
    package var list: String
    package var store: StoreKind
    /// The rest of the name: `perform_fetch/batched/queries`, `diff_k100/moves`.
    package var what: String
    package var description: String { "\(list)/\(store.rawValue)/\(what)" }
  }

  /// The parts of `name`; nil for a name the gate did not write.
  package var id: ID? {
    let parts = name.split(separator: "/", maxSplits: 2).map(String.init)
    guard parts.count == 3, let store = StoreKind(rawValue: parts[1]) else { return nil }
    return ID(list: parts[0], store: store, what: parts[2])
  }
  package var kind: Kind
  package var value: Double
  package var unit: Metric.Unit
  /// Relative tolerance (0.05 = 5%); for counters 0.
  package var tolerance: Double
  /// Relative spread of the measurement (interquartile range / median of the pair ratios).
  package var spread: Double
  /// Interleaved pairs behind a ratio.
  package var samples: Int
  /// A ratio of two timings of work of the same kind (both bound by the same resource), which
  /// a processor's caches and clock move alike: judged against a baseline from another
  /// processor. Other ratios are judged only on the baseline's processor. Nil (absent from the
  /// file) for counters, heap figures and ratios of unlike work.
  package var likeForLike: Bool?

  package init(
    name: String, kind: Kind, value: Double, unit: Metric.Unit, tolerance: Double, spread: Double = 0, samples: Int = 1,
    likeForLike: Bool? = nil
  ) {
    self.likeForLike = likeForLike
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
  package static let heapSlackBytes = 16_384.0

  /// The tolerance a ratio's median gets from the spread of its n interleaved samples: four
  /// standard errors of the median (≈ 0.93 × IQR / √n for a normal spread), at least 20% (a
  /// shared 2-core machine moves 10–30%; a ratio of interleaved runs moves far less).
  /// `--update` widens it by what it sees between runs (`combine`).
  package static func ratioTolerance(spread: Double, samples: Int) -> Double {
    max(0.20, 4 * 0.93 * spread / Double(max(1, samples)).squareRoot())
  }

  /// A baseline from several runs of the matrix: counters must agree exactly; heap figures
  /// take the median with a tolerance of at least twice their relative range; ratios the
  /// median of the runs' medians with a tolerance of at least twice their relative range.
  /// Throws when a counter differs between runs: a counter that is not deterministic cannot
  /// be gated exactly.
  package static func combine(_ runs: [[GateFigure]]) throws -> [GateFigure] {
    guard let first = runs.first else { return [] }
    var out: [GateFigure] = []
    for f in first {
      let values = runs.compactMap { run in run.first { $0.name == f.name } }
      guard values.count == runs.count else {
        throw GateError.figureMissing(f.name)
      }
      let sorted = values.map(\.value).sorted()
      let median = sorted[sorted.count / 2]
      let range = median > 0 ? (sorted.last! - sorted.first!) / median : 0
      var g = f
      switch f.kind {
      case .counter:
        guard sorted.first == sorted.last else {
          throw GateError.counterDiffers(f.name, values: sorted)
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
package struct GateBaseline: Sendable, Codable, Equatable {
  package var machine: MachineKind
  /// Dataset checksums by `dataset-rows` (SHA-256 of the CSV, as datasets/manifest.json).
  package var datasets: [String: String]
  package var batchSize: Int
  /// The rows of every list, in a baseline recorded before matrices were (nil since).
  package var rows: Int?
  /// The lists measured, each as `GateList.recordedForm` with its rows; nil in a baseline
  /// recorded before matrices were.
  package var lists: [GateList]?
  package var figures: [GateFigure]

  package init(
    machine: MachineKind, datasets: [String: String], batchSize: Int, lists: [GateList], figures: [GateFigure]
  ) {
    self.machine = machine
    self.datasets = datasets
    self.batchSize = batchSize
    self.lists = lists
    self.figures = figures
  }

  /// Why this baseline's figures cannot be compared with a run of `lists`, or nil: a list
  /// measured differently (other rows, sort, strategies…) or gone from the matrix is another
  /// measurement, not a regression. A list the baseline lacks is not a reason: its figures
  /// read "not in the baseline". O(lists²).
  package func differs(from lists: [GateList.Resolved], matrix: GateLists) -> String? {
    guard let recorded = self.lists else {
      let rows = Set(lists.map(\.rows))
      guard let old = self.rows, rows != [old] else { return nil }
      return
        """
        the baseline was recorded with --rows \(old.grouped), this run used \
        \(rows.sorted().map(\.grouped).joined(separator: ", "))
        """
    }
    for r in recorded {
      guard matrix.lists.contains(where: { $0.figureName == r.figureName }) else {
        return
          "the baseline has list '\(r.figureName)', which the matrix does not; record the baseline again with --update"
      }
      // Left out by --store.
      guard let now = lists.first(where: { $0.list.figureName == r.figureName }) else { continue }
      if now.list.recordedForm != r {
        return
          """
          list '\(r.figureName)' was recorded as \(r.summary), this run measures \(now.list.recordedForm.summary); \
          record the baseline again with --update
          """
      }
    }
    return nil
  }
}

/// What makes two machines comparable: cores, OS, Swift. Memory is reported, not compared;
/// the processor decides only whether time ratios of unlike work are judged.
package struct MachineKind: Sendable, Codable, Equatable, CustomStringConvertible {
  package var cores: Int
  package var os: String
  package var swiftVersion: String
  package var memoryBytes: Int
  /// Nil in a baseline recorded before processors were recorded: another processor.
  package var processor: Processor?

  package init(cores: Int, os: String, swiftVersion: String, memoryBytes: Int, processor: Processor? = nil) {
    self.cores = cores
    self.os = os
    self.swiftVersion = swiftVersion
    self.memoryBytes = memoryBytes
    self.processor = processor
  }

  package static func current() -> MachineKind {
    let m = Machine.current(measuringSpeed: false)
    return MachineKind(
      cores: m.cores, os: m.os, swiftVersion: m.swiftVersion, memoryBytes: m.memoryBytes, processor: .current())
  }

  package func sameKind(as other: MachineKind) -> Bool {
    cores == other.cores && os == other.os && swiftVersion == other.swiftVersion
  }

  /// Both processors known and the same model with the same caches.
  package func sameProcessor(as other: MachineKind) -> Bool {
    processor != nil && processor == other.processor
  }

  package var description: String { "\(cores) cores, \(os), \(swiftVersion)" }
}
