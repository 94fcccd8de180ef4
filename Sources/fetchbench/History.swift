import ArgumentParser
import DatasetStores
import FetchBenchKit
import Foundation
import ResultModel
import Vocabulary

struct History: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Keep runs' figures across commits and see where each one moved.",
    subcommands: [Add.self, Show.self])

  struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "add",
      abstract: "Append a run's figures, with its commit, date, machine and toolchain, to a history file (JSON Lines).",
      discussion: """
        Every figure with a direction (times, rates, counts, bytes) is kept under its full key. \
        The file is created when missing; one that holds anything but runs `history add` wrote is \
        refused, as is a run already in it.
        """)
    @Argument(help: "The run (a folder, results.json or results.csv).") var source: String
    @Option(help: "The history file.") var file: String

    func run() throws {
      let entry = try HistoryEntry(rows: try RunRows.read(source).figures)
      let count = try HistoryFile.append(entry, to: file)
      print(
        "added run \(entry.runID) (commit \(entry.commit), \(entry.figures.count) figures) to \(file): \(count) runs")
    }
  }

  struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "report",
      abstract: "Draw each figure across the history's runs and mark the runs where it moved beyond its noise.",
      discussion: """
        A figure moved at a run when the runs before it (up to five, since its last move) agree \
        and the next two lie beyond all of them by more than 10 %, on the same side: a step, not \
        one outlier. Writes report.md and a chart per figure that moved, and lists the figures \
        an earlier run measured that the last run no longer has.
        """)
    @Argument(help: "The history file.") var file: String
    @Option(help: "The folder to write: new, empty, or an earlier history report.") var out: String

    func run() throws {
      let entries = try HistoryFile.read(file)
      guard entries.count >= 2 else {
        throw HistoryError.tooFewRuns(file, count: entries.count)
      }
      let report = HistoryReport(entries)
      try report.write(to: out)
      print("wrote \(out)/report.md and charts/")
      let vanished = report.vanished
      if !vanished.isEmpty {
        print(
          """
          \(vanished.count) figures measured earlier are missing from the last run (listed in report.md), e.g. \
          \(vanished[0].name)
          """
        )
      }
    }
  }
}
