/// Parses the command line's text forms of predicates and sort descriptors.
///
/// Predicates in NSPredicate's format syntax, to-one key paths: `state IN {'TX','CA'} AND
/// details.closeDate > 2009-01-01`, `name BEGINSWITH 'First'`, `name ENDSWITH[…]`, `name LIKE
/// 'A*'`, `totalDepth BETWEEN {1000, 5000}`, `NOT (field == nil)`; AND/OR/NOT (or `&&`, `||`,
/// `!`), parentheses, TRUEPREDICATE/FALSEPREDICATE, ISO 8601 dates and `CAST(726000000,
/// "NSDate")` (seconds since 2001); `%@`, `%K`, `%d`, `%i`, `%f` filled from `arguments` in
/// order, `$NAME` from `variables`. Sorts: `details.closeDate desc, name asc`.
public enum QueryParser {
  /// Parses a predicate, its placeholders filled from `arguments` (each read as a literal of
  /// this syntax when it is one — `12`, `2009-01-01`, `'02139'`, `{'TX', 'CA'}`, `nil` — and
  /// as text otherwise) and its variables from `variables`. Every argument must fill a
  /// placeholder. O(length).
  public static func predicate(
    _ text: String, arguments: [String] = [], variables: [String: String] = [:]
  ) throws(FetchError) -> FetchPredicate {
    var p = try Parser(text)
    (p.arguments, p.variables) = (arguments, variables)
    let result = try p.parseOr()
    guard p.peek.kind == .end else { throw p.error("expected AND, OR or the end of the predicate") }
    if p.argumentsUsed < arguments.count {
      throw p.error(
        """
        the argument '\(arguments[p.argumentsUsed])' fills no placeholder (the predicate has \(p.argumentsUsed)); \
        give one --arg per %@, %K, %d or %f, in order
        """, at: 0)
    }
    return result
  }

  /// Parses a comma-separated list of `keyPath [asc|desc]`. O(length).
  public static func sortDescriptors(_ text: String) throws(FetchError) -> [SortDescriptor] {
    var p = try Parser(text)
    var out: [SortDescriptor] = []
    repeat {
      if !out.isEmpty { p.advance() }
      guard case .identifier(let key) = p.peek.kind else { throw p.error("expected a key path") }
      p.advance()
      var ascending = true
      if case .identifier(let dir) = p.peek.kind {
        switch dir.lowercased() {
        case "asc", "ascending": ascending = true
        case "desc", "descending": ascending = false
        default: throw p.error("expected asc or desc")
        }
        p.advance()
      }
      out.append(SortDescriptor(key, ascending: ascending))
    } while p.peek.kind == .comma
    guard p.peek.kind == .end else { throw p.error("expected ',' or the end of the sort list") }
    return out
  }
}

private enum TokenKind: Equatable {
  case identifier(String)
  case string(String)
  case number(Value)
  case date(Double)
  case op(ComparisonOperator)
  /// `%@`, `%K`, `%d`, `%i` or `%f`: its letter.
  case placeholder(Character)
  /// `$NAME`.
  case variable(String)
  /// `[c]`, `[d]` or `[cd]` after an operator.
  case modifier(String)
  case lbrace, rbrace, lparen, rparen, comma, and, or, not, end
}

private struct Token {
  var kind: TokenKind
  var position: Int
}

private struct Parser {
  let input: String
  var tokens: [Token] = []
  var index = 0
  /// NOTs and parentheses open around the current token: the parser, the SQL builder and the
  /// evaluator all recurse once per level, so the depth is bounded before any of them runs.
  var depth = 0
  static let maxDepth = 100
  /// What fills the placeholders, in order, and the variables.
  var arguments: [String] = []
  var argumentsUsed = 0
  var variables: [String: String] = [:]

  init(_ text: String) throws(FetchError) {
    input = text
    tokens = try Self.lex(text)
  }

  var peek: Token { tokens[index] }
  mutating func advance() { if index < tokens.count - 1 { index += 1 } }

  func error(_ message: String, at position: Int? = nil) -> FetchError {
    .parse(ParseError(message: message, input: input, position: position ?? peek.position))
  }

  mutating func parseOr() throws(FetchError) -> FetchPredicate {
    var terms = [try parseAnd()]
    while peek.kind == .or {
      advance()
      terms.append(try parseAnd())
    }
    return terms.count == 1 ? terms[0] : .or(terms)
  }

