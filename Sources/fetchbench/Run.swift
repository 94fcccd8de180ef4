import ArgumentParser
import Datasets
import FetchBenchKit
import Foundation

struct Run: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Measure full fetch against batched faulting, per store and dataset, and write CSV, JSON and a Markdown report.")

  @Option(help: "Datasets: banks, wells, or all (comma-separated; default all, banks with --quick).") var dataset: String?
  @Option(help: "Stores, comma-separated: memory, sqlite, postgres.") var store = "memory,sqlite"
  @Option(help: "Modes, comma-separated: full, batched.") var mode = "full,batched"
  @Option(help: "Batch sizes to sweep, comma-separated.") var batchSize = "20"
  @Option(help: "Row counts, comma-separated; missing datasets are generated.") var rows = String(DatasetKind.defaultRows)
  @Option(help: "Scenarios, comma-separated (default: all).") var scenario: String?
  @Option(parsing: .unconditional, help: "Measured repetitions per case, after one warm-up.") var repetitions = 5
  @Flag(help: "Skip SQLite with an index on the sort key.") var noIndex = false
  @Flag(help: "Banks only, no index variant, four scenarios, 3 repetitions: a first look in under two minutes.") var quick = false
  @Option(help: "Output folder (default: results/runs/<UTC timestamp>, copied to results/latest).") var out: String?
  @Option(help: "Datasets folder.") var datasets = "datasets"
  @OptionGroup var postgres: PostgresOptions

  func run() throws {
    Interrupts.install()
    try postgres.apply()
    var options = RunOptions()
    // An option that names nothing is an error, not a run of nothing.
    func list(_ s: String, _ name: String) throws -> [String] {
      let items = s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
      guard !items.isEmpty else { throw ValidationError("--\(name) names nothing; give at least one value") }
      return items
    }
    func ints(_ s: String, _ name: String) throws -> [Int] {
      try list(s, name).map {
        guard let n = Int($0), n > 0 else { throw ValidationError("--\(name): '\($0)' is not a positive number") }
        return n
      }
    }
    options.datasets =
      (dataset ?? "all") == "all"
      ? DatasetKind.allCases
      : try list(dataset ?? "", "dataset").map {
        guard let k = DatasetKind(rawValue: $0) else { throw ValidationError(DatasetError.unknownDataset($0).description) }
        return k
      }
    options.stores = try list(store, "store").map {
      guard let s = StoreKind(rawValue: $0) else { throw ValidationError("unknown store '\($0)'; expected memory, sqlite or postgres") }
      return s
    }
    options.modes = try list(mode, "mode").map {
      guard let m = FetchMode(rawValue: $0) else { throw ValidationError("unknown mode '\($0)'; expected full or batched") }
      return m
    }
    options.batchSizes = try ints(batchSize, "batch-size")
    options.rows = try ints(rows, "rows")
    for n in options.rows where n > DatasetKind.maxRows { throw ValidationError(DatasetError.invalidRows(n).description) }
    if let scenario {
      options.scenarios = try list(scenario, "scenario").map {
        guard let s = Scenario(rawValue: $0) else {
          throw ValidationError("unknown scenario '\($0)'; expected \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return s
      }
    }
    guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
    options.repetitions = repetitions
    options.withIndex = !noIndex
    // Checked before minutes of measuring; a folder with the user's files is never replaced.
    options.outDirectory = try out.map { try AtomicFile.checkFolderTarget($0, names: ResultFiles.names) }
    options.datasetsDirectory = datasets
    if quick {
      // --quick narrows only what was not asked for.
      let (datasets, scenarios) = (options.datasets, options.scenarios)
      options.makeQuick()
      if dataset != nil { options.datasets = datasets }
      if scenario != nil { options.scenarios = scenarios }
    }

    let outcome: RunOutcome
    outcome = try Runner.run(options) { line in
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
    print("wrote \(outcome.directory)/report.md, results.csv, results.json, charts/")
    if !outcome.failures.isEmpty {
      FileHandle.standardError.write(Data("\(outcome.failures.count) case(s) failed; see the report's last section\n".utf8))
      throw ExitCode(1)
    }
  }
}

struct Report: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Render DIR/report.md and its charts again from DIR/results.csv.")
  @Argument(help: "A run folder, e.g. results/latest.") var directory: String

  func run() throws {
    try ResultFiles.rerender(directory)
    print("wrote \(directory)/report.md")
  }
}

/// The child side of `run`: one case, its result as JSON on standard output.
struct RunCase: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "_case", shouldDisplay: false)
  @Argument var spec: String

  func run() throws {
    let spec = try JSONDecoder().decode(CaseSpec.self, from: Data(self.spec.utf8))
    // Fault injection for the harness's own tests: a child that really dies by a signal,
    // so the parent's crash path is exercised, not only its error path; and a case that
    // fails with an error (a corrupt dataset no longer reaches a case: it is refused first).
    let environment = ProcessInfo.processInfo.environment
    if let target = environment["FETCHBENCH_INJECT_CRASH"], spec.label.contains(target) {
      fatalError("injected crash in \(spec.label) (FETCHBENCH_INJECT_CRASH)")
    }
    let result: CaseResult
    do {
      if let target = environment["FETCHBENCH_INJECT_FAILURE"], spec.label.contains(target) {
        throw HarnessError.invalidArgument("injected failure in \(spec.label) (FETCHBENCH_INJECT_FAILURE)")
      }
      result = try CaseExecutor.run(spec)
    } catch {
      result = CaseResult(spec: spec, measurements: [], error: String(describing: error))
    }
    FileHandle.standardOutput.write(try JSONEncoder().encode(result))
  }
}
