import FetchBenchKit
import Foundation
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// Every coded error's sentence, one line per code, as the user reads it after `Error:`:
/// checked against `Fixtures/error-codes.txt`, so a change of wording is a change of that
/// file, reviewed as such. `FETCHBENCH_UPDATE_SNAPSHOTS=1` rewrites the file.
@Suite struct ErrorCodeTests {
  static let file = TestSupport.packageRoot.appendingPathComponent("Tests/FetchBenchKitTests/Fixtures/error-codes.txt")

  /// Every coded error kind's examples, by kind.
  static let kinds: [(kind: String, examples: [any CodedError])] = [
    ("MatrixError", MatrixError.examples), ("GateError", GateError.examples), ("ListError", ListError.examples),
    ("RecommendationError", RecommendationError.examples), ("ResumeError", ResumeError.examples),
    ("RunFolderError", RunFolderError.examples), ("ResultsFileError", ResultsFileError.examples),
    ("HistoryError", HistoryError.examples), ("LoadError", LoadError.examples),
    ("HarnessError", HarnessError.examples), ("MeasurementFault", MeasurementFault.examples),
  ]

  /// Each coded error kind's examples, rendered.
  static func rendered() -> String {
    kinds.flatMap(\.examples).map { "\($0.code)\t\($0.description)\n" }.joined()
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
    // Across kinds: each code is one case's (a case's examples may vary its context), and
    // each kind's codes have a first word of their own.
    var caseOfCode: [String: String] = [:]
    var kindOfPrefix: [String: String] = [:]
    for (kind, examples) in Self.kinds {
      for e in examples where !(e is MatrixError) {
        let name = "\(kind).\(Mirror(reflecting: e).children.first?.label ?? e.description)"
        #expect(caseOfCode.updateValue(name, forKey: e.code).map { $0 == name } ?? true, "\(e.code)")
        let prefix = String(e.code.prefix { $0 != "." })
        #expect(kindOfPrefix.updateValue(kind, forKey: prefix).map { $0 == kind } ?? true, "\(prefix)")
      }
    }
    #expect(
      MatrixError.inFile(path: "m.json", .inList(position: 1, name: "banks", .noStores)).code == "matrix.list.no-stores"
    )
    #expect(
      MatrixError.inFile(path: "m.json", .inList(position: 1, name: "banks", .noStores)).description
        == "m.json: list 1 (banks): \"stores\" names none")
  }
}
