import Foundation
import GRDB
import TestSupport
import Testing

/// The README's command table, run as a user copies it: each example against a small
/// Core Data store made here (`MyApp.sqlite`, entity `Flight`), in a folder of the test's own.
/// Examples that measure for minutes at 244,292 rows (`run --quick`, `diff --quick`, `load`,
/// `check`, `fetch --dataset banks`) are parsed and checked only; the rest run whole.
@Suite struct DocumentedCommands {
  /// The table's examples, as written.
  static func examples() throws -> [String] {
    let readme = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let table = readme.components(separatedBy: "## Commands")[1].components(separatedBy: "\n\n")[1]
    return table.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("| `"), line.hasSuffix("` |"),
        let start = line.range(of: "| `fetchbench ", options: .backwards)
      else {
        return nil
      }
      return String(line[start.upperBound..<line.index(line.endIndex, offsetBy: -3)])
    }
  }

  /// `text` split as a shell splits it: words, and single-quoted words whole.
  static func words(_ text: String) -> [String] {
    var out: [String] = []
    var word = ""
    var quoted = false
    for c in text {
      if c == "'" {
        quoted.toggle()
      } else if c == " " && !quoted {
        if !word.isEmpty { out.append(word) }
        word = ""
      } else {
        word.append(c)
      }
    }
    if !word.isEmpty { out.append(word) }
    return out
  }

  static let checkedOnly = ["run --quick", "diff --quick", "load ", "check ", "fetch --dataset"]

  @Test func everyExampleOfTheCommandTableRuns() throws {
    let dir = TestSupport.temporaryFolder("documented")
    defer { TestSupport.remove(dir) }
    try UserDatabaseFixture.coreData(dir + "/MyApp.sqlite")
    let examples = try Self.examples()
    #expect(examples.count >= 12, "\(examples)")
    // results/latest and results/runs/BASE: a run of the list the table's `run --recommend`
    // measures, as `run` writes it, so that `compare` meets the same list.
    let runArguments = [
      "run", "--db", "MyApp.sqlite", "--entity", "Flight", "--sort", "departure desc", "--store", "memory",
      "--scenario",
      "first_screen",
    ]
    let run = try TestSupport.run(runArguments, currentDirectory: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stdout.contains("Flight at 1,500 rows, in-memory store: "), "the entity as the store spells it: \(run.stdout)"
    )
    let base = try #require(try FileManager.default.contentsOfDirectory(atPath: dir + "/results/runs").first)
    try Data(
      #"{"lists": [{"name": "flights", "db": "MyApp.sqlite", "entity": "Flight", "sort": "departure desc"}]}"#.utf8
    ).write(
      to: URL(fileURLWithPath: dir + "/lists.json"))
    for example in examples {
      // compare meets the base's list measured by the same command again: the examples before
      // it (run --recommend) leave results/latest another command's run, whose cases differ.
      if example.hasPrefix("compare ") {
        let again = try TestSupport.run(runArguments, currentDirectory: dir)
        #expect(again.status == 0, "\(again.stderr)")
      }
      let arguments = Self.words(
        example.replacingOccurrences(of: "results/runs/BASE", with: "results/runs/" + base)
          .replacingOccurrences(of: "ci/lists.json", with: "lists.json")
          .replacingOccurrences(of: "--rows 2000000", with: "--rows 20000"))
      let checkOnly = Self.checkedOnly.contains { example.hasPrefix($0) }
      let out = try TestSupport.run(
        arguments, currentDirectory: dir, environment: checkOnly ? ["FETCHBENCH_VALIDATE_ONLY": "1"] : [:])
      // compare's exit 2 is its documented verdict "a figure regressed", which two runs' timings
      // on a loaded machine may give: the example ran when it reached a verdict either way.
      let verdicts: Set<Int32> = example.hasPrefix("compare ") && !checkOnly ? [0, 2] : [0]
      #expect(verdicts.contains(out.status), "fetchbench \(example): \(out.stderr)\(out.stdout.prefix(3000))")
      if out.status == 2 { #expect(out.stdout.contains("regressed"), "\(out.stdout.prefix(3000))") }
    }
  }

  /// The commands of the README's "Your own database" section, as a user copies them (lines
  /// joined at their `\\`), against the Core Data store the section's list is written for.
  @Test func theOwnDatabaseSectionRuns() throws {
    let dir = TestSupport.temporaryFolder("own-database")
    defer { TestSupport.remove(dir) }
    try UserDatabaseFixture.coreData(dir + "/MyApp.sqlite")
    let readme = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let block = readme.components(separatedBy: "## Your own database")[1].components(separatedBy: "```sh\n")[1]
      .components(separatedBy: "```")[0]
    let commands = block.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
      .filter { $0.hasPrefix(".build/release/fetchbench ") }
      .map { String($0.dropFirst(".build/release/fetchbench ".count)) }
    #expect(commands.count == 3, "\(commands)")
    for command in commands {
      let out = try TestSupport.run(Self.words(command), currentDirectory: dir)
      #expect(
        out.status == 0 && !out.stderr.contains("FAILED"),
        "fetchbench \(command): \(out.stderr)\(out.stdout.prefix(3000))")
    }
  }

  /// `docs/ci/matrix.json` as shown, from the package's folder as the README runs it (its lists
  /// at 2,000 rows, 3 repetitions): the inbox's store is generated from the example model
  /// beside it, the baseline is recorded and the gate passes.
  @Test func theDocumentedMatrixRunsAsShown() throws {
    let dir = TestSupport.temporaryFolder("documented-matrix")
    defer { TestSupport.remove(dir) }
    let shown = try String(
      contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/ci/matrix.json"), encoding: .utf8)
    let matrix = shown.replacingOccurrences(of: "\"rows\": 244292", with: "\"rows\": 2000")
      .replacingOccurrences(of: "\"rows\": 20000", with: "\"rows\": 2000")
      .replacingOccurrences(of: "\"repetitions\": 15", with: "\"repetitions\": 3")
    #expect(matrix.components(separatedBy: "\"rows\": 2000").count == 3 && matrix.contains("\"repetitions\": 3"))
    try Data(matrix.utf8).write(to: URL(fileURLWithPath: dir + "/matrix.json"))
    let common = ["check", "--matrix", dir + "/matrix.json", "--datasets", dir + "/datasets"]
    let root = TestSupport.packageRoot.path
    let recorded = try TestSupport.run(common + ["--update", "--update-runs", "1"], currentDirectory: root)
    #expect(recorded.status == 0 && recorded.stdout.contains("wrote \(dir)/matrix.baseline.json"), "\(recorded.stderr)")
    let gate = try TestSupport.run(common, currentDirectory: root)
    #expect(gate.stdout.contains("inbox (2,000 rows), banks-by-state (2,000 rows)"), "\(gate.stdout.prefix(2000))")
    // Unchanged code on a loaded machine may see a time ratio move: 0, or 2 with it named.
    let counters = gate.stdout.split(separator: "\n").filter { $0.contains("| counter |") }
    #expect(
      !counters.isEmpty && counters.allSatisfy { $0.hasSuffix("| ok |") },
      "\(counters.filter { !$0.hasSuffix("| ok |") })")
    #expect([0, 2].contains(gate.status), "\(gate.stderr)\(gate.stdout.prefix(3000))")
  }
}
