import Catalog
import Foundation
import HarnessSupport
import TextFormatting
import Vocabulary

/// One row of results.csv: one figure of one case, in long (tidy) form. Typed throughout; the
/// column names and texts of results.csv and results.json (a contract with their readers)
/// live only in `columns`, `fields` and `init(fields:)`.
@dynamicMemberLookup
package struct ResultRow: Sendable, Equatable {
  package var runID: String
  package var key: ResultKey
  package var metric: Metric
  /// The median of the repetitions, in the metric's unit.
  package var value: Double
  package var min: Double
  package var max: Double
  package var repetitions: Int
  package var status: ResultStatus
  package var error: String
  package var machine: Machine
  package var datasetSHA256: String
  /// Text a figure carries, such as a query plan; empty for most.
  package var detail: String = ""
  /// Every repetition's value in the order measured, for a figure measured more than once:
  /// in results.json (`samples`) and a run's journal, not in results.csv.
  package var samples: [Double] = []
  /// The child processes `samples` come from, in order, an equal share each: a time's offset
  /// from one process to the next is not in one process's repetitions, so `compare` judges
  /// times by process (`run --processes`).
  package var processes = 1

  package init(
    runID: String, key: ResultKey, metric: Metric, summary: Summary, status: ResultStatus = .ok, error: String = "",
    machine: Machine, datasetSHA256: String = "", detail: String = ""
  ) {
    (self.runID, self.key, self.metric) = (runID, key, metric)
    (value, min, max, repetitions) = (summary.median, summary.min, summary.max, summary.count)
    // A figure measured once has no spread to compare.
    samples = summary.count > 1 ? summary.samples : []
    (self.status, self.error, self.machine, self.datasetSHA256, self.detail) = (
      status, error, machine, datasetSHA256, detail
    )
  }

  /// The key's columns read and written as the row's own: `row.store`, `row.scenario`.
  package subscript<T>(dynamicMember path: WritableKeyPath<ResultKey, T>) -> T {
    get { key[keyPath: path] }
    set { key[keyPath: path] = newValue }
  }
  package var unit: Metric.Unit { metric.unit }
  package var isOK: Bool { status == .ok }

  package static let columns = [
    "run_id", "dataset", "rows", "store", "mode", "batch_size", "index", "scenario", "metric",
    "value", "unit", "min", "max", "repetitions", "status", "error", "cores", "memory_bytes", "os",
    "swift_version", "git_commit", "dataset_sha256", "detail", "processor", "machine_speed",
  ]

  /// The row's cells in `columns`' order, typed: results.csv writes their text, results.json
  /// their values. O(columns).
  package var cells: [Cell] {
    [
      .text(runID), .text(key.dataset?.rawValue ?? ""), .integer(key.rows), .text(key.store.csv), .text(key.mode.csv),
      .integer(key.batchSize), .text(key.index.csv), .text(key.scenario.csv), .text(metric.name), .real(value),
      .text(unit.rawValue), .real(min), .real(max), .integer(repetitions), .text(status.rawValue), .text(error),
      .integer(machine.cores), .integer(machine.memoryBytes), .text(machine.os), .text(machine.swiftVersion),
      .text(machine.gitCommit), .text(datasetSHA256), .text(detail), .text(machine.processor),
      .text(machine.speed?.recorded ?? ""),
    ]
  }

  /// The row as results.csv's fields. O(columns).
  package var fields: [String] { cells.map(\.text) }

  /// Integers print without a fraction, other values with three decimals, and those under 1
  /// with four significant digits: an index can take a query to a thousandth of its time, and
  /// three decimals would record every such ratio as 0.001.
  /// The row as results.csv holds it: its median, least and most to the digits `number`
  /// writes; the rest as it is (its repetitions too, which results.json keeps). O(1).
  package var rounded: ResultRow {
    var r = self
    (r.value, r.min, r.max) = (Self.rounded(value), Self.rounded(min), Self.rounded(max))
    return r
  }

  /// `v` to the digits `number` writes.
  package static func rounded(_ v: Double) -> Double { Double(number(v)) ?? v }

  package static func number(_ v: Double) -> String {
    if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
    return abs(v) >= 1 ? String(format: "%.3f", v) : String(format: "%.4g", v)
  }

  /// The row of results.csv's fields: each checked as `init(cells:)` checks it.
  package init(fields: [String]) throws { try self.init(cells: fields.map(Cell.text)) }

  /// The row of a results file's cells, each checked: a number where one belongs, finite, a
  /// whole number within what a run writes, a name FetchBench writes. Throws naming the column
  /// and the value. O(columns).
  package init(cells c: [Cell]) throws {
    // Runs recorded before `machine_speed` have one column fewer, before `processor` two, and
    // before `detail` three.
    guard (Self.columns.count - 3...Self.columns.count).contains(c.count) else {
      throw ResultsFileError.wrongFieldCount(c.count, expected: Self.columns.count)
    }
    func num(_ i: Int) throws -> Double {
      guard let d = c[i].number, d.isFinite else {
        throw ResultsFileError.notFinite(c[i].text)
      }
      return d
    }
    // Whole numbers within what a run writes (a report multiplies them): anything else in a
    // hand-edited file is an error, never a trap.
    func int(_ i: Int, max: Int = 1 << 53) throws -> Int {
      guard let d = c[i].number, let n = Int(exactly: d), (0...max).contains(n) else {
        throw ResultsFileError.notWholeNumber(column: Self.columns[i], value: c[i].text, max: max)
      }
      return n
    }
    func typed<T>(_ i: Int, _ make: (String) -> T?) throws -> T {
      guard let t = make(c[i].text) else {
        throw ResultsFileError.notWritten(column: Self.columns[i], value: c[i].text)
      }
      return t
    }
    let dataset: DatasetKind? = c[1].text.isEmpty ? nil : try typed(1, { DatasetKind.recorded($0) })
    key = ResultKey(
      dataset: dataset, rows: try int(2, max: 1 << 40), store: try typed(3, ResultStore.init(csv:)),
      mode: try typed(4, ResultMode.init(csv:)), batchSize: try int(5, max: 1 << 30), index: IndexTag(csv: c[6].text),
      scenario: try typed(7, ResultScenario.init(csv:)))
    let unit = try typed(10, Metric.Unit.init(rawValue:))
    (runID, metric) = (c[0].text, Metric.named(c[8].text, unit: unit))
    (value, min, max, repetitions) = (try num(9), try num(11), try num(12), try int(13))
    if metric.isNonNegative, let negative = [value, min, max].first(where: { $0 < 0 }) {
      throw ResultsFileError.negative(metric: metric.name, value: negative, unit: metric.unit.rawValue)
    }
    (status, error) = (try typed(14, ResultStatus.init(rawValue:)), c[15].text)
    machine = Machine(
      cores: try int(16), memoryBytes: try int(17), os: c[18].text, swiftVersion: c[19].text, gitCommit: c[20].text,
      processor: c.count > 23 ? c[23].text : "", speed: c.count > 24 ? MachineSpeed(recorded: c[24].text) : nil)
    datasetSHA256 = c[21].text
    detail = c.count > 22 ? c[22].text : ""
  }

  /// One cell of a results file: text in results.csv, a typed member in results.json.
  package enum Cell: Equatable, Sendable {
    case text(String)
    case integer(Int)
    case real(Double)

    /// As results.csv writes it: integers whole, reals as `ResultRow.number` rounds them.
    package var text: String {
      switch self {
      case .text(let s): s
      case .integer(let i): String(i)
      case .real(let d): ResultRow.number(d)
      }
    }

    /// The number a cell holds: its value, or its text read as one (results.csv's).
    var number: Double? {
      switch self {
      case .text(let s): Double(s)
      case .integer(let i): Double(i)
      case .real(let d): d
      }
    }
  }
}

