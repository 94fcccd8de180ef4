import Catalog
import DatasetStores
import FetchedResults
import Reports
import ResultModel
import Vocabulary

/// What `fetchbench run` measures.
package struct RunOptions: Sendable {
  package var datasets: [DatasetKind] = DatasetKind.allCases
  package var stores: [StoreKind] = [.memory, .sqlite]
  package var modes: [FetchMode] = FetchMode.allCases
  package var batchSizes: [Int] = [20]
  /// More batch sizes batched faulting is measured at in the scenarios that decide the
  /// recommendation's batch size (`Scenario.decidesBatchSize`), beside `batchSizes`: the answer
  /// then names a size it measured rather than the one it was given. `run` without
  /// `--batch-size` sweeps `defaultBatchSweep`.
  package var batchSweep: [Int] = []
  package static let defaultBatchSweep = [10, 20, 50, 100, 200]
  package var rows: [Int] = [DatasetKind.defaultRows]
  package var scenarios: [Scenario] = Scenario.allCases
  /// Also advise an index on the SQL stores: every candidate index of each list, measured
  /// against none in one process (`IndexAdvice`).
  package var withIndex = true
  package var repetitions = 5
  package var warmups = 1
  /// Child processes per case, each measuring `repetitions` after its warm-ups: `compare`
  /// judges times only with 3 or more a side.
  package var processes = 1
  package var seed: UInt64 = 1
  package var datasetsDirectory = "datasets"
  /// nil: results/runs/<UTC timestamp>/.
  package var outDirectory: String?
  package var resultsDirectory = "results"
  /// What the cases measure: the lists' scenarios (`run`), or keeping a list in sync
  /// (`diff`).
  package var workload = Workload.lists
  /// The resident memory a case's process may reach before it is stopped and recorded as not
  /// fitting; nil: `ChildProcess.defaultMemoryCeiling()`, read before each case.
  package var memoryCeiling: Int?
  /// The open list's live heap the report's recommendation and scaling lines hold to; recorded
  /// in the results as a `settings` row.
  package var memoryBudget = RunSettings.defaultMemoryBudget
  /// The time a list may take to open and count as within one frame.
  package var frameBudgetMs = RunSettings.defaultFrameMs
  /// A list of the user's own instead of each dataset's (`--sort`, `--section`, `--where`):
  /// measured without the sectioned scenario (the list has its sections, or none) and the
  /// floors (the dataset list's statements).
  package var request: ListSpec?
  /// The part of the cases this run measures (`--shard K/N`); nil: all of them.
  package var shard: Shard?
  /// Continue the unfinished run into `outDirectory` (nil: the newest under results/runs):
  /// its finished cases are kept, the others run.
  package var resume = false
  /// A list over the user's own database (`--db`) in place of the generated datasets: its
  /// kind is `datasets`' only one, its row count `rows`' only one.
  package var userList: UserList? = nil
  /// Also measure each larger size's performFetch growth from the smallest size in the larger
  /// case's own process (`CaseSpec.growthFrom`). Off by default: the smaller store then lives
  /// beside the case, so those cases' peak RSS includes it (the report leaves them out of its
  /// memory projection).
  package var growthInProcess = false
  /// Start no case after this many minutes from the run's start (`CaseDeadline`): the run
  /// stops with its finished cases kept for `resume` (a long sweep split across sittings).
  /// nil: no limit.
  package var maxMinutes: Double?
  /// How long one case process may run before it is stopped and the case recorded as failed:
  /// a predicate or sort that never ends must not hold the run (and the machine) forever.
  package var caseMinutes = RunOptions.defaultCaseMinutes
  package static let defaultCaseMinutes = 30.0

  package init() {}

  /// Whose output the run's folder is.
  package var command: OutputFolder.Command {
    switch workload {
    case .lists: .run
    case .changes: .diff
    }
  }

  /// Where a run without `--out` is copied when it ends.
  package var latestDirectory: String { "\(resultsDirectory)/latest" }

  /// `fetchbench diff`: banks, memory and SQLite, k = 1…10,000 and the 10% edit.
  package static func diff() -> RunOptions {
    var o = RunOptions()
    o.datasets = [.banks]
    o.modes = []
    o.withIndex = false
    o.workload = .changes(DiffOptions())
    return o
  }

  /// `--quick`: banks only, no index variant, the four scenarios that answer the main question,
  /// 3 repetitions: the first answer within a minute, the last within three, on this
  /// project's machine kind.
  package mutating func makeQuick() {
    datasets = [.banks]
    withIndex = false
    repetitions = 3
    scenarios = [.performFetch, .firstScreen, .scrollThrough, .sectioned]
    // The first answer within minutes: at the one batch size.
    batchSweep = []
  }

  /// The batch sizes `mode` is measured at in `scenario`: none for a full fetch, `batchSizes`
  /// and, for batched faulting where the scenario decides the batch size, `batchSweep`'s
  /// others in ascending order. O(sizes²).
  func batchSizes(_ mode: FetchMode, _ scenario: Scenario) -> [Int] {
    guard mode != .full else { return [0] }
    guard mode == .batched && scenario.decidesBatchSize else { return batchSizes }
    return batchSizes + batchSweep.filter { !batchSizes.contains($0) }.sorted()
  }

  /// Every case, in the order they run; with a shard, its part of them.
  package func cases() -> [CaseSpec] {
    let all: [CaseSpec]
    switch workload {
    case .lists: all = listCases()
    case .changes(let diff): all = diffCases(diff)
    }
    return shard.map { $0.select(all) } ?? all
  }

  /// The diff benchmark's cases: every transaction shape on every store and row count.
  func diffCases(_ diff: DiffOptions) -> [CaseSpec] {
    var out: [CaseSpec] = []
    for rows in self.rows {
      for store in stores {
        for sections in diff.sections {
          for k in diff.ks.map(Optional.some) + (diff.edit ? [nil] : []) {
            var spec = CaseSpec(
              dataset: datasets.first ?? .banks, rows: rows, seed: seed, datasetsDirectory: datasetsDirectory,
              store: store,
              work: .diff(k: k, sections: sections), batchSize: batchSizes.first ?? 20, index: nil,
              repetitions: repetitions,
              warmups: warmups)
            spec.emitChanges = diff.emitChanges
            (spec.userList, spec.request) = (userList, request)
            out.append(spec)
          }
        }
      }
    }
    return out
  }

  /// The lists' cases: every scenario a mode runs, at every batch size, then the floors and
  /// the index advice of the SQL stores.
  func listCases() -> [CaseSpec] {
    var out: [CaseSpec] = []
    for rows in self.rows {
      for kind in datasets {
        for store in stores {
          func spec(_ work: CaseWork, _ batch: Int) -> CaseSpec {
            var spec = CaseSpec(
              dataset: kind, rows: rows, seed: seed, datasetsDirectory: datasetsDirectory, store: store, work: work,
              batchSize: batch, index: nil, repetitions: repetitions, warmups: warmups)
            spec.request = request
            spec.userList = userList
            return spec
          }
          // The cached sections need a store that reports its data version: SQLite's file.
          // The cells scenarios only where a cell reads through a relationship.
          let cells = request?.cells ?? kind.definition.cellKeyPaths
          for scenario in scenarios
          where (request?.changesList != true || !scenario.isSectioned)
            && (store.isSQLite || scenario != .sectionedCached)
            && (!scenario.readsCells || !Cells.relationships(of: cells).isEmpty)
          {
            // Core Data fetches whole or in batches; pages are not its strategies.
            for mode in modes where scenario.applies(to: mode) && (store != .sqliteCoreData || mode.paging == nil) {
              for batch in batchSizes(mode, scenario) {
                var s = spec(.scenario(scenario, mode), batch)
                s.growthFrom = growthFrom(rows: rows, store: store, scenario: scenario, mode: mode)
                out.append(s)
              }
            }
          }
          // The floors time the tuned statements: Core Data's plan is held to the same ones.
          // They bind no arguments: not for a predicate, nor for a sub-entity's rows.
          if (store == .sqlite || store == .postgres) && request?.changesList != true && !Self.filtersRows(kind) {
            for batch in batchSizes { out.append(spec(.floor, batch)) }
          }
          if withIndex && (store == .sqlite || store == .postgres) {
            out.append(spec(.indexAdvice, batchSizes.first ?? 20))
          }
        }
      }
    }
    return out
  }
}

