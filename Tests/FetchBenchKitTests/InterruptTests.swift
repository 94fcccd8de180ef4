import Foundation
import TestSupport
import Testing

/// An interrupt (SIGINT, SIGTERM, SIGHUP) to a command that is measuring in a child process
/// stops the child too, which removes its scratch copy, before the command exits: nothing is
/// left running under PID 1, nothing left in the temporary folder.
@Suite struct Interrupts {
  /// The children of `pid`, from /proc.
  static func children(of pid: Int32) -> [Int32] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.flatMap { task in
      ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "")
        .split(separator: " ").compactMap { Int32($0) }
    }
  }

  static func alive(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
    // A zombie has ended; it waits only to be reaped.
    return !stat.contains(") Z ")
  }

  @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
  func anInterruptedLoadStopsItsChildAndRemovesItsScratchCopy(signal: Int32) throws {
    let dir = TestSupport.temporaryFolder("signal")
    defer { TestSupport.remove(dir) }
    let datasets = try UserFiles.banks(2000, in: dir)
    let load = try TestSupport.start([
      "load", "--store", "sqlite", "--rows", "2000", "--rate", "50", "--duration", "120s", "--transaction-size", "1...5",
      "--datasets", datasets, "--out", dir + "/out",
    ])
    // Wait for the child and its scratch copy (at most a minute, however slow the machine).
    var child: Int32?
    var scratch: [String] = []
    for _ in 0..<600 {
      child = Self.children(of: load.pid).first
      if let child {
        scratch = ((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
          .filter { $0.hasPrefix("fetchbench-load.partial-\(child)-") }
        if !scratch.isEmpty { break }
      }
      usleep(100_000)
    }
    let running = try #require(child, "no child started")
    #expect(scratch.count == 1, "no scratch copy for child \(running)")
    kill(load.pid, signal)
    let out = load.wait()
    #expect(out.status == 128 + signal, "\(out.stderr)")
    #expect(out.stderr.contains("child processes stopped, temporary files removed"), "\(out.stderr)")
    #expect(!Self.alive(running), "child \(running) still runs")
    for name in scratch { #expect(!FileManager.default.fileExists(atPath: NSTemporaryDirectory() + name), "\(name) left behind") }
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }
}
