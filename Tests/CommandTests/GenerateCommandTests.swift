import Datasets
import Foundation
import GRDB
import TestSupport
import Testing

/// The command line's contract on bad input: a clear error, a non-zero exit, nothing written.
@Suite struct GenerateCommand {
  @Test(arguments: [
    (["--rows", "0"], "--rows must be between 1 and 10,000,000, got 0"),
    (["--rows", "-5"], "--rows must be between 1 and 10,000,000, got -5"),
    (["--rows", "10000001"], "got 10000001"),
    (["--dataset", "planes"], "unknown dataset 'planes'"),
    (["--format", "parquet"], "unknown format 'parquet'"),
    (["--index", "nonexistent_column"], "cannot index 'nonexistent_column'"),
  ])
  func badInputFailsClearlyAndWritesNothing(arguments: [String], message: String) throws {
    let dir = TestSupport.temporaryFolder("bad")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run(["generate", "--datasets", dir + "/out", "--rows", "100"] + arguments)
    #expect(out.status != 0)
    #expect(out.stderr.contains(message), "stderr: \(out.stderr)")
    #expect(TestSupport.listing(dir).isEmpty)
  }

  /// `--datasets` names the folder as every other command does; the former `--out` still
  /// works, with a warning, and the two together are a usage error.
  @Test func theFormerOutStillWorksWithAWarning() throws {
    let dir = TestSupport.temporaryFolder("out-alias")
    defer { TestSupport.remove(dir) }
    let former = try TestSupport.run([
      "generate", "--dataset", "banks", "--rows", "100", "--format", "sqlite", "--out", dir + "/a",
    ])
    #expect(
      former.status == 0 && former.stderr.contains("warning: generate --out is now --datasets"), "\(former.stderr)")
    #expect(
      TestSupport.listing(dir + "/a").contains { $0.hasPrefix("banks-100") && $0.hasSuffix(".sqlite") },
      "\(TestSupport.listing(dir + "/a"))")
    let both = try TestSupport.run(["generate", "--rows", "100", "--datasets", dir + "/b", "--out", dir + "/c"])
    #expect(both.status == 64 && both.stderr.contains("--out is the former name of --datasets"), "\(both.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/b") && !FileManager.default.fileExists(atPath: dir + "/c"))
  }

  @Test func unwritableOutputFolderFailsClearly() throws {
    let dir = TestSupport.temporaryFolder("unwritable")
    defer { TestSupport.remove(dir) }
    let file = dir + "/a-file"
    _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
    let out = try TestSupport.run(["generate", "--rows", "100", "--datasets", file + "/sub"])
    #expect(out.status != 0)
    #expect(out.stderr.contains("cannot write \(file)/sub"), "stderr: \(out.stderr)")
    #expect(TestSupport.listing(dir) == ["a-file"])
  }

  @Test func writesWhatItSaysAndKeepsExistingWithIfMissing() throws {
    let dir = TestSupport.temporaryFolder("ok")
    defer { TestSupport.remove(dir) }
    let first = try TestSupport.run(["generate", "--rows", "500", "--seed", "9", "--datasets", dir])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout.contains("banks: wrote \(dir)/banks-500-s9.sqlite"))
    #expect(first.stdout.contains("rows/s"))
    #expect(first.stdout.contains("sha256"))
    #expect(
      TestSupport.listing(dir) == [
        "banks-500-s9", "banks-500-s9.sqlite", "banks-500-s9/failed_bank_details.csv",
        "banks-500-s9/failed_bank_info.csv", "manifest.json", "wells-500-s9", "wells-500-s9.sqlite",
        "wells-500-s9/wells.csv",
      ])
    let again = try TestSupport.run(
      ["generate", "--rows", "500", "--seed", "9", "--datasets", dir, "--if-missing"])
    #expect(again.status == 0)
    #expect(again.stdout.contains("kept"))
    let indexed = try TestSupport.run(
      [
        "generate", "--dataset", "banks", "--rows", "500", "--seed", "9", "--datasets", dir, "--index", "close_date",
        "--format", "sqlite",
      ])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    #expect(FileManager.default.fileExists(atPath: "\(dir)/banks-500-s9.idx-close_date.sqlite"))
  }

  @Test func aTamperedManifestIsReportedAndNothingIsReplaced() throws {
    let dir = TestSupport.temporaryFolder("tamper")
    defer { TestSupport.remove(dir) }
    #expect(try TestSupport.run(["generate", "--dataset", "wells", "--rows", "300", "--datasets", dir]).status == 0)
    let manifestPath = dir + "/manifest.json"
    var manifest = try Manifest.load(from: manifestPath)
    manifest.datasets[0].tables[0].sha256 = String(repeating: "0", count: 64)
    try manifest.save(to: manifestPath)
    let before = try FileManager.default.attributesOfItem(atPath: dir + "/wells-300.sqlite")[.modificationDate] as? Date
    let out = try TestSupport.run(["generate", "--dataset", "wells", "--rows", "300", "--datasets", dir])
    #expect(out.status != 0)
    #expect(out.stderr.contains("differs from the manifest"), "\(out.stderr)")
    let after = try FileManager.default.attributesOfItem(atPath: dir + "/wells-300.sqlite")[.modificationDate] as? Date
    #expect(before == after)
    #expect(!TestSupport.listing(dir).contains { $0.contains(".partial-") })
  }

  /// Ctrl-C, `kill` and a closed terminal (SIGHUP) alike.
  @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
  func anInterruptedRunLeavesNothingHalfWritten(signal: Int32) throws {
    let dir = TestSupport.temporaryFolder("interrupt")
    defer { TestSupport.remove(dir) }
    let running = try TestSupport.start(
      ["generate", "--dataset", "wells", "--rows", "5000000", "--datasets", dir])
    // Wait until the temporary files (`NAME.partial-PID-N`) exist, then interrupt.
    let deadline = Date().addingTimeInterval(30)
    while !TestSupport.listing(dir).contains(where: { $0.contains(".partial-") }) && Date() < deadline {
      usleep(20_000)
    }
    usleep(200_000)
    kill(running.pid, signal)
    let out = running.wait()
    #expect(out.status == 128 + signal, "status \(out.status), stderr: \(out.stderr)")
    #expect(TestSupport.listing(dir).filter { !$0.hasPrefix("manifest") }.isEmpty, "\(TestSupport.listing(dir))")
  }
}

