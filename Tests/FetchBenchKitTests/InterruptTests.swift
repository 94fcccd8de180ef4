import DatasetStores
import Foundation
import PostgresStore
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

  /// A process killed outright (SIGKILL, a trap) cannot remove its temporaries: the next
  /// command that writes in that folder removes those of processes that no longer run, with
  /// SQLite's files beside them, and leaves a running process's and every other name alone.
  @Test func aKilledProcesssTemporariesAreSweptByTheNextCommand() throws {
    let dir = TestSupport.temporaryFolder("leftovers")
    defer { TestSupport.remove(dir) }
    let datasets = dir + "/datasets"
    try FileManager.default.createDirectory(atPath: datasets, withIntermediateDirectories: true)
    let ended = Process()
    ended.executableURL = URL(fileURLWithPath: "/bin/true")
    try ended.run()
    ended.waitUntilExit()
    let gone = ended.processIdentifier
    let swept = ["banks-300.sqlite.partial-\(gone)-1", "banks-300.sqlite.partial-\(gone)-1-journal", "x.partial-\(gone)-7"]
    let kept = ["banks-300.sqlite.partial-\(getpid())-1", "notes.partial", "mine.partial-\(gone)-x", "a.partial-\(gone)"]
    for name in swept + kept { try Data("x".utf8).write(to: URL(fileURLWithPath: datasets + "/" + name)) }
    let out = try TestSupport.run([
      "generate", "--dataset", "banks", "--rows", "300", "--format", "sqlite", "--datasets", datasets,
    ])
    #expect(out.status == 0, "\(out.stderr)")
    for name in swept { #expect(!FileManager.default.fileExists(atPath: datasets + "/" + name), "\(name)") }
    for name in kept { #expect(FileManager.default.fileExists(atPath: datasets + "/" + name), "\(name)") }
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
    #expect(out.stderr.contains("child processes stopped, temporary files"), "\(out.stderr)")
    #expect(!Self.alive(running), "child \(running) still runs")
    for name in scratch { #expect(!FileManager.default.fileExists(atPath: NSTemporaryDirectory() + name), "\(name) left behind") }
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  /// The databases on the server whose name starts with `prefix`.
  static func databases(_ admin: PostgresAdmin, prefix: String) throws -> [String] {
    try admin.column("SELECT datname FROM pg_database WHERE datname LIKE '\(prefix)%' ORDER BY datname")
  }

  /// A load on PostgreSQL writes into a scratch database of its own. An interrupt drops it;
  /// one a killed run left behind is dropped by the next run; a database of the user's whose
  /// name looks like one is never touched.
  @Test func anInterruptedPostgresLoadDropsItsScratchDatabase() throws {
    try TestSupport.requirePostgresServer()
    let dir = TestSupport.temporaryFolder("signal-pg")
    defer { TestSupport.remove(dir) }
    let admin = try PostgresAdmin(url: try PostgresLocation.url(nil))
    // A scratch database of a process that has ended, and the user's own.
    let finished = try TestSupport.start(["help"])
    _ = finished.wait()
    let ended = finished.pid
    let abandoned = "fetchbench_load_\(ended)_abandoned"
    let users = "fetchbench_load_\(ended)_users"
    for name in [abandoned, users] { try admin.execute("DROP DATABASE IF EXISTS \(name)") }
    try admin.execute("CREATE DATABASE \(abandoned)")
    try admin.execute("COMMENT ON DATABASE \(abandoned) IS '\(PostgresScratch.marker(pid: ended))'")
    try admin.execute("CREATE DATABASE \(users)")
    defer { try? admin.execute("DROP DATABASE IF EXISTS \(users)") }
    let datasets = try UserFiles.banks(2000, in: dir)
    let load = try TestSupport.start([
      "load", "--store", "postgres", "--rows", "2000", "--rate", "50", "--duration", "120s", "--transaction-size", "1...5",
      "--datasets", datasets, "--out", dir + "/out",
    ])
    var scratch: [String] = []
    for _ in 0..<1200 {
      let pids = [load.pid] + Self.children(of: load.pid)
      scratch = try Self.databases(admin, prefix: "fetchbench_load_").filter { name in
        pids.contains { name.hasPrefix("fetchbench_load_\($0)_") }
      }
      if !scratch.isEmpty { break }
      usleep(100_000)
    }
    #expect(scratch.count == 1, "no scratch database appeared")
    // Interrupted while its writers and observers are connected (they reconnect when ended).
    for _ in 0..<1200 {
      let sessions = try admin.column("SELECT pid FROM pg_stat_activity WHERE datname = '\(scratch.first ?? "")'")
      if sessions.count >= 6 { break }
      usleep(100_000)
    }
    #expect(try Self.databases(admin, prefix: "fetchbench_load_\(ended)_") == [users], "the abandoned one is dropped, the user's kept")
    kill(load.pid, SIGTERM)
    let out = load.wait()
    #expect(out.status == 128 + SIGTERM, "\(out.stderr)")
    for name in scratch { #expect(try Self.databases(admin, prefix: name).isEmpty, "\(name) left behind") }
  }
}
