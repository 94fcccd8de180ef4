import ResultModel
import Vocabulary

/// What keeps a run's folder or results file from being read or written, each with its fix.
package enum RunFolderError: CodedError, Equatable {
  case namedTwice(String, again: String)
  case figureInTwoParts(String, String, figure: String)
  case noSuchRun(String)
  case noResultsFile(inFolder: String)
  case noSuchResultsFile(String)
  case notAResultsFile(String, isA: String)
  case unreadable(String)
  case notResultsJSON(String, detail: String)
  case notUTF8(String)
  case filesDisagree(json: String, csv: String, detail: String)
  case notFinite(figure: String, value: Double, min: Double, max: Double)
  case notFetchBenchsFolder(String)

  package var code: String {
    switch self {
    case .namedTwice: "run-folder.named-twice"
    case .figureInTwoParts: "run-folder.figure-in-two-parts"
    case .noSuchRun: "run-folder.no-such-run"
    case .noResultsFile: "run-folder.no-results-file"
    case .noSuchResultsFile: "run-folder.no-such-results-file"
    case .notAResultsFile: "run-folder.not-a-results-file"
    case .unreadable: "run-folder.unreadable"
    case .notResultsJSON: "run-folder.not-results-json"
    case .notUTF8: "run-folder.not-utf8"
    case .filesDisagree: "run-folder.files-disagree"
    case .notFinite: "run-folder.not-finite"
    case .notFetchBenchsFolder: "run-folder.not-fetchbenchs"
    }
  }

  package var description: String {
    switch self {
    case .namedTwice(let earlier, let again): "\(earlier) is named twice (\(again)): name each part of a run once"
    case .figureInTwoParts(let a, let b, let figure):
      "\(a) and \(b) both hold \(figure): join only the parts of a run that measured different cases"
    case .noSuchRun(let path): "\(path): no such run; name a folder that `fetchbench run` wrote, or its results.json"
    case .noResultsFile(let path):
      "\(path) holds no results.json or results.csv; name a folder that `fetchbench run` wrote"
    case .noSuchResultsFile(let file): "\(file): no such results file; name a folder that `fetchbench run` wrote"
    case .notAResultsFile(let file, let what): "\(file) is \(what), not a results file"
    case .unreadable(let file): "\(file): cannot be read; name a folder that `fetchbench run` wrote"
    case .notResultsJSON(let file, let detail): "\(file) is not a results.json that FetchBench wrote (\(detail))"
    case .notUTF8(let file): "\(file) is not UTF-8 text, as every results.csv FetchBench writes is"
    case .filesDisagree(let json, let csv, let detail):
      """
      \(json) and \(csv) do not hold the same figures (\(detail)): one was edited without the other; restore both \
      from the run, or remove results.csv to read results.json alone
      """
    case .notFinite(let figure, let value, let min, let max):
      "\(figure) is \(value) [\(min)–\(max)], not a finite number: no file is written"
    case .notFetchBenchsFolder(let dir):
      """
      \(dir) is not a folder FetchBench wrote (it has no \(OutputFolder.markerName)), and its files are not \
      replaced; render it into a new folder: fetchbench report \(dir) --out NEW_FOLDER
      """
    }
  }

  package static let examples: [Self] = [
    .namedTwice("runs/a", again: "runs/a/"), .figureInTwoParts("runs/a", "runs/b", figure: "sqlite batched time"),
    .noSuchRun("runs/x"), .noResultsFile(inFolder: "runs/x"), .noSuchResultsFile("runs/x/results.csv"),
    .notAResultsFile("runs/x/results.csv", isA: "a folder"), .unreadable("runs/x/results.csv"),
    .notResultsJSON("runs/x/results.json", detail: "line 1: not JSON"), .notUTF8("runs/x/results.csv"),
    .filesDisagree(json: "runs/x/results.json", csv: "runs/x/results.csv", detail: "row 2 differs"),
    .notFinite(figure: "time of sqlite batched first_screen", value: .nan, min: 1, max: 2),
    .notFetchBenchsFolder("mine"),
  ]
}
