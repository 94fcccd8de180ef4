/// MATCHES's compiled expression, as the model's collation compiles it: NSPredicate's is ICU's,
/// matched against the whole string. An expression whose matching can run for ever (`(.+)+!`
/// backtracks exponentially) is bounded by its compiler: past the bound the match throws, naming
/// the expression, rather than hanging the fetch.
public protocol RegularExpression: Sendable {
  /// Whether the whole of `s` matches; throws `FetchError.invalidRequest` when the match ran
  /// past the expression's time limit. O(|s|) for most expressions, bounded for the rest.
  func wholeMatch(_ s: String) throws(FetchError) -> Bool
}

/// Swift's regular expression matching: what a model without a collation matches with. It has
/// no time limit (Swift's engine can be neither bounded nor cancelled); the models FetchBench
/// measures compile through Foundation's (`FoundationCollation`), which has one.
struct SwiftRegularExpression: RegularExpression, @unchecked Sendable {
  /// Read only, so shared across threads as its text would be.
  let regex: Regex<AnyRegexOutput>

  init(_ pattern: String, caseInsensitive: Bool) throws(FetchError) {
    do {
      let regex = try Regex(pattern)
      self.regex = caseInsensitive ? regex.ignoresCase() : regex
    } catch {
      throw .invalidRequest("\(error)")
    }
  }

  func wholeMatch(_ s: String) throws(FetchError) -> Bool { (try? regex.wholeMatch(in: s)) != nil }
}

extension StringCollation {
  /// Swift's regular expressions, for a collation that compiles none of its own.
  public func regularExpression(_ pattern: String, caseInsensitive: Bool) throws(FetchError)
    -> any RegularExpression
  {
    try SwiftRegularExpression(pattern, caseInsensitive: caseInsensitive)
  }
}
