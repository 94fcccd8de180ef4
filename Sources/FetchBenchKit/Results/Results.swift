import ChildProcesses
import DatasetStores
import Foundation

/// One row of results.csv: one figure of one case, in long (tidy) form.
public struct ResultRow: Sendable, Codable, Equatable {
  public var run_id: String
  public var dataset: String
  public var rows: Int
  public var store: String
  public var mode: String
  public var batch_size: Int
  public var index: String
  public var scenario: String
  public var metric: String
  public var value: Double
  public var unit: String
  public var min: Double
  public var max: Double
  public var repetitions: Int
  public var status: String
  public var error: String
  public var cores: Int
  public var memory_bytes: Int
  public var os: String
  public var swift_version: String
  public var git_commit: String
  public var dataset_sha256: String
  /// Text a figure carries, such as a query plan; empty for most.
  public var detail: String = ""

  /// The mode of a row that records a setting of the run the report reads (the memory budget).
  public static let settings = "settings"

  /// The status of a case stopped at the memory ceiling (others: `ok`, `failed`).
  public static let doesNotFit = "does_not_fit"

  public static let columns = [
    "run_id", "dataset", "rows", "store", "mode", "batch_size", "index", "scenario", "metric",
    "value", "unit", "min", "max", "repetitions", "status", "error", "cores", "memory_bytes", "os",
    "swift_version", "git_commit", "dataset_sha256", "detail",
  ]

  var fields: [String] {
    [
      run_id, dataset, String(rows), store, mode, String(batch_size), index, scenario, metric,
      Self.number(value), unit, Self.number(min), Self.number(max), String(repetitions), status,
      error, String(cores), String(memory_bytes), os, swift_version, git_commit, dataset_sha256, detail,
    ]
  }

  /// Integers print without a fraction, other values with three decimals, and those under 1
  /// with four significant digits: an index can take a query to a thousandth of its time, and
  /// three decimals would record every such ratio as 0.001.
  static func number(_ v: Double) -> String {
    if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
    return abs(v) >= 1 ? String(format: "%.3f", v) : String(format: "%.4g", v)
  }

  init(fields f: [String]) throws {
    // Runs recorded before `detail` have one column fewer.
    guard f.count == Self.columns.count || f.count == Self.columns.count - 1 else {
      throw HarnessError.invalidArgument("results.csv: a row has \(f.count) fields, expected \(Self.columns.count)")
    }
    func num(_ s: String) throws -> Double {
      guard let d = Double(s) else { throw HarnessError.invalidArgument("results.csv: '\(s)' is not a number") }
      return d
    }
    // Whole numbers within what a run writes (a report multiplies them): anything else in a
    // hand-edited file is an error, never a trap.
    func int(_ s: String, _ column: String, max: Int = 1 << 53) throws -> Int {
      guard let d = Double(s), let i = Int(exactly: d), (0...max).contains(i) else {
        throw HarnessError.invalidArgument("results.csv: \(column) '\(s)' is not a whole number from 0 to \(max.grouped)")
      }
      return i
    }
    (run_id, dataset, rows, store, mode) = (f[0], f[1], try int(f[2], "rows", max: 1 << 40), f[3], f[4])
    (batch_size, index, scenario, metric) = (try int(f[5], "batch_size", max: 1 << 30), f[6], f[7], f[8])
    (value, unit, min, max, repetitions) = (try num(f[9]), f[10], try num(f[11]), try num(f[12]), try int(f[13], "repetitions"))
    (status, error, cores, memory_bytes) = (f[14], f[15], try int(f[16], "cores"), try int(f[17], "memory_bytes"))
    (os, swift_version, git_commit, dataset_sha256) = (f[18], f[19], f[20], f[21])
    detail = f.count > 22 ? f[22] : ""
  }

  public init(
    run_id: String, dataset: String, rows: Int, store: String, mode: String, batch_size: Int,
    index: String, scenario: String, metric: String, value: Double, unit: String, min: Double,
    max: Double, repetitions: Int, status: String, error: String, machine: Machine,
    dataset_sha256: String
  ) {
    (self.run_id, self.dataset, self.rows, self.store, self.mode) = (run_id, dataset, rows, store, mode)
    (self.batch_size, self.index, self.scenario, self.metric) = (batch_size, index, scenario, metric)
    (self.value, self.unit, self.min, self.max, self.repetitions) = (value, unit, min, max, repetitions)
    (self.status, self.error) = (status, error)
    (cores, memory_bytes, os, swift_version, git_commit) = (
      machine.cores, machine.memoryBytes, machine.os, machine.swiftVersion, machine.gitCommit
    )
    self.dataset_sha256 = dataset_sha256
  }
}