/// results.json: one object per row, keyed by the CSV's column names, numbers as numbers.
extension ResultRow: Codable {
  private struct Column: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  package func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Column.self)
    for (name, cell) in zip(Self.columns, cells) {
      let key = Column(stringValue: name)
      switch cell {
      case .text(let s): try c.encode(s, forKey: key)
      case .integer(let i): try c.encode(i, forKey: key)
      case .real(let d): try c.encode(d, forKey: key)
      }
    }
    if !samples.isEmpty { try c.encode(samples, forKey: Column(stringValue: "samples")) }
    if processes > 1 { try c.encode(processes, forKey: Column(stringValue: "processes")) }
  }

  package init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Column.self)
    let cells = try Self.columns.map { name -> Cell in
      let key = Column(stringValue: name)
      if Self.integerColumns.contains(name) { return .integer(try c.decode(Int.self, forKey: key)) }
      if Self.realColumns.contains(name) { return .real(try c.decode(Double.self, forKey: key)) }
      // Runs recorded before `detail`, `processor` or `machine_speed` have none.
      if name == "detail" || name == "processor" || name == "machine_speed" {
        return .text(try c.decodeIfPresent(String.self, forKey: key) ?? "")
      }
      return .text(try c.decode(String.self, forKey: key))
    }
    try self.init(cells: cells)
    samples = try c.decodeIfPresent([Double].self, forKey: Column(stringValue: "samples")) ?? []
    processes = try c.decodeIfPresent(Int.self, forKey: Column(stringValue: "processes")) ?? 1
  }

  package static let integerColumns: Set<String> = ["rows", "batch_size", "repetitions", "cores", "memory_bytes"]
  package static let realColumns: Set<String> = ["value", "min", "max"]
}

