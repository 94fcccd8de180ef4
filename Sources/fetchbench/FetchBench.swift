import ArgumentParser
import Datasets
import Foundation

@main
struct FetchBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fetchbench",
    abstract: "Full fetch or batched faulting, which store, and what keeping a list in sync costs.",
    subcommands: [Generate.self, Fetch.self, Run.self, Diff.self, Check.self, Report.self, RunCase.self]
  )
}

/// Removes temporary files on SIGINT/SIGTERM, so an interrupted command leaves nothing
/// half-written behind.
enum Interrupts {
  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

  static func install() {
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
      source.setEventHandler {
        AtomicFile.discardAll()
        FileHandle.standardError.write(Data("\ninterrupted; temporary files removed\n".utf8))
        exit(128 + sig)
      }
      source.resume()
      sources.append(source)
    }
  }
}