  mutating func parseAnd() throws(FetchError) -> FetchPredicate {
    var terms = [try parseUnary()]
    while peek.kind == .and {
      advance()
      terms.append(try parseUnary())
    }
    return terms.count == 1 ? terms[0] : .and(terms)
  }

  mutating func parseUnary() throws(FetchError) -> FetchPredicate {
    switch peek.kind {
    case .not, .lparen:
      guard depth < Self.maxDepth else { throw error("NOT and parentheses nest more than \(Self.maxDepth) deep here") }
    default: break
    }
    depth += 1
    defer { depth -= 1 }
    switch peek.kind {
    case .not:
      advance()
      return .not(try parseUnary())
    case .lparen:
      advance()
      let inner = try parseOr()
      guard peek.kind == .rparen else { throw error("expected ')'") }
      advance()
      return inner
    case .identifier(let word) where ["truepredicate", "falsepredicate"].contains(word.lowercased()):
      advance()
      return .constant(word.lowercased() == "truepredicate")
    case .identifier(let word) where ["ANY", "SOME", "ALL", "NONE", "SUBQUERY"].contains(word.uppercased()):
      throw error(
        """
        \(word.uppercased()) reads through a to-many relationship, which FetchBench's lists do not model yet; \
        filter on the entity's own attributes and to-one key paths
        """)
    case .identifier(let key):
      advance()
      return try parseComparison(key)
    case .placeholder("K"):
      let key = try argument("%K")
      guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else {
        throw error("%K takes a key path, and its argument '\(key)' is not one")
      }
      advance()
      return try parseComparison(key)
    default:
      throw error("expected a key path, NOT or '('")
    }
  }

  mutating func parseComparison(_ key: String) throws(FetchError) -> FetchPredicate {
    switch peek.kind {
    case .op(let op):
      advance()
      try refuseModifier()
      return .comparison(key, op, try parseValue())
    case .identifier(let word):
      let upper = word.uppercased()
      switch upper {
      case "IN":
        advance()
        return .in(key, try parseList(exactly: nil))
      case "BETWEEN":
        advance()
        let bounds = try parseList(exactly: 2)
        return .between(key, bounds[0], bounds[1])
      case "MATCHES":
        throw error(
          "MATCHES (an ICU regular expression) is not measured yet; use BEGINSWITH, CONTAINS, ENDSWITH or LIKE")
      default:
        guard let op = TextOperator(rawValue: upper) else { break }
        advance()
        try refuseModifier()
        let at = peek.position
        guard case .string(let s) = try parseValue() else {
          throw error("\(upper) takes a string ('…', or an argument that is one)", at: at)
        }
        return .text(key, op, s)
      }
    default: break
    }
    throw error(
      "expected an operator (==, !=, <, <=, >, >=, IN, BETWEEN, BEGINSWITH, CONTAINS, ENDSWITH, LIKE) after '\(key)'")
  }

  /// A `[c]`, `[d]` or `[cd]` after an operator: refused, naming what is compared instead.
  mutating func refuseModifier() throws(FetchError) {
    guard case .modifier(let m) = peek.kind else { return }
    throw error(
      """
      the [\(m)] modifier (case- or diacritic-insensitive matching) is not measured yet: FetchBench's operators \
      compare as NSPredicate's do without it; drop [\(m)]
      """)
  }

  /// The next argument, for the placeholder at the current token.
  mutating func argument(_ placeholder: String) throws(FetchError) -> String {
    guard argumentsUsed < arguments.count else {
      throw error("\(placeholder) has no argument: \(arguments.count) given; give one --arg per placeholder, in order")
    }
    argumentsUsed += 1
    return arguments[argumentsUsed - 1]
  }

  /// A value: a literal, `CAST(seconds, "NSDate")`, a placeholder or a variable.
  mutating func parseValue() throws(FetchError) -> Value {
    switch peek.kind {
    case .placeholder(let letter) where letter != "K":
      let text = try argument("%\(letter)")
      let value = Self.literal(argument: text)
      switch letter {
      case "d", "i":
        guard case .integer = value else {
          throw error("%\(letter) takes a whole number, and its argument is '\(text)'")
        }
      case "f":
        switch value {
        case .integer(let n):
          advance()
          return .double(Double(n))
        case .double: break
        default: throw error("%f takes a number, and its argument is '\(text)'")
        }
      default: break
      }
      advance()
      return value
    case .variable(let name):
      guard let text = variables[name] else {
        throw error("$\(name) has no value; give --var \(name)=VALUE")
      }
      advance()
      return Self.literal(argument: text)
    case .identifier(let w) where w.uppercased() == "CAST":
      return try parseCast()
    default:
      return try parseLiteral()
    }
  }

