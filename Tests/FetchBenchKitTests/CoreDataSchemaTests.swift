import DatasetStores
import FetchBenchKit
import Foundation
import GRDB
import ResultModel
import TestSupport
import Testing

/// `generate --schema coredata`: the datasets' rows as Core Data's SQLite store holds them,
/// read as a Core Data store, listing the same IDs in the same order as FetchBench's schema.
@Suite(.serialized) struct CoreDataSchema {
  @Test func theCoreDataFileHoldsTheSameRowsInCoreDatasSchema() throws {
    let dir = TestSupport.temporaryFolder("coredata")
    defer { TestSupport.remove(dir) }
    let generated = try TestSupport.run(["generate", "--rows", "1500", "--datasets", dir, "--format", "sqlite", "--schema", "coredata"])
    #expect(generated.status == 0, "\(generated.stderr)")
    #expect(generated.stdout.contains("banks: wrote \(dir)/banks-1500.coredata.sqlite (Core Data's schema): sha256 "))
    let path = dir + "/banks-1500.coredata.sqlite"
    let first = try Data(contentsOf: URL(fileURLWithPath: path))
    // Deterministic: written again, the same bytes.
    #expect(
      try TestSupport.run([
        "generate", "--dataset", "banks", "--rows", "1500", "--datasets", dir, "--format", "sqlite", "--schema", "coredata",
      ])
      .status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == first)

