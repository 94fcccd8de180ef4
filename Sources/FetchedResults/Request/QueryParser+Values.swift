/// What NSPredicate's format syntax adds to a literal: placeholders filled from the arguments,
/// variables, CAST to a date, and the modifiers it refuses.
extension Parser {
  /// A `[c]`, `[d]` or `[cd]` after an operator, if any; `[n]` and `[l]` refused.
  mutating func parseFold() throws(FetchError) -> TextFold {
    guard case .modifier(let m) = peek.kind else { return [] }
    var fold: TextFold = []
    for letter in m {
      switch letter {
      case "c": fold.insert(.caseInsensitive)
      case "d": fold.insert(.diacriticInsensitive)
      default:
        throw error("the [\(m)] modifier is not measured: FetchBench folds strings by [c], [d] and [cd]; drop [\(m)]")
      }
    }
    advance()
    return fold
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
      variablesUsed.insert(name)
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
}
