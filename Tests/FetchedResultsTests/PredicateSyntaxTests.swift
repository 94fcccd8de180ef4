import FetchedResults
import Testing

/// NSPredicate's format syntax as an app writes it: placeholders filled in order and typed by
/// what their arguments spell, variables, CAST to NSDate, `==`, and the string operators; each
/// gives the predicate its literal form gives.
@Suite struct PredicateSyntax {
  func parse(_ text: String, _ arguments: [String] = [], _ variables: [String: String] = [:]) throws -> FetchPredicate {
    try QueryParser.predicate(text, arguments: arguments, variables: variables)
  }

  @Test func placeholdersAndVariablesGiveTheLiteralsTheySpell() throws {
    #expect(try parse("state == %@", ["TX"]) == parse("state = 'TX'"))
    #expect(try parse("zip == %@", ["'02139'"]) == parse("zip = '02139'"), "a quoted argument stays text")
    #expect(try parse("cert == %@", ["12"]) == parse("cert = 12"))
    #expect(try parse("cert == %d", ["12"]) == .comparison("cert", .equal, .integer(12)))
    #expect(try parse("fund > %f", ["2"]) == .comparison("fund", .greater, .double(2)))
    #expect(try parse("%K == %@", ["state", "TX"]) == parse("state = 'TX'"))
    #expect(try parse("closeDate > %@", ["2009-01-01"]) == parse("closeDate > 2009-01-01"))
    #expect(try parse("field == %@", ["nil"]) == parse("field = nil"))
    #expect(try parse("state IN %@", ["{'TX', 'CA'}"]) == parse("state IN {'TX', 'CA'}"))
    #expect(try parse("cert BETWEEN %@", ["{1, 5}"]) == parse("cert BETWEEN {1, 5}"))
    #expect(try parse("state IN {%@, $S}", ["TX"], ["S": "CA"]) == parse("state IN {'TX', 'CA'}"))
    #expect(try parse("name BEGINSWITH $PREFIX", [], ["PREFIX": "First"]) == parse("name BEGINSWITH 'First'"))
    #expect(
      try parse("name ENDSWITH %@ || name LIKE %@", ["Bank", "F*"]) == parse("name ENDSWITH 'Bank' OR name LIKE 'F*'"))
  }

  /// NSDate's reference date is 2001-01-01: CAST counts seconds from it.
  @Test func castCountsSecondsFrom2001() throws {
    #expect(try parse("closeDate > CAST(0, \"NSDate\")") == parse("closeDate > 2001-01-01"))
    #expect(try parse("closeDate < CAST(726000000, 'NSDate')") == .comparison("closeDate", .less, .date(1_704_307_200)))
  }

  /// An argument left over, or one of the wrong kind, is an error, never ignored.
  @Test func everyArgumentFillsOnePlaceholderOfItsKind() {
    for (text, arguments, message) in [
      ("state == 'TX'", ["TX"], "the argument 'TX' fills no placeholder (the predicate has 0)"),
      ("state == %@", ["TX", "CA"], "the argument 'CA' fills no placeholder (the predicate has 1)"),
      ("cert == %d", ["1.5"], "%d takes a whole number"),
      ("fund == %f", ["TX"], "%f takes a number"),
      ("%K == 1", ["a b"], "%K takes a key path"),
      ("state IN %@", ["TX"], "is not a list"),
      ("cert BETWEEN %@", ["{1}"], "is not a list of 2 values"),
    ] {
      #expect(throws: FetchError.self, "\(text)") { try parse(text, arguments) }
      do {
        _ = try parse(text, arguments)
      } catch {
        #expect("\(error)".contains(message), "\(text): \(error)")
      }
    }
  }

  /// LIKE's `?` is one Unicode scalar and `*` any run; BEGINSWITH, ENDSWITH and CONTAINS
  /// compare UTF-8 bytes.
  @Test func stringOperatorsMatchAsNSPredicateWithoutModifiers() throws {
    let cases: [(TextOperator, String, String, Bool)] = [
      (.like, "F*Bank", "First Bank", true), (.like, "F*Bank", "First Bank!", false), (.like, "?", "é", true),
      (.like, "??", "é", false), (.like, "*", "", true), (.like, "a*b*c", "aXbYbZc", true), (.like, "a*b", "ab", true),
      (.like, "a?c", "abbc", false), (.like, "[A]*", "[A]x", true), (.like, "%", "x", false),
      (.endsWith, "Bank", "First Bank", true), (.endsWith, "", "x", true), (.endsWith, "xBank", "Bank", false),
      (.beginsWith, "Fir", "First", true), (.contains, "rst B", "First Bank", true), (.contains, "", "", true),
      (.endsWith, "e\u{301}", "cafe\u{301}", true), (.endsWith, "é", "cafe\u{301}", false),
    ]
    for (op, pattern, s, expected) in cases {
      #expect(try TextMatch(op, pattern).matches(s) == expected, "\(s) \(op.rawValue) \(pattern)")
    }
  }
}
