import ArgumentParser
import Catalog
import ChildProcesses
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import SQLQueries
import Vocabulary

/// The child side of `run`: one case, its result as JSON on standard output.
struct RunCase: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "_case", shouldDisplay: false)
  @Argument var spec: String

  func run() throws {
    // Stopped by its parent's interrupt, or by its parent's end: its scratch copies are
    // removed as it ends.
    Interrupts.install()
    ChildProcess.endWithParent()
    var spec = try CaseSpec.decode(Data(self.spec.utf8))
    if StatementLog.isEnabled { FileHandle.standardError.write(Data("FetchBench: case \(spec.label)\n".utf8)) }
    // Fault injection for the harness's own tests: a child that really dies by a signal,
    // so the parent's crash path is exercised, not only its error path; one that hangs; and a case that
    // fails with an error (a corrupt dataset no longer reaches a case: it is refused first).
    let environment = ProcessInfo.processInfo.environment
    if let target = environment["FETCHBENCH_INJECT_CRASH"], spec.label.contains(target) {
      fatalError("injected crash in \(spec.label) (FETCHBENCH_INJECT_CRASH)")
    }
    // A case that never ends, so the parent's deadline (`--case-minutes`) is exercised.
    if let target = environment["FETCHBENCH_INJECT_HANG"], spec.label.contains(target) {
      while true { sleep(3600) }
    }
    // A slowdown of the batched path, which the gate's tests inject to see it caught.
    if let factor = environment["FETCHBENCH_INJECT_BATCHED_SLOWDOWN"].flatMap(Int.init), factor > 1 {
      spec.injectedBatchedSlowdown = factor
    }
    // Batches read a row per query, which `compare`'s tests inject to see the queries flagged.
    if environment["FETCHBENCH_INJECT_QUERY_PER_ROW"] == "1" { spec.injectedQueryPerRow = true }
    let result: CaseResult
    do {
      if let target = environment["FETCHBENCH_INJECT_FAILURE"], spec.label.contains(target) {
        throw HarnessError.invalidArgument("injected failure in \(spec.label) (FETCHBENCH_INJECT_FAILURE)")
      }
      result = try CaseExecutor.run(spec)
    } catch {
      result = CaseResult(spec: spec, measurements: [], error: String(describing: AtomicFile.commandMessage(error)))
    }
    FileHandle.standardOutput.write(try JSONEncoder().encode(result))
    // What the case kept in temporary files (the cached sections' folder) ends with it.
    AtomicFile.discardAll()
  }
}