/// A dataset file is what its manifest says or an error says it is not: row counts on every
/// kept file, every row's checksum where results are written; and a file FetchBench did not
/// write is never replaced.
@Suite struct DatasetTruth {
  /// Runs SQL on a dataset file, as a user editing it would.
  static func edit(_ path: String, _ sql: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { try $0.execute(sql: sql) }
    try queue.close()
  }

  @Test func aFileCutShortIsNotKept() throws {
    let dir = TestSupport.temporaryFolder("cut")
    defer { TestSupport.remove(dir) }
    #expect(
      try TestSupport.run(["generate", "--dataset", "banks", "--rows", "500", "--datasets", dir, "--format", "sqlite"])
        .status == 0)
    try Self.edit(
      dir + "/banks-500.sqlite",
      "DELETE FROM failed_bank_details WHERE info_id > 100; DELETE FROM failed_bank_info WHERE id > 100")
    let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/banks-500.sqlite"))
    let kept = try TestSupport.run([
      "generate", "--dataset", "banks", "--rows", "500", "--datasets", dir, "--format", "sqlite", "--if-missing",
    ])
    #expect(kept.status == 1, "\(kept.stderr)")
    #expect(
      kept.stderr.contains(
        "banks-500.sqlite does not match its manifest entry: table failed_bank_info has 100 rows, the manifest says 500"
      ),
      "\(kept.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/banks-500.sqlite")) == before, "nothing replaced")
  }

  @Test func editedValuesAreCaughtWhereResultsAreWritten() throws {
    let dir = TestSupport.temporaryFolder("edited")
    defer { TestSupport.remove(dir) }
    #expect(
      try TestSupport.run(["generate", "--dataset", "banks", "--rows", "500", "--datasets", dir, "--format", "sqlite"])
        .status == 0)
    try Self.edit(dir + "/banks-500.sqlite", "UPDATE failed_bank_info SET name = 'Edited' WHERE id = 7")
    let run = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "500", "--store", "memory", "--scenario", "first_screen", "--no-index",
      "--repetitions", "1",
      "--datasets", dir, "--out", dir + "/out",
    ])
    #expect(run.status == 1, "\(run.stderr)")
    #expect(
      run.stderr.contains("table failed_bank_info has SHA-256") && run.stderr.contains("its values were changed"),
      "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"), "no results labelled with the manifest's checksum")
  }

  @Test func aFileFetchBenchDidNotWriteIsNeverReplaced() throws {
    let dir = TestSupport.temporaryFolder("foreign")
    defer { TestSupport.remove(dir) }
    try Data("my notes".utf8).write(to: URL(fileURLWithPath: dir + "/banks-500.sqlite"))
    for extra in [[], ["--if-missing"]] {
      let out = try TestSupport.run(
        ["generate", "--dataset", "banks", "--rows", "500", "--datasets", dir, "--format", "sqlite"] + extra)
      #expect(out.status == 1, "\(out.stderr)")
      #expect(
        out.stderr.contains("banks-500.sqlite exists but \(dir)/manifest.json has no entry for it"), "\(out.stderr)")
    }
    let run = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "500", "--store", "memory", "--no-index", "--datasets", dir, "--out",
      dir + "/out",
    ])
    #expect(
      run.status == 1 && run.stderr.contains("FetchBench does not replace a file it did not write"), "\(run.stderr)")
    #expect(try String(contentsOfFile: dir + "/banks-500.sqlite", encoding: .utf8) == "my notes")
  }
}
