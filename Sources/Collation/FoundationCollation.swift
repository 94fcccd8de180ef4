import FetchedResults
import Foundation

/// Foundation's string comparison under each sort selector, in one locale: what an app's
/// `NSSortDescriptor(key:ascending:selector:)` compares with. On Linux it is
/// swift-corelibs-foundation's, which collates through ICU.
public struct FoundationCollation: StringCollation {
  public let locale: String
  private let foundationLocale: Locale

  /// The locale of `FETCHBENCH_LOCALE` (`--locale` sets it for a command and its cases), else
  /// `en_US`.
  public static let current = FoundationCollation(
    locale: ProcessInfo.processInfo.environment[localeVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "en_US")
  public static let localeVariable = "FETCHBENCH_LOCALE"

  public init(locale: String) {
    self.locale = locale
    foundationLocale = Locale(identifier: locale)
  }

  /// Each selector's options, as Foundation's own selectors pass them: `localizedStandardCompare:`
  /// is case-insensitive and numeric, with a forced order among strings equal under those
  /// options; `caseInsensitiveCompare:` is not locale-aware. O(length).
  ///
  /// `localizedStandardCompare:` leaves out Foundation's `.widthInsensitive`: on Linux that
  /// option is not antisymmetric (`ＡＢＣ` and `Ärger` each order after the other), and no sort
  /// can follow such a comparison; `SortSelectorTests` checks that this is still so.
  public func compare(_ a: String, _ b: String, by selector: SortSelector) -> Int {
    let result: ComparisonResult
    switch selector {
    case .compare: return Value.compareUTF8(a, b)
    case .caseInsensitiveCompare: result = a.compare(b, options: [.caseInsensitive])
    case .localizedCompare: result = a.compare(b, options: [], range: nil, locale: foundationLocale)
    case .localizedCaseInsensitiveCompare:
      result = a.compare(b, options: [.caseInsensitive], range: nil, locale: foundationLocale)
    case .localizedStandardCompare:
      result = a.compare(
        b, options: [.caseInsensitive, .numeric, .forcedOrdering], range: nil,
        locale: foundationLocale)
    }
    return result.rawValue
  }

  /// Foundation's folding, not locale-aware: NSPredicate's `[c]` and `[d]` are not.
  public func fold(_ s: String, _ fold: TextFold) -> String {
    var options: String.CompareOptions = []
    if fold.contains(.caseInsensitive) { options.insert(.caseInsensitive) }
    if fold.contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
    return s.folding(options: options, locale: nil)
  }
}
