import Vocabulary

/// What keeps a history file from being read or added to, each with its fix.
package enum HistoryError: CodedError, Equatable {
  case noSuchHistory(String)
  case notAHistoryLine(String, line: Int)
  case runAlreadyAdded(String, runID: String)
  case noFigureToKeep
  case tooFewRuns(String, count: Int)

  package var code: String {
    switch self {
    case .noSuchHistory: "history.no-such-history"
    case .notAHistoryLine: "history.not-a-history-line"
    case .runAlreadyAdded: "history.run-already-added"
    case .noFigureToKeep: "history.no-figure-to-keep"
    case .tooFewRuns: "history.too-few-runs"
    }
  }

  package var description: String {
    switch self {
    case .noSuchHistory(let path): "\(path): no such history; `fetchbench history add RUN --file \(path)` starts one"
    case .notAHistoryLine(let path, let line):
      """
      \(path), line \(line): not a run that `fetchbench history add` wrote; name a history file of FetchBench's or a \
      new one
      """
    case .runAlreadyAdded(let path, let runID): "\(path) already holds run \(runID); each run is added once"
    case .noFigureToKeep: "the run has no figure to keep: none has a direction (times, rates, counts, bytes)"
    case .tooFewRuns(let path, let count):
      "\(path) holds \(count) run(s); a history needs two or more to show a change"
    }
  }

  package static let examples: [Self] = [
    .noSuchHistory("history.jsonl"), .notAHistoryLine("history.jsonl", line: 3),
    .runAlreadyAdded("history.jsonl", runID: "20261208T000000Z"), .noFigureToKeep,
    .tooFewRuns("history.jsonl", count: 1),
  ]
}
