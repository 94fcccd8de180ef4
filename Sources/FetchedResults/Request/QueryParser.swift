/// Parses the command line's text forms of predicates and sort descriptors.
///
/// Predicates in NSPredicate's format syntax, to-one key paths: `state IN {'TX','CA'} AND
/// details.closeDate > 2009-01-01`, `name BEGINSWITH 'First'`, `name ENDSWITH[…]`, `name LIKE
/// 'A*'`, `totalDepth BETWEEN {1000, 5000}`, `NOT (field == nil)`; AND/OR/NOT (or `&&`, `||`,
/// `!`), parentheses, TRUEPREDICATE/FALSEPREDICATE, ISO 8601 dates and `CAST(726000000,
/// "NSDate")` (seconds since 2001); `%@`, `%K`, `%d`, `%i`, `%f` filled from `arguments` in
/// order, `$NAME` from `variables`. Sorts: `details.closeDate desc, name asc localizedStandardCompare:`.
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
    if let unused = variables.keys.sorted().first(where: { !p.variablesUsed.contains($0) }) {
      throw p.error(
        "the variable '\(unused)' fills no $\(unused) of the predicate; drop --var \(unused)=… or use $\(unused)",
        at: 0)
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
      if case .identifier(let dir) = p.peek.kind, ["asc", "ascending", "desc", "descending"].contains(dir.lowercased())
      {
        ascending = dir.lowercased().hasPrefix("asc")
        p.advance()
      }
      var selector = SortSelector.compare
      if case .identifier(let name) = p.peek.kind {
        guard let s = SortSelector(named: name) else {
          throw p.error(
            """
            expected asc, desc or a selector (\(SortSelector.allCases.map(\.rawValue).joined(separator: ", ")))
            """)
        }
        selector = s
        p.advance()
      }
      out.append(SortDescriptor(key, ascending: ascending, selector: selector))
    } while p.peek.kind == .comma
    guard p.peek.kind == .end else { throw p.error("expected ',' or the end of the sort list") }
    return out
  }
}

enum TokenKind: Equatable {
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
  /// `.@count` after a SUBQUERY: the operator's name.
  case collectionOperator(String)
  case lbrace, rbrace, lparen, rparen, comma, and, or, not, end
}

struct Token {
  var kind: TokenKind
  var position: Int
}

