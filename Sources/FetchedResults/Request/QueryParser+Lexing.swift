/// The predicate and sort texts' tokens: words, literals, operators, placeholders, modifiers.
extension Parser {
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
        // A SUBQUERY's variable reads its element's key paths: `$t.name`.
        var j = i + 1
        while j < chars.count && (isIdentifierChar(chars[j]) || (chars[j] == "@" && chars[j - 1] == ".")) { j += 1 }
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
      case "." where next == "@":
        // After SUBQUERY(…): `.@count`.
        var j = i + 2
        while j < chars.count && chars[j].isLetter { j += 1 }
        emit(.collectionOperator(String(chars[(i + 2)..<j])), length: j - i)
      case "@":
        throw fail("a collection operator follows a to-many relationship's name: tags.@count", start)
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
        // `tags.@count`: a collection operator after a to-many relationship's name.
        while j < chars.count && (isIdentifierChar(chars[j]) || (chars[j] == "@" && chars[j - 1] == ".")) { j += 1 }
        // A selector's colon (`localizedStandardCompare:`) ends its name.
        if j < chars.count && chars[j] == ":" { j += 1 }
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
