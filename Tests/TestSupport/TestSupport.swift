import ChildProcesses
import Datasets
import Foundation
import Synchronization

/// The folders `TestSupport.temporaryFolder` made in this process.
private let temporaryFolders = Mutex<[String]>([])

/// Paths, temporary folders and the `fetchbench` binary, for tests.
public enum TestSupport {
  /// The package root (the folder holding Package.swift).
  public static let packageRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
      url.deleteLastPathComponent()
      if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
        return url
      }
    }
    fatalError("no Package.swift above \(#filePath)")
  }()

  /// A new empty folder. The caller may remove it with `remove`; whatever is left (shared
  /// fixtures, copies made per test) goes when the test process exits.
  public static func temporaryFolder(_ tag: String = "t") -> String {
    let path = NSTemporaryDirectory() + "fetchbench-\(tag)-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    temporaryFolders.withLock { folders in
      if folders.isEmpty { atexit { TestSupport.removeTemporaryFolders() } }
      folders.append(path)
    }
    return path
  }

  static func removeTemporaryFolders() {
    for path in temporaryFolders.withLock({ $0 }) { remove(path) }
  }

  public static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

  /// The committed manifest, datasets/manifest.json.
  public static func committedManifest() throws -> Manifest {
    try Manifest.load(from: packageRoot.appendingPathComponent("datasets/manifest.json").path)
  }

  /// The `fetchbench` executable built beside the test bundle.
  public static var executable: URL {
    let candidates = [
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
      Bundle.main.bundleURL.deletingLastPathComponent(),
      Bundle.main.bundleURL,
      packageRoot.appendingPathComponent(".build/debug"),
    ].map { $0.appendingPathComponent("fetchbench") }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
      ?? candidates.last!
  }

  public struct Output: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
  }

  /// A test's child is killed after this long: a hung command fails its test, not CI's 90
  /// minutes.
  public static let timeout = 900.0

  /// Runs `fetchbench` with `arguments` and waits for it.
  public static func run(_ arguments: [String], currentDirectory: String? = nil, environment: [String: String] = [:])
    throws -> Output
  {
    try start(arguments, currentDirectory: currentDirectory, environment: environment).wait()
  }

  /// A started `fetchbench` process whose output is collected as it runs.
  public final class Running: Sendable {
    public let child: ChildProcess
    init(_ child: ChildProcess) { self.child = child }
    public var pid: Int32 { child.pid }

    public func wait() -> Output {
      let o = child.wait()
      return Output(status: o.status, stdout: o.text, stderr: o.standardError)
    }
  }

  public static func start(_ arguments: [String], currentDirectory: String? = nil, environment: [String: String] = [:])
    throws -> Running
  {
    Running(
      try ChildProcess(
        executable.path, arguments, environment: environment, currentDirectory: currentDirectory, timeout: timeout))
  }

  /// Every file and folder below `path`, relative, sorted.
  public static func listing(_ path: String) -> [String] {
    ((try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []).sorted()
  }
}

extension TestSupport {
  /// NSPredicate's LIKE written apart from the engine's, for the oracles: `?` one scalar, `*`
  /// any run, by dynamic programming over the two.
  public static func glob(_ p: [Unicode.Scalar], _ s: [Unicode.Scalar]) -> Bool {
    var row = [Bool](repeating: false, count: s.count + 1)
    row[0] = true
    for c in p {
      var next = [Bool](repeating: false, count: s.count + 1)
      if c == "*" {
        var any = false
        for j in 0...s.count {
          any = any || row[j]
          next[j] = any
        }
      } else {
        for j in 1...max(1, s.count) where j <= s.count { next[j] = row[j - 1] && (c == "?" || c == s[j - 1]) }
      }
      row = next
    }
    return row[s.count]
  }
}
