import FetchBenchKit
import Foundation
import ResultModel
import TestSupport
import Testing

/// Errors that name the right thing, in one line.
@Suite struct ClearErrors {
  @Test func helpForACommandThatDoesNotExistIsAUsageError() throws {
    let out = try TestSupport.run(["help", "frobnicate"])
    #expect(
      out.status == 64 && out.stderr.contains("no command 'frobnicate'; the commands are generate, fetch"),
      "\(out.stderr)")
    #expect(try TestSupport.run(["help", "fetch"]).status == 0)
  }

  @Test func aRelationshipWhereAnAttributeBelongsIsNamedAsOne() throws {
    let out = try TestSupport.run(["fetch", "--sort", "details asc", "--datasets", "/nonexistent"])
    #expect(out.status == 64, "\(out.stderr)")
    #expect(
      out.stderr.contains("'details' is a to-one relationship of FailedBankInfo, not an attribute"), "\(out.stderr)")
  }

  /// diff and load track changes with FetchBench's statements: Core Data's statements are
  /// refused there, and the refusal says where Core Data's change rules are.
  @Test func coreDatasStatementsPointToCoreDatasChangeRules() throws {
    let diff = try TestSupport.run(["diff", "--store", "sqlite-coredata", "--datasets", "/nonexistent"])
    #expect(
      diff.status == 64 && diff.stderr.contains("diff applies Core Data's change rules beside the minimal ones"),
      "\(diff.stderr)")
    let load = try TestSupport.run(["load", "--store", "sqlite-coredata", "--datasets", "/nonexistent"])
    #expect(
      load.status == 64 && load.stderr.contains("for Core Data's change rules give --change-rules coredata"),
      "\(load.stderr)")
  }

  /// An option the command would ignore is a usage error naming it: the datasets' options
  /// beside --like, --model or --db, a variable given twice or filling nothing.
  @Test(arguments: [
    (
      ["generate", "--model", "/m", "--entity", "Note", "--index", "title"],
      "--index is for the banks and wells datasets; --model writes"
    ),
    (
      ["generate", "--model", "/m", "--entity", "Note", "--format", "csv"],
      "--format is for the banks and wells datasets; --model writes"
    ),
    (
      ["generate", "--like", "/db", "--entity", "t", "--dataset", "banks"],
      "--dataset is for the banks and wells datasets; --like writes"
    ),
    (
      ["generate", "--like", "/db", "--entity", "t", "--schema", "coredata"],
      "--schema is for the banks and wells datasets"
    ),
    (
      ["generate", "--like", "/db", "--model", "/m", "--entity", "t"], "--like and --model each name a source: give one"
    ),
    (["generate", "--entity", "t"], "--entity names the list of --like or --model"),
    (
      ["fetch", "--db", "/db", "--entity", "t", "--dataset", "wells"],
      "--dataset is for the banks and wells datasets; --db reads your own list"
    ),
    (
      ["fetch", "--db", "/db", "--entity", "t", "--index", "name"],
      "--index is for the banks and wells datasets; --db reads"
    ),
    (["fetch", "--where", "name BEGINSWITH $P", "--var", "P=A", "--var", "P=B"], "--var P is given twice"),
    (
      ["fetch", "--where", "name BEGINSWITH $P", "--var", "P=A", "--var", "Q=B"],
      "the variable 'Q' fills no $Q of the predicate"
    ),
    (["run", "--where", "name BEGINSWITH 'A'", "--var", "Q=B"], "the variable 'Q' fills no $Q of the predicate"),
  ])
  func anIgnoredOptionIsAUsageError(arguments: [String], message: String) throws {
    let out = try TestSupport.run(arguments + ["--datasets", "/nonexistent"])
    #expect(out.status == 64 && out.stderr.contains(message), "\(arguments): \(out.stderr)")
  }

  @Test func jsonWithoutRecommendIsAUsageError() throws {
    let out = try TestSupport.run(["run", "--json", "--datasets", "/nonexistent"])
    #expect(
      out.status == 64 && out.stderr.contains("--json prints the recommendation as JSON: give --recommend too"),
      "\(out.stderr)")
  }

  /// `report DIR` on a folder that is not a run's, and a run's whose `charts` is a file of the
  /// user's: each problem in one `Error:` line, nothing replaced.
  @Test func reportNamesWhatIsWrongWithItsFolder() throws {
    let dir = TestSupport.temporaryFolder("report-errors")
    defer { TestSupport.remove(dir) }
    try FileManager.default.createDirectory(atPath: dir + "/binary", withIntermediateDirectories: true)
    try Data([0xFF, 0xFE, 0x00, 0x41]).write(to: URL(fileURLWithPath: dir + "/binary/results.csv"))
    try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: dir + "/folder/results.csv", withIntermediateDirectories: true)
    for (folder, message) in [
      ("binary", "is not UTF-8 text"), ("empty", "holds no results.json or results.csv"),
      ("folder", "is a folder, not a results file"),
    ] {
      let out = try TestSupport.run(["report", dir + "/" + folder])
      #expect(out.status == 1 && out.stderr.contains(message), "\(folder): \(out.stderr)")
      #expect(UserFiles.errorLines(out.stderr).count == 1, "\(out.stderr)")
    }

    let datasets = try UserFiles.banks(300, in: dir)
    let run = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "full,batched", "--scenario",
      "first_screen",
      "--repetitions", "1", "--no-index", "--datasets", datasets, "--out", dir + "/out",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    // A hand-edited batch size beyond any run's is an error naming the column, not a trap.
    let csv = try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8)
    try FileManager.default.createDirectory(atPath: dir + "/huge", withIntermediateDirectories: true)
    try Data(csv.replacingOccurrences(of: ",batched,20,", with: ",batched,9223372036854775807,").utf8).write(
      to: URL(fileURLWithPath: dir + "/huge/results.csv"))
    let huge = try TestSupport.run(["report", dir + "/huge"])
    #expect(
      huge.status == 1 && huge.stderr.contains("batch_size '9223372036854775807' is not a whole number"),
      "\(huge.stderr)")
    // One source of truth per folder: results.json, checked against results.csv beside it
    // (a header-only CSV is not "no results"), and a time below zero is refused in either.
    try FileManager.default.createDirectory(atPath: dir + "/edited", withIntermediateDirectories: true)
    for name in [OutputFolder.markerName, "results.json"] {
      try FileManager.default.copyItem(atPath: dir + "/out/" + name, toPath: dir + "/edited/" + name)
    }
    try Data((csv.split(separator: "\n").first.map(String.init) ?? "").utf8).write(
      to: URL(fileURLWithPath: dir + "/edited/results.csv"))
    let edited = try TestSupport.run(["report", dir + "/edited"])
    #expect(edited.status == 1 && edited.stderr.contains("do not hold the same figures ("), "\(edited.stderr)")
    try FileManager.default.removeItem(atPath: dir + "/edited/results.csv")
    #expect(try TestSupport.run(["report", dir + "/edited"]).status == 0)
    let json = try String(contentsOfFile: dir + "/edited/results.json", encoding: .utf8)
    let timed = try #require(
      json.range(of: #""unit" : "ms",\s+"value" : (?=[0-9.]*[1-9])"#, options: .regularExpression))
    try Data(json.replacingCharacters(in: timed, with: json[timed] + "-").utf8).write(
      to: URL(fileURLWithPath: dir + "/edited/results.json"))
    let negative = try TestSupport.run(["report", dir + "/edited"])
    #expect(negative.status == 1 && negative.stderr.contains("below zero"), "\(negative.stderr)")
    for command in [["compare", dir + "/edited", dir + "/out"], ["export", dir + "/edited", "--format", "bmf"]] {
      let read = try TestSupport.run(command)
      #expect(read.status != 0 && read.stderr.contains("below zero"), "\(command): \(read.stderr)")
    }
    // Rendered again, the folder is still run's own output: a later run may replace it.
    #expect(try TestSupport.run(["report", dir + "/out"]).status == 0)
    try FileManager.default.removeItem(atPath: dir + "/out/charts")
    try Data("mine".utf8).write(to: URL(fileURLWithPath: dir + "/out/charts"))
    let charts = try TestSupport.run(["report", dir + "/out"])
    #expect(
      charts.status == 1 && charts.stderr.contains("holds files FetchBench did not write (charts)"), "\(charts.stderr)")
    #expect(UserFiles.errorLines(charts.stderr).count == 1)
    #expect(try String(contentsOfFile: dir + "/out/charts", encoding: .utf8) == "mine")
  }

  /// A list that no row matches opens at once whatever the strategy: no recommendation is
  /// made of it, and the error says why.
  @Test func anEmptyListGetsNoRecommendation() throws {
    let dir = TestSupport.temporaryFolder("empty-list")
    defer { TestSupport.remove(dir) }
    let datasets = try UserFiles.banks(300, in: dir)
    let out = try TestSupport.run([
      "run", "--recommend", "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "full,batched",
      "--where", "state = 'ZZ'", "--repetitions", "1", "--no-index", "--datasets", datasets, "--out", dir + "/out",
    ])
    #expect(
      out.status == 1 && out.stderr.contains("the list is empty (no row matches --where \"state = 'ZZ'\")"),
      "\(out.stderr)")
    #expect(UserFiles.errorLines(out.stderr).count == 1, "\(out.stderr)")
    #expect(out.stdout.isEmpty, "\(out.stdout)")
  }

  /// A journal file cut short (a full disk, an edit) is named as the journal's, with what to do.
  @Test func aTruncatedJournalFileIsNamed() throws {
    let dir = TestSupport.temporaryFolder("journal")
    defer { TestSupport.remove(dir) }
    let datasets = try UserFiles.banks(300, in: dir)
    let run = [
      "run", "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "full,batched", "--scenario",
      "first_screen",
      "--repetitions", "1", "--no-index", "--datasets", datasets, "--out", dir + "/out",
    ]
    let first = try TestSupport.run(run + ["--max-minutes", "0"])
    #expect(first.status == 75, "\(first.stderr)")
    let kept = dir + "/out.unfinished/case-00000.csv"
    try Data("run_id,data".utf8).write(to: URL(fileURLWithPath: kept))
    let resumed = try TestSupport.run(run + ["--resume"])
    #expect(resumed.status == 1, "\(resumed.stderr)")
    #expect(
      resumed.stderr.contains("\(kept), a finished case kept by the unfinished run, is unreadable"), "\(resumed.stderr)"
    )
    #expect(UserFiles.errorLines(resumed.stderr).count == 1)
  }
}
