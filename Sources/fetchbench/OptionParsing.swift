import ArgumentParser
import Catalog
import DatasetStores
import Datasets
import FetchBenchKit

// The harness's kinds are arguments as they are spelled in results.csv.
extension StoreKind: ExpressibleByArgument {}
extension FetchMode: ExpressibleByArgument {}
extension Scenario: ExpressibleByArgument {}
extension DatasetKind: ExpressibleByArgument {}

/// Option values, parsed one way for every command: comma-separated lists (`--store
/// memory,sqlite`), kinds by their names, positive numbers. Every failure is a
/// `ValidationError` naming the option and what it accepts (usage, exit 64).
enum OptionValue {
  /// The items of a comma-separated value; a value that names nothing is an error, not a run
  /// of nothing.
  static func items(_ text: String, _ option: String) throws -> [String] {
    let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    guard !items.isEmpty else { throw ValidationError("--\(option) names nothing; give at least one value") }
    return items
  }

  /// One kind by name: `unknown store 'oracle'; expected memory, sqlite or postgres`.
  static func kind<T: ExpressibleByArgument>(_ text: String, _ what: String) throws -> T {
    guard let value = T(argument: text) else {
      let names = T.allValueStrings
      let expected = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
      throw ValidationError("unknown \(what) '\(text)'; expected \(expected)")
    }
    return value
  }

  /// Comma-separated kinds.
  static func kinds<T: ExpressibleByArgument>(_ text: String, _ option: String, what: String? = nil) throws -> [T] {
    try items(text, option).map { try kind($0, what ?? option) }
  }

  /// Comma-separated positive whole numbers; `_` groups digits (`10_000`).
  static func positiveInts(_ text: String, _ option: String) throws -> [Int] {
    try items(text, option).map {
      guard let n = Int($0.replacingOccurrences(of: "_", with: "")), n > 0 else {
        throw ValidationError("--\(option): '\($0)' is not a positive number")
      }
      return n
    }
  }

  /// Row counts of datasets: positive and at most `DatasetKind.maxRows`.
  static func rowCounts(_ text: String) throws -> [Int] {
    let rows = try positiveInts(text, "rows")
    for n in rows where n > DatasetKind.maxRows { throw ValidationError(DatasetError.invalidRows(n).description) }
    return rows
  }

  /// Datasets: `all`, or comma-separated names.
  static func datasets(_ text: String) throws -> [DatasetKind] {
    text == "all" ? DatasetKind.allCases : try items(text, "dataset").map { try kind($0, "dataset") }
  }

  /// A whole number within `range`: `--writers must be between 1 and 64`.
  static func check<T: Comparable>(_ value: T, in range: ClosedRange<T>, _ option: String) throws {
    guard range.contains(value) else { throw ValidationError("--\(option) must be between \(range.lowerBound) and \(range.upperBound)") }
  }
}

/// A command whose options are turned into what it runs by one function, `options()`, which
/// ArgumentParser's `validate()` calls before `run()`: every check that needs no work is made
/// before any is done, and a bad option is a usage error (exit 64).
protocol CheckedCommand: ParsableCommand {
  associatedtype Options
  func options() throws -> Options
}

extension CheckedCommand {
  func validate() throws { _ = try options() }
}