  /// `CAST(726000000, "NSDate")`: a date as seconds since 2001-01-01 (NSDate's reference).
  mutating func parseCast() throws(FetchError) -> Value {
    let start = peek.position
    advance()
    guard peek.kind == .lparen else { throw error("expected '(' after CAST") }
    advance()
    guard case .number(let n) = peek.kind, let seconds = n.numeric else {
      throw error("CAST takes a number of seconds since 2001-01-01, then \"NSDate\"")
    }
    advance()
    guard peek.kind == .comma else { throw error("expected ', \"NSDate\"'") }
    advance()
    guard case .string("NSDate") = peek.kind else { throw error("FetchBench casts to \"NSDate\" only") }
    advance()
    guard peek.kind == .rparen else { throw error("expected ')' to close the CAST at \(start + 1)") }
    advance()
    return .date(seconds + Self.referenceDate)
  }

  /// NSDate's reference date, 2001-01-01 UTC, in seconds since 1970.
  static let referenceDate = 978_307_200.0

  /// An argument's value: the one literal it spells (`12`, `'02139'`, `2009-01-01`, `nil`),
  /// else its text.
  static func literal(argument text: String) -> Value {
    guard var p = try? Parser(text), let v = try? p.parseLiteral(), p.peek.kind == .end else { return .string(text) }
    return v
  }

  mutating func parseList(exactly count: Int?) throws(FetchError) -> [Value] {
    switch peek.kind {
    case .placeholder("@"), .variable:
      let at = peek.position
      let text: String
      if case .variable(let name) = peek.kind {
        guard let v = variables[name] else { throw error("$\(name) has no value; give --var \(name)=VALUE") }
        text = v
      } else {
        text = try argument("%@")
      }
      var inner: Parser
      do {
        inner = try Parser(text)
      } catch {
        throw self.error("its argument '\(text)' is not a list such as {'TX', 'CA'}", at: at)
      }
      let values: [Value]
      do {
        values = try inner.parseList(exactly: count)
      } catch {
        throw self.error(
          "its argument '\(text)' is not a list\(count.map { " of \($0) values" } ?? "") such as {'TX', 'CA'}", at: at)
      }
      guard inner.peek.kind == .end else { throw self.error("its argument '\(text)' has more than a list", at: at) }
      advance()
      return values
    default: break
    }
    guard peek.kind == .lbrace else { throw error("expected '{'") }
    let start = peek.position
    advance()
    var values: [Value] = []
    if peek.kind != .rbrace {
      values.append(try parseValue())
      while peek.kind == .comma {
        advance()
        values.append(try parseValue())
      }
    }
    guard peek.kind == .rbrace else { throw error("expected ',' or '}'") }
    if let count, values.count != count {
      throw error("expected \(count) values in braces, found \(values.count)", at: start)
    }
    advance()
    return values
  }

  mutating func parseLiteral() throws(FetchError) -> Value {
    let value: Value
    switch peek.kind {
    case .string(let s): value = .string(s)
    case .number(let v): value = v
    case .date(let d): value = .date(d)
    case .identifier(let w) where ["nil", "null"].contains(w.lowercased()): value = .null
    case .identifier(let w) where ["true", "yes"].contains(w.lowercased()): value = .bool(true)
    case .identifier(let w) where ["false", "no"].contains(w.lowercased()): value = .bool(false)
    default: throw error("expected a value (a 'string', a number, a date such as 2009-01-01, TRUE, FALSE or nil)")
    }
    advance()
    return value
  }

