import Foundation
import TestSupport
import Testing

/// The README's command table, run as a user copies it (#54): each example against a small
/// Core Data store made here (`MyApp.sqlite`, entity `Flight`), in a folder of the test's own.
/// Examples that measure for minutes at 244,292 rows (`run --quick`, `diff --quick`, `load`,
/// `check`, `fetch --dataset banks`) are parsed and checked only; the rest run whole.
@Suite struct DocumentedCommands {
  /// The table's examples, as written.
  static func examples() throws -> [String] {
    let readme = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let table = readme.components(separatedBy: "## Commands")[1].components(separatedBy: "\n\n")[1]
    return table.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("| `"), line.hasSuffix("` |"), let start = line.range(of: "| `fetchbench ", options: .backwards) else {
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
    // results/latest and results/runs/BASE: a run of the store's list, as `run` writes it.
    let run = try TestSupport.run(
      ["run", "--db", "MyApp.sqlite", "--entity", "Flight", "--store", "memory", "--scenario", "first_screen", "--repetitions", "1"],
      currentDirectory: dir)
    #expect(run.status == 0, "\(run.stderr)")
    let base = try #require(try FileManager.default.contentsOfDirectory(atPath: dir + "/results/runs").first)
    try Data(#"{"lists": [{"name": "flights", "db": "MyApp.sqlite", "entity": "Flight", "sort": "departure desc"}]}"#.utf8).write(
      to: URL(fileURLWithPath: dir + "/lists.json"))
    for example in examples {
      let arguments = Self.words(
        example.replacingOccurrences(of: "results/runs/BASE", with: "results/runs/" + base)
          .replacingOccurrences(of: "ci/lists.json", with: "lists.json")
          .replacingOccurrences(of: "--rows 2000000", with: "--rows 20000"))
      let checkOnly = Self.checkedOnly.contains { example.hasPrefix($0) }
      let out = try TestSupport.run(arguments, currentDirectory: dir, environment: checkOnly ? ["FETCHBENCH_VALIDATE_ONLY": "1"] : [:])
      #expect(out.status == 0, "fetchbench \(example): \(out.stderr)\(out.stdout.prefix(3000))")
    }
  }
}
