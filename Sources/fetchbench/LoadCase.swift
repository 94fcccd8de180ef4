import ArgumentParser
import Catalog
import ChildProcesses
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import ResultModel

/// One store's load run, in the child process `fetchbench load` starts.
struct LoadCase: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "_load", shouldDisplay: false)
  @Argument var config: String

  func run() throws {
    // Stopped by its parent's interrupt, or by its parent's end: its scratch copy is
    // removed as it ends.
    Interrupts.install()
    ChildProcess.endWithParent()
    let config = try JSONDecoder().decode(LoadConfig.self, from: Data(self.config.utf8))
    let result = try LoadTest.run(config) { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    FileHandle.standardOutput.write(try JSONEncoder().encode(result))
  }
}
