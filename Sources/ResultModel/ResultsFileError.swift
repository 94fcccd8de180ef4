import TextFormatting
import Vocabulary

/// What is wrong with a results file's rows (results.csv, or results.json's rows): each names
/// the column and the value a run would not have written.
package enum ResultsFileError: CodedError, Equatable {
  case wrongFieldCount(Int, expected: Int)
  case notFinite(String)
  case notWholeNumber(column: String, value: String, max: Int)
  case notWritten(column: String, value: String)
  case negative(metric: String, value: Double, unit: String)
  case badHeader(expected: String)

  package var code: String {
    switch self {
    case .wrongFieldCount: "results.wrong-field-count"
    case .notFinite: "results.not-finite"
    case .notWholeNumber: "results.not-whole-number"
    case .notWritten: "results.not-written"
    case .negative: "results.negative"
    case .badHeader: "results.bad-header"
    }
  }

  package var description: String {
    switch self {
    case .wrongFieldCount(let n, let expected): "results.csv: a row has \(n) fields, expected \(expected)"
    case .notFinite(let text): "results.csv: '\(text)' is not a finite number, as every figure FetchBench writes is"
    case .notWholeNumber(let column, let value, let max):
      "results.csv: \(column) '\(value)' is not a whole number from 0 to \(max.grouped)"
    case .notWritten(let column, let value): "results.csv: \(column) '\(value)' is not one FetchBench writes"
    case .negative(let metric, let value, let unit):
      "results.csv: \(metric) is \(value), below zero, which no \(unit) figure FetchBench writes is"
    case .badHeader(let expected): "results.csv: the header is not \(expected)"
    }
  }

  package static let examples: [Self] = [
    .wrongFieldCount(3, expected: 21), .notFinite("inf"), .notWholeNumber(column: "rows", value: "1.5", max: 1 << 40),
    .notWritten(column: "store", value: "oracle"), .negative(metric: "time", value: -1, unit: "ms"),
    .badHeader(expected: "run_id,dataset"),
  ]
}
