import FetchBenchKit
import Foundation
import GRDB
import TestSupport
import Testing

/// The workflow the documentation gives to copy (docs/ci/github-actions.yml): its shell steps,
/// read from the file, run in order as a runner runs them (`bash -e`), with FetchBench already
/// built, the base and the head checked out as folders, and a file for `$GITHUB_STEP_SUMMARY`.
@Suite struct Workflow {
  struct Step {
    var job: String
    var name: String
    var script: String
  }

  /// The workflow's `LIST` and its jobs' `run:` steps, in order. Reads only the shapes the
  /// file uses: a folded `>-` value and one-line or `|` block scripts.
  static func read(_ yaml: String) -> (list: String, steps: [Step]) {
    let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }
    var list = ""
    var steps: [Step] = []
    var (job, name) = ("", "")
    var i = 0
    while i < lines.count {
      let line = lines[i]
      let text = line.trimmingCharacters(in: .whitespaces)
      if line == "  LIST: >-" {
        while i + 1 < lines.count, indent(lines[i + 1]) > 2 {
          i += 1
          list += (list.isEmpty ? "" : " ") + lines[i].trimmingCharacters(in: .whitespaces)
        }
      } else if indent(line) == 2, text.hasSuffix(":"), !text.contains(" ") {
        job = String(text.dropLast())
      } else if text.hasPrefix("- name: ") {
        name = String(text.dropFirst("- name: ".count))
      } else if text == "run: |" {
        let depth = indent(line)
        var script: [String] = []
        while i + 1 < lines.count, indent(lines[i + 1]) > depth || lines[i + 1].isEmpty {
          i += 1
          script.append(String(lines[i].dropFirst(min(depth + 2, lines[i].count))))
        }
        steps.append(Step(job: job, name: name, script: script.joined(separator: "\n")))
      } else if text.hasPrefix("run: ") {
        steps.append(Step(job: job, name: name, script: String(text.dropFirst("run: ".count))))
      }
      i += 1
    }
    return (list, steps)
  }

  /// `Model.sqlite` with the workflow's `Item` list: 3,000 items, dated.
  static func model(in dir: String) throws {
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let db = try DatabaseQueue(path: dir + "/Model.sqlite")
    try db.write { db in
      try db.execute(sql: "CREATE TABLE Item (id INTEGER PRIMARY KEY, date DATETIME, title TEXT NOT NULL)")
      for i in 1...3_000 {
        try db.execute(
          sql: "INSERT INTO Item VALUES (?, ?, ?)", arguments: [i, Double(i * 7_919 % 3_001) * 60, "item \(i)"])
      }
    }
    try db.close()
  }

  func run(_ step: Step, in dir: String, environment: [String: String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-e", "-c", step.script]
    process.currentDirectoryURL = URL(fileURLWithPath: dir)
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// The workflow's commented `LIST` for a Core Data model: its `# LIST: >-` block's words.
  static func modelList(_ yaml: String) -> String? {
    let lines = yaml.split(separator: "\n").map(String.init)
    guard let start = lines.firstIndex(of: "  # LIST: >-") else { return nil }
    return lines[(start + 1)...].prefix { $0.hasPrefix("  #   ") }.map { $0.dropFirst(6) }.joined(separator: " ")
  }

  /// The compare job on the model's LIST, the head's model adding a fetch index: both sides
  /// measure, and compare names the two models and judges the figures.
  @Test func theModelListComparesTheBasesModelWithTheHeads() throws {
    let dir = TestSupport.temporaryFolder("workflow-model")
    defer { TestSupport.remove(dir) }
    let yaml = try String(
      contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/ci/github-actions.yml"), encoding: .utf8)
    let list = try #require(Self.modelList(yaml)).replacingOccurrences(of: "--rows 100000", with: "--rows 2000")
    #expect(list.hasPrefix("--model MyApp/MyApp.xcdatamodeld --entity Item --rows 2000"), "\(list)")
    try FileManager.default.createDirectory(
      atPath: dir + "/fetchbench/.build/release", withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: dir + "/fetchbench/.build/release/fetchbench", withDestinationPath: TestSupport.executable.path)
    for side in ["base", "head"] {
      try FileManager.default.createDirectory(atPath: "\(dir)/\(side)/MyApp", withIntermediateDirectories: true)
      let package = try ModelFiles.package("\(dir)/\(side)/MyApp")
      try FileManager.default.moveItem(atPath: package, toPath: "\(dir)/\(side)/MyApp/MyApp.xcdatamodeld")
    }
    let current = dir + "/head/MyApp/MyApp.xcdatamodeld/Notes 2.xcdatamodel/contents"
    let contents = try String(contentsOfFile: current, encoding: .utf8)
    let indexed = contents.replacingOccurrences(
      of: #"<fetchIndex name="byCreated">"#,
      with:
        #"<fetchIndex name="byCreatedAlone"><fetchIndexElement property="created" type="Binary" order="descending"/></fetchIndex><fetchIndex name="byCreated">"#
    )
    #expect(indexed != contents)
    try indexed.write(toFile: current, atomically: true, encoding: .utf8)
    let (_, steps) = Self.read(yaml)
    var statuses: [String: Int32] = [:]
    for step in steps
    where step.job == "compare" && !step.script.contains("swift build") && !step.name.contains("history") {
      let summary = "\(dir)/summary.md"
      statuses[step.name] = try run(step, in: dir, environment: ["LIST": list, "GITHUB_STEP_SUMMARY": summary])
    }
    #expect(statuses["Measure the base"] == 0 && statuses["Measure the head"] == 0, "\(statuses)")
    let compared = try String(contentsOfFile: dir + "/summary.md", encoding: .utf8)
    #expect([0, 2].contains(statuses["Compare"]), "\(statuses)\n\(compared)")
    #expect(compared.contains("The models differ (Item, 2,000 rows generated from model"), "\(compared)")
  }

  @Test func theWorkflowsStepsRunInSequence() throws {
    let dir = TestSupport.temporaryFolder("workflow")
    defer { TestSupport.remove(dir) }
    let yaml = try String(
      contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/ci/github-actions.yml"), encoding: .utf8)
    let (list, steps) = Self.read(yaml)
    #expect(list.hasPrefix("--db Model.sqlite --entity Item"), "\(list)")
    #expect(steps.map(\.name).filter { $0.hasPrefix("Build") }.count == 2)

    // The runner's workspace: FetchBench built, the base and the head checked out.
    try FileManager.default.createDirectory(
      atPath: dir + "/fetchbench/.build/release", withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: dir + "/fetchbench/.build/release/fetchbench", withDestinationPath: TestSupport.executable.path)
    try Self.model(in: dir + "/base")
    try Self.model(in: dir + "/head")
    try FileManager.default.createDirectory(atPath: dir + "/head/ci", withIntermediateDirectories: true)
    try Data(
      #"{"repetitions": 3, "lists": [{"name": "items", "db": "Model.sqlite", "entity": "Item", "sort": "date desc", "stores": ["sqlite"]}]}"#
        .utf8
    ).write(to: URL(fileURLWithPath: dir + "/head/ci/lists.json"))
    // The baseline the team committed beside its matrix.
    let recorded = try TestSupport.run(
      ["check", "--matrix", "ci/lists.json", "--update", "--update-runs", "1"], currentDirectory: dir + "/head")
    #expect(recorded.status == 0, "\(recorded.stderr)")

    var statuses: [String: Int32] = [:]
    for step in steps where !step.script.contains("swift build") {
      let summary = "\(dir)/summary-\(step.job).md"
      statuses["\(step.job)/\(step.name)"] = try run(
        step, in: dir, environment: ["LIST": list, "GITHUB_STEP_SUMMARY": summary])
    }
    #expect(statuses["compare/Measure the base"] == 0 && statuses["compare/Measure the head"] == 0, "\(statuses)")
    // Unchanged code on a loaded machine may see a time move: 0, or 2 with it named.
    let compared = try String(contentsOfFile: dir + "/summary-compare.md", encoding: .utf8)
    #expect([0, 2].contains(statuses["compare/Compare"]), "\(statuses)\n\(compared)")
    #expect(compared.hasPrefix("### FetchBench: ") && compared.contains("<details><summary>"), "\(compared)")
    #expect(!compared.contains("| changed |"), "a counter changed between identical runs: \(compared)")
    // Three processes a side: the times are judged, not left out for too few processes.
    #expect(!compared.contains("too few processes") && compared.contains("3 and 3 processes"), "\(compared)")
    let exported = try JSONSerialization.jsonObject(
      with: Data(contentsOf: URL(fileURLWithPath: dir + "/runs/export/smaller-is-better.json")))
    #expect((exported as? [[String: Any]])?.isEmpty == false)

    let gated = try String(contentsOfFile: dir + "/summary-gate.md", encoding: .utf8)
    #expect(gated.contains("# fetchbench check: items (3,000 rows)"), "\(gated)")
    #expect(gated.contains("| `items/sqlite/first_screen/batched/queries` | counter | 2 | 2 |"), "\(gated)")
    // A time ratio may be over tolerance twice on a loaded machine; a counter never.
    let regressed = gated.split(separator: "\n").filter { $0.hasSuffix("| **REGRESSION** |") }
    #expect(statuses["gate/Gate"] == (regressed.isEmpty ? 0 : 2), "\(statuses)\n\(gated)")
    #expect(regressed.allSatisfy { $0.contains("| ratio |") }, "\(gated)")
  }
}