  static func lex(_ text: String) throws(FetchError) -> [Token] {
    let chars = Array(text)
    var tokens: [Token] = []
    var i = 0
    func fail(_ m: String, _ at: Int) -> FetchError {
      .parse(ParseError(message: m, input: text, position: at))
    }
    func isIdentifierChar(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" || c == "." }
    while i < chars.count {
      let c = chars[i]
      let start = i
      if c.isWhitespace {
        i += 1
        continue
      }
      func emit(_ k: TokenKind, length: Int) {
        tokens.append(Token(kind: k, position: start))
        i += length
      }
      let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
      switch c {
      case "{": emit(.lbrace, length: 1)
      case "}": emit(.rbrace, length: 1)
      case "(": emit(.lparen, length: 1)
      case ")": emit(.rparen, length: 1)
      case ",": emit(.comma, length: 1)
      case "=": emit(.op(.equal), length: next == "=" ? 2 : 1)
      case "!" where next == "=": emit(.op(.notEqual), length: 2)
      case "!": emit(.not, length: 1)
      case "<" where next == ">": emit(.op(.notEqual), length: 2)
      case "<": next == "=" ? emit(.op(.lessOrEqual), length: 2) : emit(.op(.less), length: 1)
      case ">": next == "=" ? emit(.op(.greaterOrEqual), length: 2) : emit(.op(.greater), length: 1)
      case "%" where next.map({ "@Kdif".contains($0) }) == true: emit(.placeholder(next!), length: 2)
      case "$" where next.map({ $0.isLetter || $0 == "_" }) == true:
        var j = i + 1
        while j < chars.count && (chars[j].isLetter || chars[j].isNumber || chars[j] == "_") { j += 1 }
        tokens.append(Token(kind: .variable(String(chars[(i + 1)..<j])), position: start))
        i = j
      case "[":
        var j = i + 1
        while j < chars.count && chars[j].isLetter { j += 1 }
        let letters = String(chars[(i + 1)..<j]).lowercased()
        guard j < chars.count, chars[j] == "]", ["c", "d", "cd", "dc", "n", "l"].contains(letters) else {
          throw fail("expected a modifier, [c], [d] or [cd]", start)
        }
        emit(.modifier(letters), length: j - i + 1)
      case "@":
        throw fail(
          "collection operators (@count, @sum, …) read through a to-many relationship, not modelled yet", start)
      case "&" where next == "&": emit(.and, length: 2)
      case "|" where next == "|": emit(.or, length: 2)
      case "'", "\"":
        let end = try stringEnd(chars, from: i, text: text)
        tokens.append(Token(kind: .string(unescaped(chars[(i + 1)..<end])), position: start))
        i = end + 1
      case _ where c.isNumber || (c == "-" && (next?.isNumber ?? false)):
        var j = i + 1
        while j < chars.count && (chars[j].isNumber || ".-:TZ+e".contains(chars[j])) { j += 1 }
        tokens.append(Token(kind: try numberOrDate(String(chars[i..<j]), at: start, text: text), position: start))
        i = j
      case _ where c.isLetter || c == "_":
        var j = i + 1
        while j < chars.count && isIdentifierChar(chars[j]) { j += 1 }
        let word = String(chars[i..<j])
        switch word.uppercased() {
        case "AND": tokens.append(Token(kind: .and, position: start))
        case "OR": tokens.append(Token(kind: .or, position: start))
        case "NOT": tokens.append(Token(kind: .not, position: start))
        default: tokens.append(Token(kind: .identifier(word), position: start))
        }
        i = j
      default:
        throw fail("unexpected character '\(c)'", start)
      }
    }
    tokens.append(Token(kind: .end, position: chars.count))
    return tokens
  }

  /// The index of the quote that closes the string opened at `start`; a backslash escapes the
  /// character after it. O(string).
  static func stringEnd(_ chars: [Character], from start: Int, text: String) throws(FetchError) -> Int {
    var j = start + 1
    while j < chars.count && chars[j] != chars[start] {
      if chars[j] == "\\" && j + 1 < chars.count { j += 1 }
      j += 1
    }
    guard j < chars.count else {
      throw .parse(ParseError(message: "unterminated string", input: text, position: start))
    }
    return j
  }

  /// A string literal's characters with each backslash escape resolved to the character after it.
  static func unescaped(_ chars: ArraySlice<Character>) -> String {
    var s = ""
    var j = chars.startIndex
    while j < chars.endIndex {
      if chars[j] == "\\" && j + 1 < chars.endIndex { j += 1 }
      s.append(chars[j])
      j += 1
    }
    return s
  }

  /// A date (`YYYY-MM-DD`, or with a time), an integer or a finite double.
  static func numberOrDate(_ word: String, at start: Int, text: String) throws(FetchError) -> TokenKind {
    func fail(_ m: String) -> FetchError { .parse(ParseError(message: m, input: text, position: start)) }
    if word.count >= 10, word.dropFirst().contains("-") {
      guard let secs = ISO8601.parse(Substring(word)) else {
        throw fail("'\(word)' is not a date (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)")
      }
      return .date(Double(secs))
    }
    if let v = Int64(word) { return .number(.integer(v)) }
    guard let d = Double(word) else { throw fail("'\(word)' is not a number") }
    // 1e400 reads as infinity: no column holds it, and SQL has no literal for it.
    guard d.isFinite else { throw fail("'\(word)' is beyond the range of a double") }
    return .number(.double(d))
  }
}
