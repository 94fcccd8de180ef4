import ChildProcesses
import Datasets
import Foundation
import HarnessSupport
import ResultModel

extension Machine {
  /// Reads this machine's description, and with `measuringSpeed` times `MachineSpeed`'s work
  /// (about half a second); commands that are missing give "unknown".
  package static func current(measuringSpeed: Bool) -> Machine {
    let osRelease = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
    let pretty = osRelease.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
      .map { String($0.dropFirst(12)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    let swift = swiftVersion()
    var commit = shell(["git", "rev-parse", "--short=12", "HEAD"]) ?? "unknown"
    // Results are what runs write, not what they measure: a reference recorded beside another
    // one that was just replaced is still its commit's code.
    if let status = shell(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results"]),
      !status.isEmpty
    {
      commit += "-dirty"
    }
    return Machine(
      cores: ProcessInfo.processInfo.activeProcessorCount,
      memoryBytes: Int(ProcessInfo.processInfo.physicalMemory), os: pretty ?? "Linux",
      swiftVersion: swift ?? "unknown", gitCommit: commit, processor: Processor.current().description,
      speed: measuringSpeed ? MachineSpeed.measure() : nil)
  }

  package static func shell(_ args: [String], environment: [String: String] = [:]) -> String? {
    guard let output = try? ChildProcess.run("/usr/bin/env", args, environment: environment, timeout: 30),
      output.succeeded
    else { return nil }
    return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// `swift --version`'s first line. The driver leaves a `TemporaryDirectory.XXXXXX` folder in
  /// its TMPDIR each time it runs, so it runs with a folder of FetchBench's own, removed after.
  package static func swiftVersion() -> String? {
    let folder = try? AtomicFile.createTemporaryFolder(for: NSTemporaryDirectory() + "fetchbench-swift")
    defer { folder.map(AtomicFile.discard) }
    let environment = folder.map { ["TMPDIR": $0] } ?? [:]
    return shell(["swift", "--version"], environment: environment)?.split(separator: "\n").first.map(String.init)
  }
}