/// The machine and build a run was made on.
package struct Machine: Sendable, Codable, Equatable {
  package var cores: Int
  package var memoryBytes: Int
  package var os: String
  package var swiftVersion: String
  /// The commit's short hash, with `-dirty` when tracked files differed from it.
  package var gitCommit: String
  /// The processor's model and cache sizes (`Processor`'s description); empty in runs recorded
  /// before it was.
  package var processor: String
  /// Two fixed pieces of work timed at the start of the run; nil in runs recorded before they were.
  package var speed: MachineSpeed?

  package init(
    cores: Int, memoryBytes: Int, os: String, swiftVersion: String, gitCommit: String, processor: String = "",
    speed: MachineSpeed? = nil
  ) {
    self.cores = cores
    self.memoryBytes = memoryBytes
    self.os = os
    self.swiftVersion = swiftVersion
    self.gitCommit = gitCommit
    self.processor = processor
    self.speed = speed
  }

  /// "AMD EPYC 7B13 (L1d 32 KiB, L2 512 KiB, L3 32 MiB), 2 cores, 23 GiB, Debian …, Swift …,
  /// which sorted 1,000,000 integers in … ms …": the machine as a report's heading names it. O(1).
  package var summary: String {
    let cpu = processor.isEmpty ? "processor not recorded" : processor
    let base = "\(cpu), \(cores) cores, \(memoryBytes >> 30) GiB, \(os), \(swiftVersion)"
    return speed.map { "\(base), which \($0)" } ?? base
  }

  /// "a clean tree", "uncommitted changes" or "no git commit": what the commit says of the
  /// files measured, for a heading.
  package var commitSummary: String {
    gitCommit.hasSuffix("-dirty") ? "uncommitted changes" : gitCommit == "unknown" ? "no git commit" : "a clean tree"
  }

  private enum CodingKeys: String, CodingKey {
    case cores, memoryBytes, os, swiftVersion, gitCommit, processor, speed
  }

  package init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      cores: try c.decode(Int.self, forKey: .cores), memoryBytes: try c.decode(Int.self, forKey: .memoryBytes),
      os: try c.decode(String.self, forKey: .os), swiftVersion: try c.decode(String.self, forKey: .swiftVersion),
      gitCommit: try c.decode(String.self, forKey: .gitCommit),
      processor: try c.decodeIfPresent(String.self, forKey: .processor) ?? "",
      speed: try c.decodeIfPresent(MachineSpeed.self, forKey: .speed))
  }
}

/// RFC 4180 CSV for results: quoted where needed, read back exactly.
///
/// A text cell that a spreadsheet would run as a formula (it begins with `=`, `+`, `-`, `@`, a
/// tab or a carriage return, as an error message from a child can) gets a leading `'`, as
/// OWASP's CSV-injection guidance recommends; `decode` removes it again, so text round-trips.
package enum ResultsCSV {
  package static func encode(_ rows: [ResultRow]) -> String {
    var out = ResultRow.columns.joined(separator: ",") + "\n"
    for r in rows {
      out +=
        r.fields.enumerated().map { i, f in quote(textColumns.contains(i) ? neutralised(f) : f) }.joined(separator: ",")
        + "\n"
    }
    return out
  }

  /// The columns holding text (the others are numbers, whose `-` is a sign).
  package static let textColumns: Set<Int> = {
    let numeric = ResultRow.integerColumns.union(ResultRow.realColumns)
    return Set(ResultRow.columns.indices.filter { !numeric.contains(ResultRow.columns[$0]) })
  }()

  /// Whether a spreadsheet could take `s` for a formula; a leading `'` before such text counts
  /// too, so that a cell that really begins with one survives the round trip.
  package static func needsGuard(_ s: Substring) -> Bool {
    guard let c = s.first else { return false }
    return "=+-@\t\r".contains(c) || (c == "'" && needsGuard(s.dropFirst()))
  }

  package static func neutralised(_ s: String) -> String { needsGuard(s[...]) ? "'" + s : s }

  package static func restored(_ s: String) -> String {
    s.first == "'" && needsGuard(s.dropFirst()) ? String(s.dropFirst()) : s
  }

  package static func quote(_ s: String) -> String {
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
    return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// Parses CSV text written by `encode` (or any RFC 4180 file with the same header).
  package static func decode(_ text: String) throws -> [ResultRow] {
    let records = records(text)
    // Runs recorded before `machine_speed` lack its column, before `processor` two, and before
    // `detail` three.
    guard let header = records.first, (0...3).contains(where: { header == Array(ResultRow.columns.dropLast($0)) })
    else {
      throw ResultsFileError.badHeader(expected: ResultRow.columns.joined(separator: ","))
    }
    return try records.dropFirst().map { record in
      try ResultRow(fields: record.enumerated().map { i, f in textColumns.contains(i) ? restored(f) : f })
    }
  }

  /// The records of RFC 4180 CSV text, each a list of its fields. O(length).
  package static func records(_ text: String) -> [[String]] {
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
    return records
  }
}
