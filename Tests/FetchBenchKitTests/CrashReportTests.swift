import ChildProcesses
import FetchBenchKit
import Foundation
import TestSupport
import Testing

/// A child that dies by a signal is reported by its failure line and the first frames in the
/// project's sources, never by the backtrace's last lines (its image list).
@Suite struct CrashReportTests {
  /// The standard error of a real crash: `fetchbench fetch --where "details.cert > 1e19"` at
  /// 606071d, whose Int64 conversion trapped.
  static func fixture() throws -> String {
    try String(
      contentsOfFile: TestSupport.packageRoot.appendingPathComponent("Tests/FetchBenchKitTests/Fixtures/backtrace-precondition.txt").path,
      encoding: .utf8)
  }

  @Test func aRealBacktraceGivesTheFailureAndTheProjectFrames() throws {
    let summary = CrashReport.summary(of: try Self.fixture())
    #expect(
      summary
        == "Swift runtime failure: Double value cannot be converted to Int64 because the result would be greater than Int64.max"
        + " at FetchRequest.swift:175 in specialized static BoundPredicate.coerce(_:to:)"
        + " ← FetchRequest.swift:132 in lit #1 (_:_:) in BoundPredicate.init(_:model:entity:)"
        + " ← FetchRequest.swift:137 in BoundPredicate.init(_:model:entity:)")
    #expect(!summary.contains("libFoundation") && !summary.contains("Backtrace took"))
  }

  @Test func aFatalErrorKeepsItsMessageAndOtherOutputItsLastLines() {
    let fatal = """
      fetchbench/SomeFile.swift:12: Fatal error: the index is out of range
      *** Signal 4: Backtracing from 0x1... done ***
      *** Swift runtime failure: Fatal error ***
      Thread 2 "writer-1" crashed:
        0 0x00005 SomeType.f() + 3 in fetchbench at /src/p/Sources/Kit/SomeFile.swift:12:7
        1 0x00006 GRDB.Statement.step() + 9 in fetchbench at /src/p/.build/checkouts/GRDB.swift/Sources/GRDB/Statement.swift:40:1
        2 [ra] 0x00007 Caller.g() + 9 in fetchbench at /src/p/Sources/Kit/Caller.swift:99:3

      Images (3 omitted):
      Backtrace took 0.05s
      """
    #expect(
      CrashReport.summary(of: fatal)
        == "Fatal error: the index is out of range at SomeFile.swift:12 in SomeType.f() ← Caller.swift:99 in Caller.g()")
    #expect(CrashReport.summary(of: "one\ntwo\nthree\nfour\n") == "two | three | four")
    #expect(CrashReport.summary(of: "") == "(no output)")
  }
}
