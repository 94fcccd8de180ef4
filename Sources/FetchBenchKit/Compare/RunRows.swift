import DatasetStores
import Datasets
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

/// The rows of a run that `compare` reads: a run folder's results.json (which keeps every
/// repetition), else its results.csv (medians only: times are then not judged), or either
/// file named directly.
package enum RunRows {
  /// The rows of several runs as one, such as the parts of `run --shard K/N`: every figure,
  /// and each setting once (the first run's). O(rows).
  /// A figure that two of the runs both hold is refused: joined, it would count twice, and
  /// one part's figures could hide another's.
  package static func read(all paths: [String]) throws -> RunResults {
    var named: [String: String] = [:]
    for path in paths {
      if let earlier = named.updateValue(path, forKey: AtomicFile.normalized(path)) {
        throw RunFolderError.namedTwice(earlier, again: path)
      }
    }
    var settings: RunSettings?
    var owner: [FigureID: String] = [:]
    var out: [ResultRow] = []
    for path in paths {
      let part = try read(path)
      settings = settings ?? part.settings
      for r in part.figures {
        if let other = owner.updateValue(path, forKey: FigureID(key: r.key, metric: r.metric)), other != path {
          throw RunFolderError.figureInTwoParts(other, path, figure: Comparison.name(r))
        }
        out.append(r)
      }
    }
    // A user's list reads its sort and cells from its database when the file is still the one
    // measured, as a report rendered in place does.
    settings?.database?.reregister(request: settings?.request)
    return RunResults(settings: settings ?? RunSettings(), figures: out)
  }

  struct FigureID: Hashable {
    var key: ResultKey
    var metric: Metric
  }

  /// The run's figures and settings: a folder's results.json (results.csv where a run
  /// recorded no JSON), or the results file named. Where a folder holds both, they must
  /// hold the same figures: one edited without the other is refused by name, as every
  /// reader (report, compare, export, history) reads a folder the same way. O(rows).
  package static func read(_ path: String) throws -> RunResults {
    switch DatasetFile.entry(at: path) {
    case .missing:
      throw RunFolderError.noSuchRun(path)
    case .file: return try readFile(path)
    case .other: break
    }
    let (json, csv) = (path + "/results.json", path + "/results.csv")
    let hasJSON = DatasetFile.entry(at: json) != .missing
    guard hasJSON || DatasetFile.entry(at: csv) != .missing else {
      throw RunFolderError.noResultsFile(inFolder: path)
    }
    let results = try readFile(hasJSON ? json : csv)
    if hasJSON, DatasetFile.entry(at: csv) != .missing {
      try checkAgree(results, try readFile(csv), json: json, csv: csv)
    }
    return results
  }

  /// One results file: JSON by its name, CSV otherwise. O(rows).
  static func readFile(_ file: String) throws -> RunResults {
    switch DatasetFile.entry(at: file) {
    case .file: break
    case .missing:
      throw RunFolderError.noSuchResultsFile(file)
    case .other(let what): throw RunFolderError.notAResultsFile(file, isA: what)
    }
    guard let data = FileManager.default.contents(atPath: file) else {
      throw RunFolderError.unreadable(file)
    }
    if file.hasSuffix(".json") {
      do {
        return RunResults(recorded: try JSONDecoder().decode([ResultRow].self, from: data))
      } catch {
        throw RunFolderError.notResultsJSON(file, detail: GateRun.describe(error, data: data))
      }
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw RunFolderError.notUTF8(file)
    }
    return RunResults(recorded: try ResultsCSV.decode(text))
  }

  /// Throws unless the two files hold the same figures, each to the digits results.csv keeps.
  /// O(rows).
  static func checkAgree(_ json: RunResults, _ csv: RunResults, json jsonPath: String, csv csvPath: String) throws {
    let (a, b) = (json.recorded, csv.recorded)
    func same(_ x: ResultRow, _ y: ResultRow) -> Bool {
      let (x, y) = (x.rounded, y.rounded)
      return x.key == y.key && x.metric == y.metric && x.status == y.status
        && (x.value, x.min, x.max) == (y.value, y.min, y.max)
    }
    let differing = a.count == b.count ? a.indices.first { !same(a[$0], b[$0]) } : nil
    guard a.count != b.count || differing != nil else { return }
    let what = differing.map { "row \($0 + 1) differs" } ?? "\(a.count.grouped) rows against \(b.count.grouped)"
    throw RunFolderError.filesDisagree(json: jsonPath, csv: csvPath, detail: what)
  }
}