struct Parser {
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
  var variablesUsed: Set<String> = []
  /// Inside a SUBQUERY: its variable (`t` of `$t`), whose key paths are the element's.
  var elementVariable: String?

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
    case .identifier(let word) where ["ANY", "SOME", "ALL", "NONE"].contains(word.uppercased()):
      return try parseAggregate(word.uppercased())
    case .identifier(let word) where word.uppercased() == "SUBQUERY":
      return try parseSubquery()
    case .variable(let name) where elementVariable != nil:
      let key = try elementKey(name)
      advance()
      return try parseComparison(key)
    case .identifier(let key):
      if let variable = elementVariable {
        throw error("inside SUBQUERY(…, $\(variable), …) name the element's key paths as $\(variable).\(key)")
      }
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
    if let at = key.firstRange(of: ".@") { return try parseCount(key, relationship: String(key[..<at.lowerBound])) }
    switch peek.kind {
    case .op(let op):
      advance()
      let at = peek.position
      let fold = try parseFold()
      guard !fold.isEmpty else { return .comparison(key, op, try parseValue()) }
      // ==[c] and !=[c] compare folded strings; an ordering has no folded form here.
      guard op == .equal || op == .notEqual else {
        throw error("\(fold.modifier) applies to ==, !=, BEGINSWITH, CONTAINS, ENDSWITH, LIKE and MATCHES", at: at)
      }
      let valueAt = peek.position
      guard case .string(let s) = try parseValue() else {
        throw error(
          "\(op == .equal ? "==" : "!=")\(fold.modifier) takes a string ('…', or an argument that is one)", at: valueAt)
      }
      let equals = FetchPredicate.text(key, .equals, s, fold)
      return op == .equal ? equals : .not(equals)
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
      default:
        guard let op = TextOperator(rawValue: upper) else { break }
        advance()
        let fold = try parseFold()
        let at = peek.position
        guard case .string(let s) = try parseValue() else {
          throw error("\(upper) takes a string ('…', or an argument that is one)", at: at)
        }
        return .text(key, op, s, fold)
      }
    default: break
    }
    throw error(
      "expected an operator (==, !=, <, <=, >, >=, IN, BETWEEN, BEGINSWITH, CONTAINS, ENDSWITH, LIKE) after '\(key)'")
  }

  mutating func parseList(exactly count: Int?) throws(FetchError) -> [Value] {
    switch peek.kind {
    case .placeholder("@"), .variable:
      let at = peek.position
      let text: String
      if case .variable(let name) = peek.kind {
        guard let v = variables[name] else { throw error("$\(name) has no value; give --var \(name)=VALUE") }
        variablesUsed.insert(name)
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
}

/// NSPredicate's tests of a to-many relationship: `ANY`/`SOME`/`ALL`/`NONE` before a key path
/// through it, `tags.@count`, `SUBQUERY(tags, $t, …).@count`.
extension Parser {
  /// `ANY tags.name == 'x'`: the word's test of the elements, the comparison after the
  /// relationship's name over each element's own key path.
  mutating func parseAggregate(_ word: String) throws(FetchError) -> FetchPredicate {
    advance()
    let at = peek.position
    let key: String
    switch peek.kind {
    case .identifier(let k): key = k
    case .placeholder("K"): key = try argument("%K")
    default: throw error("\(word) takes a key path through a to-many relationship, e.g. \(word) tags.name == 'x'")
    }
    guard let dot = key.firstIndex(of: "."), !key.contains("@") else {
      throw error(
        "\(word) takes a key path through a to-many relationship, e.g. \(word) tags.name == 'x'; '\(key)' is not one",
        at: at)
    }
    advance()
    let inner = try parseComparison(String(key[key.index(after: dot)...]))
    let relationship = String(key[..<dot])
    switch word {
    case "ALL": return .collection(relationship, .all(inner))
    case "NONE": return .collection(relationship, .none(inner))
    default: return .collection(relationship, .any(inner))
    }
  }

  /// `SUBQUERY(tags, $t, $t.name BEGINSWITH 'a').@count > 0`.
  mutating func parseSubquery() throws(FetchError) -> FetchPredicate {
    let start = peek.position
    guard elementVariable == nil else { throw error("a SUBQUERY inside a SUBQUERY is not measured") }
    advance()
    guard peek.kind == .lparen else { throw error("expected '(' after SUBQUERY") }
    advance()
    guard case .identifier(let relationship) = peek.kind, !relationship.contains(".") else {
      throw error("expected a to-many relationship's name, as in SUBQUERY(tags, $t, $t.name == 'x')")
    }
    advance()
    guard peek.kind == .comma else {
      throw error("expected ',' and the element's variable, as in SUBQUERY(tags, $t, …)")
    }
    advance()
    guard case .variable(let variable) = peek.kind, !variable.contains(".") else {
      throw error("expected the element's variable, as in SUBQUERY(tags, $t, …)")
    }
    advance()
    guard peek.kind == .comma else { throw error("expected ',' and a predicate over $\(variable)") }
    advance()
    elementVariable = variable
    let inner = try parseOr()
    elementVariable = nil
    guard peek.kind == .rparen else { throw error("expected ')' to close the SUBQUERY") }
    advance()
    guard case .collectionOperator(let op) = peek.kind else {
      throw error("a SUBQUERY is counted: follow it with .@count and a comparison", at: start)
    }
    guard op == "count" else { throw error("SUBQUERY(…).@\(op) is not measured; count it with .@count") }
    advance()
    return try parseCountComparison(relationship: relationship, elements: inner)
  }

  /// The element's key path `$t.name` names inside a SUBQUERY over `$t`.
  func elementKey(_ name: String) throws(FetchError) -> String {
    let variable = elementVariable!
    guard name.hasPrefix(variable + "."), name.count > variable.count + 1 else {
      throw error("inside SUBQUERY(…, $\(variable), …) name the element's attributes as $\(variable).name")
    }
    return String(name.dropFirst(variable.count + 1))
  }

  /// `tags.@count > 2`, after the key path has been read.
  mutating func parseCount(_ key: String, relationship: String) throws(FetchError) -> FetchPredicate {
    let op = key[key.index(key.firstRange(of: ".@")!.lowerBound, offsetBy: 2)...]
    guard op == "count", !relationship.contains(".") else {
      throw error(
        """
        '\(key)': FetchBench measures \(relationship.isEmpty ? "tags" : relationship).@count on a to-many \
        relationship of the entity; @sum, @avg, @min and @max are not measured
        """, at: tokens[index - 1].position)
    }
    return try parseCountComparison(relationship: relationship, elements: nil)
  }

  /// `op N` after a count of `relationship`'s elements (those `elements` matches).
  mutating func parseCountComparison(relationship: String, elements: FetchPredicate?) throws(FetchError)
    -> FetchPredicate
  {
    guard case .op(let op) = peek.kind else {
      throw error("expected a comparison (==, !=, <, <=, >, >=) and a whole number after @count")
    }
    advance()
    let at = peek.position
    guard case .integer(let n) = try parseValue() else { throw error("@count compares with a whole number", at: at) }
    return .collection(relationship, .count(elements, op, n))
  }
}
