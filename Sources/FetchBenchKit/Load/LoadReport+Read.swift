import DatasetStores
import Foundation
import ResultModel
import Vocabulary

/// A load folder read back, to render its report again (`fetchbench report DIR`): the runs
/// from results.json, a rate search's figures from search.json, the run and its machine from
/// run.json, or, in folders written before it, from summary.csv's first row and the machine's
/// memory and OS as the report named them.
extension LoadReport {
  /// What identifies the run: written beside its figures.
  struct RunInfo: Codable {
    var runID: String
    var machine: Machine
    var checksum: String
  }

  /// Whether `dir` holds a load run's files rather than a run's. O(1).
  package static func isLoadFolder(_ dir: String) -> Bool {
    FileManager.default.fileExists(atPath: dir + "/summary.csv")
      && !FileManager.default.fileExists(atPath: dir + "/results.csv")
  }

  /// Renders the load folder `dir` again: in place (a folder FetchBench wrote), or into `out`.
  package static func rerender(_ dir: String, to out: String?) throws {
    let report = try read(dir)
    try report.write(to: out ?? dir)
  }

  static func read(_ dir: String) throws -> LoadReport {
    func data(_ name: String) throws -> Data {
      guard let d = FileManager.default.contents(atPath: "\(dir)/\(name)") else {
        throw LoadError.unreadable(folder: dir, file: name)
      }
      return d
    }
    let results: [LoadResult]
    do {
      results = try JSONDecoder().decode([LoadResult].self, from: try data("results.json"))
    } catch let error as LoadError {
      throw error
    } catch {
      throw LoadError.notLoadResults(folder: dir, detail: "\(error)")
    }
    let search =
      FileManager.default.fileExists(atPath: dir + "/search.json")
      ? try? JSONDecoder().decode(Search.self, from: try data("search.json")) : nil
    let info = try (try? JSONDecoder().decode(RunInfo.self, from: try data("run.json"))) ?? legacyRunInfo(dir)
    return LoadReport(
      runID: info.runID, machine: info.machine, checksum: info.checksum, results: results, steps: search?.steps ?? [],
      maxRates: search?.maxRates ?? [:], rawLimits: search?.rawLimits ?? [], findMaxRate: search != nil)
  }

  /// A folder from before run.json: summary.csv's first row names the run, the commit, the
  /// cores, the toolchain and the dataset; the report's first line the machine's memory and OS.
  static func legacyRunInfo(_ dir: String) throws -> RunInfo {
    let summary = (try? String(contentsOfFile: dir + "/summary.csv", encoding: .utf8)) ?? ""
    let rows = ResultsCSV.records(summary)
    guard rows.count > 1, rows[0].first == "run_id", rows[1].count >= 12 else {
      throw LoadError.notLoadSummary(folder: dir)
    }
    let row = rows[1]
    let report = (try? String(contentsOfFile: dir + "/report.md", encoding: .utf8)) ?? ""
    // `… on 2 cores, 23 GiB, Debian GNU/Linux 12 (bookworm), Swift version …`.
    let line = report.split(separator: "\n").first { $0.hasPrefix("Run `") } ?? ""
    let afterCores = line.components(separatedBy: " cores, ").dropFirst().first ?? ""
    let gib = Int(afterCores.prefix { $0.isNumber }) ?? 0
    let os =
      afterCores.components(separatedBy: " GiB, ").dropFirst().first?.components(separatedBy: ", Swift").first ?? ""
    return RunInfo(
      runID: row[0],
      machine: Machine(
        cores: Int(row[7]) ?? 0, memoryBytes: gib << 30, os: os, swiftVersion: row[8], gitCommit: row[9]),
      checksum: row[10])
  }
}
