/// What a string operator (`TextOperator`) of a predicate matches, defined once for the memory
/// store: UTF-8 bytes for BEGINSWITH, CONTAINS and ENDSWITH (SQLite's `instr` and `substr`,
/// PostgreSQL's `strpos` and `substr`, compare the same), Unicode scalars for LIKE's `?` and
/// `*` (SQLite's GLOB and PostgreSQL's LIKE step by characters, which are scalars).
/// With a `TextFold`, both the pattern and each string are folded first by the collation.
/// MATCHES is the collation's regular expression (`RegularExpression`) matching the whole
/// string, ignoring case with `[c]` (the pattern is not folded: `\\D` is not `\\d`).
public struct TextMatch: @unchecked Sendable {
  let op: TextOperator
  /// MATCHES's expression; read only, so shared across threads as its text would be.
  let regex: (any RegularExpression)?
  let pattern: [UInt8]
  let scalars: [Unicode.Scalar]
  let fold: TextFold
  let collation: (any StringCollation)?

  /// `collation` folds for a non-empty `fold` (the model's: `BoundPredicate` refuses a fold
  /// without one).
  public init(_ op: TextOperator, _ pattern: String, fold: TextFold = [], collation: (any StringCollation)? = nil) {
    self.op = op
    if op == .matches {
      // Checked when the predicate was bound (`TextMatch.regex(_:fold:)`).
      regex = try? Self.regex(pattern, fold: fold, collation: collation)
      (self.fold, self.collation, self.pattern, scalars) = ([], nil, [], [])
      return
    }
    regex = nil
    self.fold = fold
    self.collation = fold.isEmpty ? nil : collation
    let folded = self.collation?.fold(pattern, fold) ?? pattern
    self.pattern = Array(folded.utf8)
    scalars = op == .like ? Array(folded.unicodeScalars) : []
  }

  /// Whether `s` matches. O(|s| · |pattern|) at worst (CONTAINS, LIKE with `*`), plus the
  /// fold of `s`; MATCHES as bounded as its expression, and throws past the bound.
  public func matches(_ s: String) throws(FetchError) -> Bool {
    let s = collation?.fold(s, fold) ?? s
    switch op {
    case .equals: return s.utf8.elementsEqual(pattern)
    case .beginsWith: return s.utf8.starts(with: pattern)
    case .endsWith: return s.utf8.count >= pattern.count && s.utf8.suffix(pattern.count).elementsEqual(pattern)
    case .contains: return contains(Array(s.utf8))
    case .like: return Self.glob(scalars[...], Array(s.unicodeScalars)[...])
    case .matches: return try regex?.wholeMatch(s) ?? false
    }
  }

  /// MATCHES's expression as `collation` compiles it (Swift's without one), ignoring case with
  /// `[c]`; throws for text that is not one.
  public static func regex(_ pattern: String, fold: TextFold, collation: (any StringCollation)?) throws(FetchError)
    -> any RegularExpression
  {
    let caseInsensitive = fold.contains(.caseInsensitive)
    guard let collation else { return try SwiftRegularExpression(pattern, caseInsensitive: caseInsensitive) }
    return try collation.regularExpression(pattern, caseInsensitive: caseInsensitive)
  }

  private func contains(_ h: [UInt8]) -> Bool {
    guard let first = pattern.first else { return true }
    guard h.count >= pattern.count else { return false }
    for i in 0...(h.count - pattern.count) where h[i] == first && h[i..<(i + pattern.count)].elementsEqual(pattern) {
      return true
    }
    return false
  }

  /// `?` one scalar, `*` any run of them, anything else itself; the last `*` is retried one
  /// scalar further on a mismatch, so no run is tried twice. O(|s| · |pattern|).
  static func glob(_ p: ArraySlice<Unicode.Scalar>, _ s: ArraySlice<Unicode.Scalar>) -> Bool {
    var (pi, si) = (p.startIndex, s.startIndex)
    var star: (p: Int, s: Int)? = nil
    while si < s.endIndex {
      if pi < p.endIndex, p[pi] == "?" || (p[pi] != "*" && p[pi] == s[si]) {
        (pi, si) = (pi + 1, si + 1)
      } else if pi < p.endIndex, p[pi] == "*" {
        star = (pi, si)
        pi += 1
      } else if let last = star {
        star = (last.p, last.s + 1)
        (pi, si) = (last.p + 1, last.s + 1)
      } else {
        return false
      }
    }
    while pi < p.endIndex && p[pi] == "*" { pi += 1 }
    return pi == p.endIndex
  }
}