/// The machine and build a run was made on.
public struct Machine: Sendable, Codable, Equatable {
  public var cores: Int
  public var memoryBytes: Int
  public var os: String
  public var swiftVersion: String
  public var gitCommit: String

  public init(cores: Int, memoryBytes: Int, os: String, swiftVersion: String, gitCommit: String) {
    self.cores = cores
    self.memoryBytes = memoryBytes
    self.os = os
    self.swiftVersion = swiftVersion
    self.gitCommit = gitCommit
  }

  /// Reads this machine's description; commands that are missing give "unknown".
  public static func current() -> Machine {
    let osRelease = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
    let pretty = osRelease.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
      .map { String($0.dropFirst(12)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    let swift = shell(["swift", "--version"])?.split(separator: "\n").first.map(String.init)
    var commit = shell(["git", "rev-parse", "--short=12", "HEAD"]) ?? "unknown"
    if let status = shell(["git", "status", "--porcelain", "--untracked-files=no"]), !status.isEmpty { commit += "-dirty" }
    return Machine(
      cores: ProcessInfo.processInfo.activeProcessorCount,
      memoryBytes: Int(ProcessInfo.processInfo.physicalMemory), os: pretty ?? "Linux",
      swiftVersion: swift ?? "unknown", gitCommit: commit)
  }

  static func shell(_ args: [String]) -> String? {
    guard let output = try? ChildProcess.run("/usr/bin/env", args, timeout: 30), output.succeeded else { return nil }
    return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// RFC 4180 CSV for results: quoted where needed, read back exactly.
///
/// A text cell that a spreadsheet would run as a formula (it begins with `=`, `+`, `-`, `@`, a
/// tab or a carriage return, as an error message from a child can) gets a leading `'`, as
/// OWASP's CSV-injection guidance recommends; `decode` removes it again, so text round-trips.
public enum ResultsCSV {
  public static func encode(_ rows: [ResultRow]) -> String {
    var out = ResultRow.columns.joined(separator: ",") + "\n"
    for r in rows {
      out += r.fields.enumerated().map { i, f in quote(textColumns.contains(i) ? neutralised(f) : f) }.joined(separator: ",") + "\n"
    }
    return out
  }

  /// The columns holding text (the others are numbers, whose `-` is a sign).
  static let textColumns: Set<Int> = {
    let numeric: Set<String> = ["rows", "batch_size", "value", "min", "max", "repetitions", "cores", "memory_bytes"]
    return Set(ResultRow.columns.indices.filter { !numeric.contains(ResultRow.columns[$0]) })
  }()

  /// Whether a spreadsheet could take `s` for a formula; a leading `'` before such text counts
  /// too, so that a cell that really begins with one survives the round trip.
  static func needsGuard(_ s: Substring) -> Bool {
    guard let c = s.first else { return false }
    return "=+-@\t\r".contains(c) || (c == "'" && needsGuard(s.dropFirst()))
  }

  static func neutralised(_ s: String) -> String { needsGuard(s[...]) ? "'" + s : s }

  static func restored(_ s: String) -> String { s.first == "'" && needsGuard(s.dropFirst()) ? String(s.dropFirst()) : s }

  static func quote(_ s: String) -> String {
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
    return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// Parses CSV text written by `encode` (or any RFC 4180 file with the same header).
  public static func decode(_ text: String) throws -> [ResultRow] {
    var records: [[String]] = []
    var field = ""
    var record: [String] = []
    var quoted = false
    var it = Array(text).makeIterator()
    var pending: Character? = nil
    while let c = pending ?? it.next() {
      pending = nil
      if quoted {
        if c == "\"" {
          if let n = it.next() {
            if n == "\"" {
              field.append("\"")
            } else {
              quoted = false
              pending = n
            }
          } else {
            quoted = false
          }
        } else {
          field.append(c)
        }
      } else if c == "\"" {
        quoted = true
      } else if c == "," {
        record.append(field)
        field = ""
      } else if c == "\n" || c == "\r\n" {
        record.append(field)
        records.append(record)
        record = []
        field = ""
      } else if c != "\r" {
        field.append(c)
      }
    }
    if !field.isEmpty || !record.isEmpty {
      record.append(field)
      records.append(record)
    }
    guard let header = records.first, header == ResultRow.columns else {
      throw HarnessError.invalidArgument("results.csv: the header is not \(ResultRow.columns.joined(separator: ","))")
    }
    return try records.dropFirst().map { record in
      try ResultRow(fields: record.enumerated().map { i, f in textColumns.contains(i) ? restored(f) : f })
    }
  }
}
