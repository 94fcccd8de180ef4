import ArgumentParser
import FetchBenchKit
import Foundation

/// One store's load run, in the child process `fetchbench load` starts; its configuration
/// arrives on standard input (`ChildRequest`).
struct LoadCase: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: LoadConfig.command, shouldDisplay: false)

  func run() throws {
    // Stopped by its parent's interrupt, or by its parent's end: its scratch copy is
    // removed as it ends.
    Interrupts.install()
    let config = try ChildRequest<LoadConfig>.receive()
    let result = try LoadTest.run(config) { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    FileHandle.standardOutput.write(try JSONEncoder().encode(result))
  }
}
