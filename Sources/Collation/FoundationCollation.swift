import FetchedResults
import Foundation
import Synchronization

/// Foundation's string comparison under each sort selector, in one locale: what an app's
/// `NSSortDescriptor(key:ascending:selector:)` compares with. On Linux it is
/// swift-corelibs-foundation's, which collates through ICU.
public struct FoundationCollation: StringCollation {
  public let locale: String
  private let foundationLocale: Locale

  /// This process's collation: in the locale `useLocale` last set (`--locale`; a case process
  /// takes its parent's), else `en_US`. Models take it when they are made. O(1).
  public static var current: FoundationCollation { shared.withLock { $0 } }
  private static let shared = Mutex(FoundationCollation(locale: "en_US"))

  /// Makes `locale` (nil or empty: `en_US`) this process's collation, for the models made from
  /// now on. O(1).
  public static func useLocale(_ locale: String?) {
    let collation = FoundationCollation(locale: locale.flatMap { $0.isEmpty ? nil : $0 } ?? "en_US")
    shared.withLock { $0 = collation }
  }

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

extension FoundationCollation {
  /// How long MATCHES's expression may spend on the values it is slow on (over a millisecond
  /// each) before the fetch fails naming it: far past what an expression that does not
  /// backtrack without end spends on a whole list.
  public static let matchTimeLimit: Duration = .seconds(1)

  /// ICU's regular expressions through `NSRegularExpression`, as NSPredicate's MATCHES: the
  /// whole string, each value's match stopped when the expression's time is spent. O(pattern).
  public func regularExpression(_ pattern: String, caseInsensitive: Bool) throws(FetchError)
    -> any RegularExpression
  {
    do {
      return ICURegularExpression(
        pattern: pattern,
        expression: try NSRegularExpression(
          pattern: "\\A(?:\(pattern))\\z", options: caseInsensitive ? [.caseInsensitive] : []))
    } catch {
      throw .invalidRequest("ICU cannot compile it (\(error.localizedDescription))")
    }
  }
}

/// One compiled expression: `NSRegularExpression` is immutable and safe to share between
/// threads; the time it has left is shared by every value it matches.
private final class ICURegularExpression: RegularExpression, @unchecked Sendable {
  let pattern: String
  let expression: NSRegularExpression
  private let left = Mutex(FoundationCollation.matchTimeLimit)

  init(pattern: String, expression: NSRegularExpression) {
    (self.pattern, self.expression) = (pattern, expression)
  }

  func wholeMatch(_ s: String) throws(FetchError) -> Bool {
    let clock = ContinuousClock()
    let start = clock.now
    let deadline = start.advanced(by: left.withLock { $0 })
    var matched = false
    var overran = false
    // `.reportProgress` calls back while a long match runs, so that it can be stopped.
    expression.enumerateMatches(
      in: s, options: [.reportProgress], range: NSRange(location: 0, length: (s as NSString).length)
    ) { match, _, stop in
      if match != nil {
        matched = true
        stop.pointee = true
      } else if clock.now > deadline {
        overran = true
        stop.pointee = true
      }
    }
    let spent = start.duration(to: clock.now)
    if spent > .milliseconds(1) { left.withLock { $0 -= spent } }
    guard !overran else {
      let shown = s.count > 40 ? s.prefix(40) + "…" : Substring(s)
      throw .invalidRequest(
        """
        MATCHES '\(pattern)' ran past \(FoundationCollation.matchTimeLimit) on the values it is slow on (the last \
        '\(shown)'): the expression backtracks without end (a repetition inside a repetition, such as (.+)+); write it \
        so that each character can be matched one way
        """)
    }
    return matched
  }
}
