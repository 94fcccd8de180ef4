import Foundation
import GRDB
import TestSupport
import Testing

/// Defaults fitted to the list: a small list is measured with what fits it, and only
/// what the user typed is an error.
@Suite struct SmallLists {
  @Test func diffFitsItsDefaultChangeSizesToTheList() throws {
    let dir = TestSupport.temporaryFolder("small-diff")
    defer { TestSupport.remove(dir) }
    let app = dir + "/app.sqlite"
    try UserDatabaseFixture.app(app)
    let validate = ["FETCHBENCH_VALIDATE_ONLY": "1"]
    for arguments in [["diff", "--rows", "2000"], ["diff", "--db", app, "--entity", "flights"]] {
      let out = try TestSupport.run(arguments, environment: validate)
      #expect(out.status == 0, "\(arguments): \(out.stderr)")
    }
    let typed = try TestSupport.run(["diff", "--rows", "2000", "--k", "5000"], environment: validate)
    #expect(typed.status == 64 && typed.stderr.contains("--k 5000 changes more than half of 2000 rows"), "\(typed.stderr)")
    // Measured: the sizes that fit 1,500 rows, and no more.
    let measured = try TestSupport.run([
      "diff", "--db", app, "--entity", "flights", "--store", "memory", "--sections", "none", "--no-edit", "--repetitions", "1",
      "--out", dir + "/out",
    ])
    #expect(measured.status == 0, "\(measured.stderr)")
    let csv = try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8)
    #expect(csv.contains("diff_k100,") && !csv.contains("diff_k1000,") && !csv.contains("diff_k10000,"), "\(csv.prefix(2000))")
  }

  /// `isArchived == NO` against a Boolean stored as an integer, as SQLite and Core Data store
  /// it: the rows whose value is 0, on every store.
  @Test func booleanLiteralsCompareWithIntegerColumns() throws {
    let dir = TestSupport.temporaryFolder("bool")
    defer { TestSupport.remove(dir) }
    let path = dir + "/mail.sqlite"
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "CREATE TABLE messages (id INTEGER PRIMARY KEY, subject TEXT NOT NULL, isArchived INTEGER NOT NULL)")
      for i in 1...40 { try db.execute(sql: "INSERT INTO messages VALUES (?, ?, ?)", arguments: [i, "s\(i)", i % 4 == 0 ? 1 : 0]) }
    }
    for (literal, count) in [("NO", 30), ("FALSE", 30), ("YES", 10), ("TRUE", 10)] {
      for store in ["memory", "sqlite"] {
        let out = try TestSupport.run([
          "fetch", "--db", path, "--entity", "messages", "--where", "isArchived == \(literal)", "--store", store, "--ids",
        ])
        #expect(out.status == 0, "\(literal) \(store): \(out.stderr)")
        #expect(out.stdout.split(separator: "\n").count == count, "\(literal) \(store)")
      }
    }
  }
}
