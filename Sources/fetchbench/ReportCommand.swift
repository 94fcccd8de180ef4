import ArgumentParser
import FetchBenchKit

/// `fetchbench report`: FetchBenchKit's `Report` renders; this is its command.
struct ReportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Render DIR/report.md and its charts again from DIR/results.csv, or join the folders of a sharded run.",
    discussion: """
      With one folder and no --out, its report is rendered again in place (a load test's folder from its \
      results.json). With the folders of \
      `run --shard K/N` (or any runs' folders) and --out, their figures are written together as \
      one run's folder, its report naming which run, commit and machine measured what.
      """)
  @Argument(help: "Run folders, e.g. results/latest.") var directories: [String]
  @Option(help: "With several folders: the folder to write them to, new or an earlier join's (never a run's).")
  var out: String?

  func validate() throws {
    if directories.count > 1 && out == nil {
      throw ValidationError("several folders are joined into a new one: name it with --out")
    }
  }

  func run() throws {
    if directories.count == 1, LoadReport.isLoadFolder(directories[0]) {
      try LoadReport.rerender(directories[0], to: out)
      return print("wrote \(out ?? directories[0])/report.md")
    }
    guard let out else {
      try ResultFiles.rerender(directories[0])
      return print("wrote \(directories[0])/report.md")
    }
    try ResultFiles.write(try RunRows.read(all: directories), to: out, command: .report)
    print("wrote \(out)/report.md, results.csv, results.json, charts/")
  }
}