extension RunOptions {
  /// Whether `kind`'s list reads some of its table's rows only (a Core Data sub-entity's).
  static func filtersRows(_ kind: DatasetKind) -> Bool {
    let request = DatasetModels.defaultRequest(for: kind, batchSize: 0)
    return (try? DatasetModels.model(for: kind).entity(request.entityName).rowFilter) != nil
  }

  /// The row count a case's growth is measured from in its own process, with
  /// `growthInProcess`: the run's smallest, for performFetch, full and batched, at every
  /// larger size, on the stores that hold two sizes of a dataset at once (not PostgreSQL,
  /// whose tables hold one). O(row counts).
  func growthFrom(rows: Int, store: StoreKind, scenario: Scenario, mode: FetchMode) -> Int? {
    guard growthInProcess, let smallest = self.rows.min(), rows > smallest, store != .postgres,
      scenario == .performFetch,
      mode == .full || mode == .batched
    else { return nil }
    return smallest
  }
}

/// What a run's cases measure.
package enum Workload: Sendable {
  /// Reading the lists: the scenarios, floors and index advice (`fetchbench run`).
  case lists
  /// Keeping a list in sync (`fetchbench diff`).
  case changes(DiffOptions)

  /// Whether the cases read lists (and so need their datasets loaded and indexed variants).
  package var readsLists: Bool {
    if case .lists = self { true } else { false }
  }
}

/// The diff benchmark's transactions.
package struct DiffOptions: Sendable {
  /// Transaction sizes: k objects changed.
  package var ks = [1, 10, 100, 1_000, 10_000]
  /// Whether to add the 10% edit.
  package var edit = true
  /// The variants: false, one list; true, sections by state.
  package var sections = [false, true]
  /// The one case's change sets are written here (`--emit-changes`).
  package var emitChanges: String?

  package init() {}
}

extension RunOptions {
  /// `--schema coredata`: the dataset's list over its file in Core Data's schema, written
  /// from the dataset's own file when missing, measured as a list of a database. O(rows)
  /// when it writes the file, O(1) otherwise.
  package mutating func useCoreDataFile(_ kind: DatasetKind, rows: Int) throws {
    let location = DatasetLocation(kind: kind, rows: rows, seed: seed, directory: datasetsDirectory)
    try CoreDataFile.generateIfMissing(location)
    let list = CoreDataFile.list(location)
    datasets = [try list.register(sort: nil, section: nil).kind]
    userList = list
  }
}
