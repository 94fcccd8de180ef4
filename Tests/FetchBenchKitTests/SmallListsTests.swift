import Foundation
import GRDB
import TestSupport
import Testing

/// Defaults fitted to the list (#54): a small list is measured with what fits it, and only
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
}
