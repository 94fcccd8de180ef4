import ArgumentParser
import Datasets
import FetchBenchKit
import Foundation
import SQLQueries
import Vocabulary

/// The child side of `run`: one case, which arrives on standard input (`ChildRequest`), its
/// result as JSON on standard output.
struct RunCase: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: CaseSpec.command, shouldDisplay: false)

  func run() throws {
    // Stopped by its parent's interrupt, or by its parent's end: its scratch copies are
    // removed as it ends.
    Interrupts.install()
    let spec = try ChildRequest<CaseSpec>.receive()
    if StatementLog.isEnabled { FileHandle.standardError.write(Data("FetchBench: case \(spec.label)\n".utf8)) }
    let result: CaseResult
    do {
      try Self.strike(spec, with: CommandSettings.current.faults)
      result = try CaseExecutor.run(spec)
    } catch {
      result = CaseResult(spec: spec, measurements: [], error: String(describing: AtomicFile.commandMessage(error)))
    }
    FileHandle.standardOutput.write(try JSONEncoder().encode(result))
    // What the case kept in temporary files (the cached sections' folder) ends with it.
    AtomicFile.discardAll()
  }

  /// The harness's own tests' faults that end a case: a child that really dies by a signal, so
  /// the parent's crash path is exercised, not only its error path; one that never ends, so the
  /// parent's deadline (`--case-minutes`) is; and a case that fails with an error.
  static func strike(_ spec: CaseSpec, with faults: InjectedFaults) throws {
    if let target = faults.crashMatching, spec.label.contains(target) {
      fatalError("injected crash in \(spec.label) (FETCHBENCH_INJECT_CRASH)")
    }
    if let target = faults.hangMatching, spec.label.contains(target) {
      while true { sleep(3600) }
    }
    if let target = faults.failureMatching, spec.label.contains(target) {
      throw MeasurementFault.injectedFailure(label: spec.label)
    }
  }
}
