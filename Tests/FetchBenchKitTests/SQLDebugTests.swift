import Foundation
import SQLQueries
import TestSupport
import Testing

/// `--sql-debug`: every statement a store issues, in order, with its binds and rows, in the
/// shape of Core Data's SQL debug log, on standard error; standard output is left as it was.
@Suite(.serialized) struct SQLDebug {
  /// The `FetchBench: sql:` lines and their annotations, paired.
  static func statements(_ stderr: String) -> [(sql: String, annotation: String)] {
    let lines = stderr.split(separator: "\n").map(String.init)
    return lines.indices.compactMap { i in
      guard lines[i].hasPrefix("FetchBench: sql: "), i + 1 < lines.count else { return nil }
      return (String(lines[i].dropFirst("FetchBench: sql: ".count)), lines[i + 1])
    }
  }

  @Test func fetchPrintsTheIDQueryAndEachBatchWithItsBindsAndRows() throws {
    let dir = TestSupport.temporaryFolder("sqldebug")
    defer { TestSupport.remove(dir) }
    let common = ["fetch", "--dataset", "banks", "--rows", "2000", "--datasets", dir, "--strategy", "batched", "--batch-size", "20"]
    let generated = try TestSupport.run(["generate", "--dataset", "banks", "--rows", "2000", "--datasets", dir, "--format", "sqlite"])
    #expect(generated.status == 0, "\(generated.stderr)")
    let plain = try TestSupport.run(common + ["--ids"])
    #expect(plain.status == 0, "\(plain.stderr)")
    let stores = ["sqlite"] + (TestSupport.postgresServerUp ? ["postgres"] : [])
    for store in stores {
      let out = try TestSupport.run(common + ["--store", store, "--ids", "--sql-debug"])
      #expect(out.status == 0, "\(out.stderr)")
      #expect(out.stdout == plain.stdout, "standard output is the same with the log on")
      let s = Self.statements(out.stderr)
      // The ID query, then the one batch the first screen of --ids does not need: none.
      #expect(s.count == 1, "\(store): \(out.stderr)")
      // PostgreSQL returns the sorted IDs as one array value.
      let idRows = store == "sqlite" ? "2000 rows" : "1 rows"
      #expect(s.first?.sql.contains("ORDER BY") == true && s.first?.annotation.hasSuffix("for \(idRows), 0 binds.") == true, "\(s)")

      let shown = try TestSupport.run(common + ["--store", store, "--show", "3", "--sql-debug"])
      let t = Self.statements(shown.stderr)
      #expect(t.count == 2, "\(store): \(shown.stderr)")
      let batchBinds = store == "sqlite" ? "20 binds" : "1 binds"
      #expect(t.last?.sql.contains("IN (") == true || t.last?.sql.contains("ANY(") == true, "\(t)")
      #expect(t.last?.annotation.hasSuffix("for 20 rows, \(batchBinds).") == true, "\(t)")
      #expect(t.allSatisfy { $0.annotation.hasPrefix("FetchBench: annotation: sql connection fetch time: ") })
    }
  }

  @Test func runPrintsEachCasesStatementsOnceWithoutItsWarmUp() throws {
    let dir = TestSupport.temporaryFolder("sqldebug-run")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "2000", "--datasets", dir + "/datasets", "--store", "sqlite", "--mode", "batched",
      "--scenario", "first_screen", "--repetitions", "1", "--no-index", "--sql-debug", "--out", dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    #expect(out.stderr.contains("FetchBench: case banks-2000 sqlite batched(20) first_screen\n"), "\(out.stderr)")
    // The first screen under batched faulting: the ID query and one batch of 20.
    let s = Self.statements(out.stderr)
    #expect(s.count == 2, "\(out.stderr)")
    let counts = s.map { $0.annotation.split(separator: " ").suffix(4).joined(separator: " ") }
    #expect(counts == ["2000 rows, 0 binds.", "20 rows, 20 binds."], "\(s)")
  }

  @Test func theLogsLinesAreCoreDatasShape() {
    var written = ""
    let log = StatementLog { written += $0 }
    log.row(7)
    log.row(7)
    log.finished(7, sql: "SELECT 0, t0.Z_PK\n  FROM ZEVENT t0", binds: 1, seconds: 0.00125)
    #expect(
      written
        == "FetchBench: sql: SELECT 0, t0.Z_PK FROM ZEVENT t0\nFetchBench: annotation: sql connection fetch time: 0.0013s for 2 rows, 1 binds.\n"
    )
  }
}
