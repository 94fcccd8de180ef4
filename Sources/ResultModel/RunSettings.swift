import Foundation
import HarnessSupport
import Vocabulary

/// What a run held its figures to and what it measured besides its cases: the budgets, the
/// user's list, the user's database, the allocator's configuration. Typed in the process;
/// results.csv and results.json record it as `settings` rows, written by `rows(runID:machine:)`
/// and read by `init(recorded:)` alone.
package struct RunSettings: Sendable, Equatable {
  /// One frame at 60 Hz, unless the run says otherwise (`--frame-budget-ms`).
  package static let defaultFrameMs = 1000.0 / 60
  /// The live heap a list may hold unless the run says otherwise (`--memory-budget`).
  package static let defaultMemoryBudget = 100.0 * 1024 * 1024

  /// The budgets as the run set them; nil for a run that measured no list, or recorded no
  /// such budget, which holds to the default.
  package var recordedMemoryBudget: Double?
  package var recordedFrameMs: Double?
  /// The live heap an open list may hold, in bytes.
  package var memoryBudget: Double { recordedMemoryBudget ?? Self.defaultMemoryBudget }
  /// The time opening a list must stay within to count as one frame.
  package var frameMs: Double { recordedFrameMs ?? Self.defaultFrameMs }
  /// The user's list (`--sort`, `--section`, `--where`); nil for the datasets' own.
  package var request: ListSpec?
  /// The list's text as a run recorded it before requests were recorded whole.
  package var requestText: String?
  /// The user's database the run measured, and its size in bytes.
  package var database: DatabaseSetting?
  package var databaseBytes: Double = 0
  /// The database's text as a run recorded it before it was recorded as JSON.
  package var databaseText: String?
  /// jemalloc's configuration from the environment (`MALLOC_CONF`); nil for its defaults.
  package var allocatorConfiguration: String?
  /// The run and machine whose settings rows these were read from: written again as they were.
  package var recordedBy: Stamp?

  /// A settings row's run and machine.
  package struct Stamp: Sendable, Equatable {
    package var runID: String
    package var machine: Machine
  }

  package init() {}

  /// The settings that `rows` record; the defaults for what they do not. O(rows).
  package init(recorded rows: [ResultRow]) {
    for r in rows where r.mode == .settings {
      recordedBy = recordedBy ?? Stamp(runID: r.runID, machine: r.machine)
      switch r.metric {
      case .memoryBudget: recordedMemoryBudget = r.value
      case .frameBudget: recordedFrameMs = r.value
      case .customRequest:
        request = ListSpec(recorded: r.detail)
        if request == nil { requestText = r.detail }
      case .database:
        (database, databaseBytes) = (DatabaseSetting(recorded: r.detail), r.value)
        if database == nil { databaseText = r.detail }
        database?.nameRecordedKind()
      case .allocatorConfiguration: allocatorConfiguration = r.detail
      default: continue
      }
    }
  }

  /// The `settings` rows that record these settings, stamped with the run and machine they
  /// were read from, else with `runID` and `machine`. O(1).
  package func rows(runID: String, machine: Machine) -> [ResultRow] {
    let stamp = recordedBy ?? Stamp(runID: runID, machine: machine)
    func row(_ metric: Metric, _ value: Double, detail: String = "") -> ResultRow {
      ResultRow(
        runID: stamp.runID, key: .settings, metric: metric, summary: Summary([value]), machine: stamp.machine,
        detail: detail)
    }
    var rows: [ResultRow] = []
    if let recordedMemoryBudget { rows.append(row(.memoryBudget, recordedMemoryBudget)) }
    if let recordedFrameMs { rows.append(row(.frameBudget, recordedFrameMs)) }
    if let text = request?.recorded ?? requestText { rows.append(row(.customRequest, 0, detail: text)) }
    if let text = database?.recorded ?? databaseText { rows.append(row(.database, databaseBytes, detail: text)) }
    if let allocatorConfiguration { rows.append(row(.allocatorConfiguration, 0, detail: allocatorConfiguration)) }
    return rows
  }

  /// The user's list as the report names it: its parts, or the text a run recorded.
  package var requestDescription: String? { request?.description ?? requestText }
}

/// A run's figures with its settings: what a run writes and what is read back from its files.
package struct RunResults: Sendable {
  package var settings: RunSettings
  /// Every figure, none of them a setting.
  package var figures: [ResultRow]

  package init(settings: RunSettings = RunSettings(), figures: [ResultRow]) {
    self.settings = settings
    self.figures = figures.filter { $0.mode != .settings }
  }

  /// The figures and settings of rows as results.csv and results.json hold them. O(rows).
  package init(recorded rows: [ResultRow]) {
    self.init(settings: RunSettings(recorded: rows), figures: rows)
  }

  /// The rows the run's files hold: the settings' first, stamped as the first figure is.
  /// O(rows).
  package var recorded: [ResultRow] {
    guard let first = figures.first else { return [] }
    return settings.rows(runID: first.runID, machine: first.machine) + figures
  }
}
