import ArgumentParser
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import ResultModel

struct Export: CheckedCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write one run's figures for a CI tool: Bencher (bmf) or github-action-benchmark.",
    discussion: """
      SOURCE is a run folder, its results.json or its results.csv. Only figures with a direction \
      (times, rates, counts and bytes better lower or higher) are written, each named by its full \
      key: banks/244292/sqlite/batched/20/none/first_screen, measure time_ms.

      bmf: Bencher Metric Format, the median as value and the smallest and largest repetition \
      as its bounds; to standard output, or --out FILE.
      github-action-benchmark: two files in the folder --out names, smaller-is-better.json \
      (tool: customSmallerIsBetter) and bigger-is-better.json (customBiggerIsBetter).

      An existing file is never replaced: --out names a new file, or a folder that is new, empty \
      or an earlier export's.
      """)

  var checked = CheckedOptions<RunExport.Format>()

  @Argument(help: "The run (a folder, results.json or results.csv).") var source: String
  @Option(help: "bmf or github-action-benchmark.") var format: String
  @Option(help: "bmf: a new file (default: standard output); github-action-benchmark: a folder (required).") var out:
    String?

  func options() throws -> RunExport.Format {
    guard let f = RunExport.Format(rawValue: format) else {
      throw ValidationError(
        "unknown format '\(format)'; expected \(RunExport.Format.allCases.map(\.rawValue).joined(separator: " or "))")
    }
    if f == .githubActionBenchmark && out == nil {
      throw ValidationError("--format github-action-benchmark writes two files: name their folder with --out")
    }
    return f
  }

  func run() throws {
    let format = try checkedOptions()
    let rows = try RunRows.read(source).figures
    switch format {
    case .bmf:
      let data = try RunExport.bmf(rows)
      guard let out else { return FileHandle.standardOutput.write(data) }
      try AtomicFile.writeNew(data, to: out)
      print("wrote \(out)")
    case .githubActionBenchmark:
      let folder = out!
      try RunExport.writeActionFiles(rows, to: folder)
      print("wrote \(folder)/\(RunExport.actionFiles[0]) and \(RunExport.actionFiles[1])")
    }
  }
}