    let db = try DatabaseQueue(path: path)
    try db.read { db in
      #expect(try db.columns(in: "ZFAILEDBANKINFO").map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT", "ZDETAILS", "ZNAME", "ZCITY", "ZSTATE"])
      #expect(
        try db.columns(in: "ZFAILEDBANKDETAILS").map(\.name) == [
          "Z_PK", "Z_ENT", "Z_OPT", "ZINFO", "ZCLOSEDATE", "ZUPDATEDDATE", "ZZIP", "ZCERT", "ZACQUIRINGINSTITUTION", "ZFUND",
        ])
      #expect(try db.indexes(on: "ZFAILEDBANKINFO").map(\.name) == ["ZFAILEDBANKINFO_ZDETAILS_INDEX"])
      #expect(try db.indexes(on: "ZFAILEDBANKDETAILS").map(\.name) == ["ZFAILEDBANKDETAILS_ZINFO_INDEX"])
      let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
        "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)"
      }
      #expect(entities == ["1 FailedBankInfo 1500", "2 FailedBankDetails 1500"])
      // Both sides of the one-to-one point at each other, and dates count from 2001.
      let mismatched = try Int.fetchOne(
        db,
        sql: "SELECT count(*) FROM ZFAILEDBANKINFO i JOIN ZFAILEDBANKDETAILS d ON d.Z_PK = i.ZDETAILS WHERE d.ZINFO <> i.Z_PK")
      #expect(mismatched == 0)
      try db.execute(sql: "ATTACH DATABASE ? AS fb", arguments: [dir + "/banks-1500.sqlite"])
      let shifted = try Int.fetchOne(
        db,
        sql:
          "SELECT count(*) FROM ZFAILEDBANKDETAILS d JOIN fb.failed_bank_details f ON f.id = d.Z_PK WHERE d.ZCLOSEDATE = f.close_date - 978307200 AND d.ZINFO = f.info_id"
      )
      #expect(shifted == 1500)
    }
  }

  @Test(arguments: ["banks", "wells"])
  func aListInCoreDatasSchemaEqualsTheSameListInFetchBenchs(dataset: String) throws {
    let dir = TestSupport.temporaryFolder("coredata-\(dataset)")
    defer { TestSupport.remove(dir) }
    let generated = try TestSupport.run([
      "generate", "--dataset", dataset, "--rows", "1500", "--datasets", dir, "--format", "sqlite", "--schema", "coredata",
    ])
    #expect(generated.status == 0, "\(generated.stderr)")
    let sectioned =
      dataset == "banks"
      ? ["--sort", "state asc, details.closeDate desc", "--section", "state"]
      : ["--sort", "state asc, spudDate desc", "--section", "state"]
    for list in [[], sectioned] {
      let common = ["fetch", "--dataset", dataset, "--rows", "1500", "--datasets", dir, "--ids"] + list
      let expected = try TestSupport.run(common)
      #expect(expected.status == 0 && !expected.stdout.isEmpty, "\(expected.stderr)")
      for store in ["memory", "sqlite"] + (TestSupport.postgresServerUp ? ["postgres"] : []) {
        for strategy in ["full", "batched", "keyset"] {
          let out = try TestSupport.run(common + ["--schema", "coredata", "--store", store, "--strategy", strategy])
          #expect(out.status == 0, "\(list) \(store) \(strategy): \(out.stderr)")
          #expect(out.stdout == expected.stdout, "\(list) \(store) \(strategy)")
        }
      }
    }
    let missing = try TestSupport.run(["fetch", "--dataset", dataset, "--rows", "999", "--datasets", dir, "--schema", "coredata"])
    #expect(missing.status == 1 && missing.stderr.contains("--schema coredata"), "\(missing.stderr)")
  }

  @Test func runMeasuresTheListInCoreDatasSchemaWritingTheFileWhenMissing() throws {
    let dir = TestSupport.temporaryFolder("coredata-run")
    defer { TestSupport.remove(dir) }
    let run = try TestSupport.run([
      "run", "--schema", "coredata", "--dataset", "wells", "--rows", "1500", "--datasets", dir + "/datasets", "--store",
      "sqlite,sqlite-coredata", "--scenario", "first_screen", "--repetitions", "1", "--no-index", "--out", dir + "/out",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir + "/datasets/wells-1500.coredata.sqlite"))
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("## wells-coredata, 1,500 rows"), "\(report)")
    #expect(
      report.contains(
        "The dataset in Core Data's schema (`generate --schema coredata`), read and never written: \(dir)/datasets/wells-1500.coredata.sqlite"
      ))
    let two = try TestSupport.run(["run", "--schema", "coredata", "--dataset", "banks,wells", "--datasets", dir + "/datasets"])
    #expect(two.status == 64 && two.stderr.contains("--schema coredata measures one dataset at one row count"), "\(two.stderr)")
  }

  /// `diff --schema coredata` keeps banks in sync on a private copy of the Core Data file,
  /// which stays as it was: every change set replayed under UIKit's rules, one keys query a
  /// transaction, Core Data's rules beside.
  @Test func diffKeepsTheListInSyncOnTheCoreDataFile() throws {
    let dir = TestSupport.temporaryFolder("coredata-diff")
    defer { TestSupport.remove(dir) }
    let diff = try TestSupport.run([
      "diff", "--schema", "coredata", "--rows", "1200", "--store", "sqlite", "--k", "10", "--no-edit", "--sections", "none,section",
      "--repetitions", "3", "--datasets", dir + "/datasets", "--out", dir + "/out",
    ])
    #expect(diff.status == 0, "\(diff.stderr)")
    let file = dir + "/datasets/banks-1200.coredata.sqlite"
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    let queries = rows.filter { $0.metric == .queries }
    #expect(queries.count == 2 && queries.allSatisfy { $0.max == 1 }, "one keys query a transaction, with and without sections")
    #expect(rows.contains { $0.metric == .staleRowsCoreData } && rows.allSatisfy { $0.isOK })
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("of the dataset in Core Data's schema (`generate --schema coredata`)") && !report.contains("your database"))
    // A second run writes to its own copy too: the file is byte for byte what the first wrote.
    let before = try Data(contentsOf: URL(fileURLWithPath: file))
    let again = try TestSupport.run([
      "diff", "--schema", "coredata", "--rows", "1200", "--store", "sqlite", "--k", "1", "--no-edit", "--sections", "none",
      "--repetitions", "1", "--datasets", dir + "/datasets", "--out", dir + "/again",
    ])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    let written = try TestSupport.run([
      "diff", "--schema", "coredata", "--rows", "1200", "--datasets", dir + "/datasets", "--sort", "name asc",
    ])
    #expect(written.status == 64 && written.stderr.contains("--entity, --sort and --section are for --db"), "\(written.stderr)")
    #expect(FileManager.default.fileExists(atPath: file))
  }
}
