import ArgumentParser
import Catalog
import DatasetStores
import Datasets
import FetchBenchKit
import FetchedResults
import Foundation
import ResultModel
import SQLQueries
import TextFormatting
import Vocabulary

// The harness's kinds are arguments as they are spelled in results.csv.
extension StoreKind: ExpressibleByArgument {}
extension FetchMode: ExpressibleByArgument {}
extension Scenario: ExpressibleByArgument {}
extension DatasetKind: ExpressibleByArgument {}
extension ChangeRules: ExpressibleByArgument {}
extension PhysicalSchema: ExpressibleByArgument {}
extension StatementPlan: ExpressibleByArgument {}

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
    // A store this build left out is not a mistake in the argument: an Error line with the fix.
    if let store = value as? StoreKind { try store.checkBuilt() }
    return value
  }

  /// Comma-separated kinds.
  static func kinds<T: ExpressibleByArgument>(_ text: String, _ option: String, what: String? = nil) throws -> [T] {
    try items(text, option).map { try kind($0, what ?? option) }
  }

  /// Comma-separated positive whole numbers; `_` groups digits (`10_000`). A number given
  /// twice is refused: each would be measured twice under one key.
  static func positiveInts(_ text: String, _ option: String) throws -> [Int] {
    var seen = Set<Int>()
    return try items(text, option).map {
      guard let n = Int($0.replacingOccurrences(of: "_", with: "")), n > 0 else {
        throw ValidationError("--\(option): '\($0)' is not a positive number")
      }
      guard seen.insert(n).inserted else {
        throw ValidationError("--\(option): \(n) is given twice; name each value once")
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

  /// A number within `range`: `--writers must be between 1 and 64, got 65`. NaN is in no range.
  static func check<T: Comparable>(_ value: T, in range: ClosedRange<T>, _ option: String) throws {
    guard range.contains(value) else {
      throw ValidationError("--\(option) must be \(OptionRange.text(range)), got \(OptionRange.text(value))")
    }
  }

  /// Comma-separated whole numbers, each within `range`.
  static func ints(_ text: String, _ option: String, in range: ClosedRange<Int>) throws -> [Int] {
    let values = try positiveInts(text, option)
    for v in values { try check(v, in: range, option) }
    return values
  }
}

/// How the command line states a range (`OptionRange`'s, or any other).
extension OptionRange {
  /// `between 1 and 100,000`, `between 0.01 and 100,000`, `0 or more`.
  static func text<T: Comparable>(_ range: ClosedRange<T>) -> String {
    if let upper = range.upperBound as? Int, upper == Int.max { return "\(text(range.lowerBound)) or more" }
    return "between \(text(range.lowerBound)) and \(text(range.upperBound))"
  }

  static func text<T: Comparable>(_ value: T) -> String {
    switch value {
    case let i as Int: i.grouped
    case let d as Double where d.isFinite && d == d.rounded() && abs(d) < 1e15: Int(d).grouped
    case let d as Double: String(format: "%g", d)
    default: "\(value)"
    }
  }

  /// `(1 to 100,000)`, `(0 or more)` for a help text.
  static func help<T: Comparable>(_ range: ClosedRange<T>) -> String {
    if let upper = range.upperBound as? Int, upper == Int.max { return "(\(text(range.lowerBound)) or more)" }
    return "(\(text(range.lowerBound)) to \(text(range.upperBound)))"
  }
}

/// A command whose options are turned into what it runs by one function, `options()`, which
/// ArgumentParser's `validate()` calls before `run()`: every check that needs no work is made
/// before any is done, and a bad option is a usage error (exit 64). What it computed is kept
/// for `run()` (`checkedOptions()`): computing it reads files, and with `--model` may generate
/// a store, which is done once.
protocol CheckedCommand: ParsableCommand {
  associatedtype Options
  func options() throws -> Options
  /// Where `validate()` keeps the options; declare it `var checked = CheckedOptions<Options>()`.
  var checked: CheckedOptions<Options> { get set }
}

extension CheckedCommand {
  mutating func validate() throws { checked.value = try options() }

  /// The options `validate()` computed; computed now where it was not called (a command built
  /// by hand).
  func checkedOptions() throws -> Options { try checked.value ?? options() }
}

/// A command's computed options: not an argument, so ArgumentParser's decoding leaves it empty.
struct CheckedOptions<Options>: Decodable {
  var value: Options?

  init() {}
  init(from decoder: any Decoder) throws {}
}
