import DatasetStores
import Datasets
import Foundation
import ResultModel
import Vocabulary

/// The cases of a run that have finished, kept on disk as each one ends, so that a run stopped
/// part way (an interrupt, a closed session, `--max-minutes`) continues where it stopped
/// (`--resume`) instead of losing hours of measuring.
///
/// `OUT.unfinished/` holds `plan.json` (the run's ID, commit and every case, in order) and one
/// `case-K.csv` per finished case, with its rows' repetitions in `case-K.samples.json`, each
/// written whole under a temporary name (the repetitions first). A case that
/// failed is not kept: a resumed run tries it again. The folder is removed once the run's
/// results are written.
struct RunJournal {
  struct Plan: Codable, Equatable {
    var runID: String
    var commit: String
    var cases: [CaseSpec]
  }

  let directory: String
  let plan: Plan

  static func directory(for out: String) -> String { AtomicFile.normalized(out) + ".unfinished" }

  /// The journal of a new run into `out`; an unfinished run there is never overwritten.
  static func start(out: String, plan: Plan) throws -> RunJournal {
    let dir = directory(for: out)
    if FileManager.default.fileExists(atPath: dir) {
      throw ResumeError.unfinishedRunThere(journal: dir, out: out)
    }
    return RunJournal(directory: dir, plan: plan)
  }

  /// Opens the unfinished run into `out`, which must plan the same cases at the same commit:
  /// results of two programs or two plans are never mixed in one run.
  static func resume(out: String, plan: Plan) throws -> RunJournal {
    let dir = directory(for: out)
    guard let data = FileManager.default.contents(atPath: dir + "/plan.json") else {
      throw ResumeError.nothingToResume(out: out, journal: dir)
    }
    guard let kept = try? JSONDecoder().decode(Plan.self, from: data) else {
      throw ResumeError.unreadablePlan(journal: dir)
    }
    guard kept.commit == plan.commit else {
      throw ResumeError.otherCommit(journal: dir, kept: kept.commit, built: plan.commit)
    }
    guard kept.cases == plan.cases else {
      let first = zip(kept.cases, plan.cases).first { $0 != $1 }
      let why =
        first.map { "case \($0.label) there is \($1.label) here" }
        ?? "\(kept.cases.count) cases there, \(plan.cases.count) here"
      throw ResumeError.otherOptions(journal: dir, why: why)
    }
    return RunJournal(directory: dir, plan: kept)
  }

  /// The newest unfinished run under `folder` (`results/runs`), for `--resume` without `--out`.
  static func newest(in folder: String) -> String? {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    // Run IDs are UTC timestamps: the greatest name is the newest.
    return names.filter { $0.hasSuffix(".unfinished") }.max().map { "\(folder)/\($0.dropLast(".unfinished".count))" }
  }

  /// The rows of every finished case, by case index. O(rows kept).
  func finished() throws -> [Int: [ResultRow]] {
    var out: [Int: [ResultRow]] = [:]
    for k in plan.cases.indices {
      guard let text = try? String(contentsOfFile: path(k), encoding: .utf8) else { continue }
      do {
        var rows = try ResultsCSV.decode(text)
        // Each row's repetitions and their processes, kept beside the CSV (a case journaled
        // without them has none).
        if let data = FileManager.default.contents(atPath: samplesPath(k)),
          let kept = try? JSONDecoder().decode([KeptSamples].self, from: data), kept.count == rows.count
        {
          for i in rows.indices { (rows[i].samples, rows[i].processes) = (kept[i].samples, kept[i].processes) }
        }
        out[k] = rows
      } catch {
        throw ResumeError.unreadableCase(file: path(k), detail: "\(error)")
      }
    }
    return out
  }

  /// Keeps case `k`'s rows; the file appears whole or not at all. The folder is made with
  /// the first case, so a run refused before any case leaves nothing behind.
  func record(_ k: Int, _ rows: [ResultRow]) throws {
    if !FileManager.default.fileExists(atPath: directory + "/plan.json") {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      do {
        try AtomicFile.write(try Self.encoder.encode(plan), to: directory + "/plan.json")
      } catch {
        remove()  // a journal without its plan could not be resumed
        throw error
      }
    }
    do {
      try AtomicFile.write(
        try JSONEncoder().encode(rows.map { KeptSamples(samples: $0.samples, processes: $0.processes) }),
        to: samplesPath(k))
      try AtomicFile.write(Data(ResultsCSV.encode(rows).utf8), to: path(k))
    } catch DatasetError.cannotWrite(let path, let reason) {
      throw DatasetError.cannotWrite(
        path: path,
        reason: "\(reason); the cases finished so far are kept in \(directory): make room, then run again with --resume"
      )
    }
  }

  func remove() { try? FileManager.default.removeItem(atPath: directory) }

  /// A row's repetitions, beside the CSV that holds only their summary.
  struct KeptSamples: Codable {
    var samples: [Double]
    var processes: Int
  }

  private func path(_ k: Int) -> String { String(format: "%@/case-%05d.csv", directory, k) }
  private func samplesPath(_ k: Int) -> String { String(format: "%@/case-%05d.samples.json", directory, k) }

  private static let encoder: JSONEncoder = {
    let e = JSONEncoder()
    e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return e
  }()
}
