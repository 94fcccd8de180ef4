import ArgumentParser
import FetchBenchKit
import Foundation
import ResultModel

struct Compare: CheckedCommand {
  static let configuration = CommandConfiguration(
    abstract: "Compare two runs figure by figure: what regressed, what improved, with significance.",
    discussion: """
      BASE and HEAD are run folders (their results.json keeps every repetition) or results \
      files. Figures are joined on their full key. Exact counters are compared exactly; heap \
      figures within --heap-tolerance; times and rates by the processes that measured them (run \
      --processes 3): repetitions in one process share its offset, so each process's median is \
      one value, and a change counts when Welch's t-test between the two sides' medians finds it \
      after Holm's correction over every time of the comparison (p < 0.01: unchanged code is \
      flagged with a chance under 1 %, however many figures the runs hold), their ratio is beyond \
      --threshold, and the change is beyond the noise floor (the spread of either side's process \
      medians); the ratio's 95 % interval is printed beside it. Sensitivity grows with processes: \
      among a few hundred times, a change must be about 13 to 17 times the spread between \
      processes to be flagged with 3 a side, about 5 times with 5, about 2.5 times with 10. A \
      count that varies between repetitions (page faults, allocations) changes when every repetition of one \
      side lies beyond the other's, by --threshold and by at least 16. \
      With fewer than 3 processes a side a time or a page fault count reads "not judged: too few \
      processes"; \
      a case measured while the rest of the machine used a quarter of a core or more (or the \
      hypervisor stole a twentieth), as `run` records beside it, has its times "not judged: busy \
      machine".

      Exit codes: 0 no figure regressed, 2 a figure regressed, a counter changed either way or \
      a case of HEAD failed, 3 the runs cannot be compared (no figure in both; other toolchain, \
      machine or datasets: --allow-differences compares them anyway), 1 error.
      """)

  var checked = CheckedOptions<Comparison.Options>()

  @Argument(
    help: "The run to compare against (a folder, results.json or results.csv; a sharded run's parts comma-separated).")
  var base: String
  @Argument(help: "The run to judge (the same forms).") var head: String
  @Option(parsing: .unconditional, help: "Smallest change of a time that counts, in percent (1 to 1,000).")
  var threshold = 10.0
  @Option(
    parsing: .unconditional,
    help: "Change a heap figure may show either way, in percent (0 to 1,000), beyond 16 KiB of slack.")
  var heapTolerance = 5.0
  @Option(
    help:
      """
      text; markdown (a pull-request summary for $GITHUB_STEP_SUMMARY); json (every figure's verdict); bmf (HEAD's \
      figures for Bencher, as `export`); github-action-benchmark (HEAD's figures, two files in --out).
      """
  ) var format = "text"
  @Flag(help: "Compare runs from other toolchains, machines or datasets anyway.") var allowDifferences = false
  @Option(help: "With --format github-action-benchmark: the folder for its two files.") var out: String?

  static let formats = ["text", "markdown", "json", "bmf", "github-action-benchmark"]

  /// `a,b`: the folders of one sharded run.
  static func paths(_ argument: String) -> [String] { argument.split(separator: ",").map(String.init) }

  func options() throws -> Comparison.Options {
    guard (1...1000).contains(threshold) else {
      throw ValidationError("--threshold must be between 1 and 1,000 (percent), got \(threshold)")
    }
    guard (0...1000).contains(heapTolerance) else {
      throw ValidationError("--heap-tolerance must be between 0 and 1,000 (percent), got \(heapTolerance)")
    }
    guard Self.formats.contains(format) else {
      throw ValidationError("unknown format '\(format)'; expected \(Self.formats.joined(separator: ", "))")
    }
    if format == "github-action-benchmark" && out == nil {
      throw ValidationError("--format github-action-benchmark writes two files: name their folder with --out")
    }
    if format != "github-action-benchmark" && out != nil {
      throw ValidationError(
        """
        --out is for --format github-action-benchmark; --format \(format) prints to standard output: redirect it to \
        a file
        """
      )
    }
    var o = Comparison.Options()
    (o.threshold, o.heapTolerance, o.allowDifferences) = (threshold / 100, heapTolerance / 100, allowDifferences)
    return o
  }

  func run() throws {
    let headRows = try RunRows.read(all: Self.paths(head))
    let comparison = Comparison(
      base: try RunRows.read(all: Self.paths(base)), head: headRows, options: try checkedOptions())
    switch format {
    case "markdown": print(comparison.markdown(), terminator: "")
    case "json": FileHandle.standardOutput.write(try comparison.json())
    case "bmf": FileHandle.standardOutput.write(try RunExport.bmf(headRows.figures))
    case "github-action-benchmark":
      try RunExport.writeActionFiles(headRows.figures, to: out!)
      print(comparison.text(), terminator: "")
    default: print(comparison.text(), terminator: "")
    }
    if comparison.exitCode != 0 { throw ExitCode(comparison.exitCode) }
  }
}
