import Datasets
import Foundation

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

  /// A new empty folder, removed by the caller with `removeTemporary`.
  public static func temporaryFolder(_ tag: String = "t") -> String {
    let path = NSTemporaryDirectory() + "fetchbench-\(tag)-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
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

  /// Runs `fetchbench` with `arguments` and waits for it.
  public static func run(_ arguments: [String], currentDirectory: String? = nil, environment: [String: String] = [:]) throws -> Output {
    let process = try start(arguments, currentDirectory: currentDirectory, environment: environment)
    return process.wait()
  }

  /// A started `fetchbench` process whose output is collected.
  public final class Running: @unchecked Sendable {
    public let process: Process
    let out: Pipe
    let err: Pipe
    init(process: Process, out: Pipe, err: Pipe) {
      self.process = process
      self.out = out
      self.err = err
    }
    public func wait() -> Output {
      // Read before waiting: a full pipe would block the child forever.
      let o = out.fileHandleForReading.readDataToEndOfFile()
      let e = err.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return Output(
        status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
        stderr: String(decoding: e, as: UTF8.self))
    }
  }

  public static func start(_ arguments: [String], currentDirectory: String? = nil, environment: [String: String] = [:]) throws -> Running {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    return Running(process: process, out: out, err: err)
  }

  /// Every file and folder below `path`, relative, sorted.
  public static func listing(_ path: String) -> [String] {
    ((try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []).sorted()
  }
}
