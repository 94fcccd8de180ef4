import DatasetStores
import Datasets
import Foundation
import ResultModel

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
        throw HarnessError.invalidArgument("\(earlier) is named twice (\(path)): name each part of a run once")
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
          throw HarnessError.invalidArgument(
            """
            \(other) and \(path) both hold \(Comparison.name(r)): join only the parts of a run that measured \
            different cases
            """
          )
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

  /// The run's figures and settings. O(rows).
  package static func read(_ path: String) throws -> RunResults {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw HarnessError.invalidArgument(
        "\(path): no such run; name a folder that `fetchbench run` wrote, or its results.json")
    }
    let file: String
    if isDirectory.boolValue {
      let json = path + "/results.json"
      file = FileManager.default.fileExists(atPath: json) ? json : path + "/results.csv"
    } else {
      file = path
    }
    guard let data = FileManager.default.contents(atPath: file) else {
      throw HarnessError.invalidArgument("\(file): cannot be read; name a folder that `fetchbench run` wrote")
    }
    if file.hasSuffix(".json") {
      do {
        return RunResults(recorded: try JSONDecoder().decode([ResultRow].self, from: data))
      } catch {
        throw HarnessError.invalidArgument(
          "\(file) is not a results.json that FetchBench wrote (\(GateRun.describe(error, data: data)))")
      }
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw HarnessError.invalidArgument("\(file) is not UTF-8 text, as every results.csv FetchBench writes is")
    }
    return RunResults(recorded: try ResultsCSV.decode(text))
  }
}
