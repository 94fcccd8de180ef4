import FetchBenchKit
import Foundation
import TestSupport
import Testing
import Vocabulary

/// Every coded error's sentence, one line per code, as the user reads it after `Error:`:
/// checked against `Fixtures/error-codes.txt`, so a change of wording is a change of that
/// file, reviewed as such. `FETCHBENCH_UPDATE_SNAPSHOTS=1` rewrites the file.
@Suite struct ErrorCodeTests {
  static let file = TestSupport.packageRoot.appendingPathComponent("Tests/FetchBenchKitTests/Fixtures/error-codes.txt")

  /// Each coded error kind's examples, rendered.
  static func rendered() -> String {
    let all: [any CodedError] = MatrixError.examples
    return all.map { "\($0.code)\t\($0.description)\n" }.joined()
  }

  @Test func everyCodeReadsAsItsSnapshotSays() throws {
    let text = Self.rendered()
    if ProcessInfo.processInfo.environment["FETCHBENCH_UPDATE_SNAPSHOTS"] == "1" {
      try text.write(to: Self.file, atomically: true, encoding: .utf8)
    }
    #expect(text == (try String(contentsOf: Self.file, encoding: .utf8)))
  }

  /// A code names one problem: no two cases share one, a wrapper (the file, the list) keeps
  /// its cause's.
  @Test func codesAreDistinctAndWrappersKeepTheirCause() {
    let leaves = MatrixError.examples.filter {
      switch $0 {
      case .inFile, .inList: false
      default: true
      }
    }
    #expect(Set(leaves.map(\.code)).count == leaves.count)
    #expect(
      MatrixError.inFile(path: "m.json", .inList(position: 1, name: "banks", .noStores)).code == "matrix.list.no-stores"
    )
    #expect(
      MatrixError.inFile(path: "m.json", .inList(position: 1, name: "banks", .noStores)).description
        == "m.json: list 1 (banks): \"stores\" names none")
  }
}
