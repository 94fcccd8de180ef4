import Catalog
import FetchedResults
import Foundation
import SQLQueries
import SQLiteStore
import TestSupport
import Testing

/// The oracle of NSPredicate's syntax: random predicates from a grammar written here (every
/// comparison, BETWEEN, IN, the string operators with and without `[c]`/`[d]`/`[cd]`, nil,
/// TRUEPREDICATE/FALSEPREDICATE, `%@ %K %d` placeholders with their arguments, `$VARIABLES`,
/// ISO dates and `CAST(…, "NSDate")`, AND/OR/NOT in both spellings, nested), rendered as text,
/// parsed by the engine and run on every store; each store's IDs equal the grammar's own
/// three-valued evaluation of the same tree over records built straight from the generator.
@Suite struct PredicateOracle {
  /// A predicate as the grammar builds it, apart from the engine's types.
  indirect enum Expr {
    case compare(Field, String, Literal)
    case isNil(Field, Bool)
    case between(Field, Literal, Literal)
    case among(Field, [Literal])
    case text(Field, String, String, fold: String)
    case foldedEquals(Field, String, fold: String, negated: Bool)
    case constant(Bool)
    case and(Expr, Expr, String)
    case or(Expr, Expr, String)
    case not(Expr, String)
  }

  enum Kind { case string, integer, double, date }

  struct Field {
    var keyPath: String
    var kind: Kind
  }

  /// A literal with its value (dates in seconds since 1970) and how the text spells it.
  struct Literal {
    var value: Value
    var spelling: String
    /// How an app's argument or variable gives it (`--arg`: a date as ISO 8601, never a CAST).
    var argument: String

    init(value: Value, spelling: String, argument: String? = nil) {
      (self.value, self.spelling, self.argument) = (value, spelling, argument ?? spelling)
    }
  }

  /// What a rendered predicate needs beside its text.
  struct Rendered {
    var text = ""
    var arguments: [String] = []
    var variables: [String: String] = [:]
  }

  static let fields: [DatasetKind: [Field]] = [
    .wells: [
      Field(keyPath: "apiNumber", kind: .string), Field(keyPath: "wellName", kind: .string),
      Field(keyPath: "operator", kind: .string), Field(keyPath: "field", kind: .string),
      Field(keyPath: "county", kind: .string), Field(keyPath: "state", kind: .string),
      Field(keyPath: "latitude", kind: .double), Field(keyPath: "longitude", kind: .double),
      Field(keyPath: "spudDate", kind: .date), Field(keyPath: "status", kind: .string),
      Field(keyPath: "totalDepth", kind: .integer),
    ],
    .banks: [
      Field(keyPath: "name", kind: .string), Field(keyPath: "city", kind: .string),
      Field(keyPath: "state", kind: .string), Field(keyPath: "details.closeDate", kind: .date),
      Field(keyPath: "details.zip", kind: .string), Field(keyPath: "details.cert", kind: .integer),
      Field(keyPath: "details.acquiringInstitution", kind: .string),
    ],
  ]

  /// The grammar, drawing literals from the records so that predicates select something.
  struct Grammar {
    var random: SeededGenerator
    let records: [Reference.Record]
    let fields: [Field]

    mutating func pick<T>(_ xs: [T]) -> T { xs[Int(random.next() % UInt64(xs.count))] }
    mutating func chance(_ p: Double) -> Bool { Double(random.next() % 10_000) / 10_000 < p }

    /// A value of `field` some record has (nil: a NULL there).
    mutating func sample(_ field: Field) -> Value {
      for _ in 0..<8 {
        let v = pick(records)[field.keyPath]!
        if case .string(let s) = v, s.contains("'") || s.contains("\\") || s.contains("*") || s.contains("?") {
          continue
        }
        if !v.isNull { return v }
      }
      return .null
    }

    mutating func literal(_ field: Field) -> Literal? {
      switch sample(field) {
      case .string(let s): return Literal(value: .string(s), spelling: "'\(s)'")
      case .integer(let i): return Literal(value: .integer(i), spelling: String(i))
      case .double(let d):
        let rounded = (d * 100).rounded() / 100
        return Literal(value: .double(rounded), spelling: String(format: "%.2f", rounded))
      case .date(let d):
        let day = (d / 86_400).rounded(.down) * 86_400
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withFullDate]
        let iso = f.string(from: Date(timeIntervalSince1970: day))
        if chance(0.5) {
          return Literal(value: .date(day), spelling: "CAST(\(Int64(day - 978_307_200)), \"NSDate\")", argument: iso)
        }
        return Literal(value: .date(day), spelling: iso)
      default: return nil
      }
    }

    /// A pattern from a piece of a string value: cut, maybe recased, maybe wildcarded.
    mutating func pattern(_ s: String, _ op: String) -> String {
      let scalars = Array(s.unicodeScalars)
      let n = max(1, min(scalars.count, 1 + Int(random.next() % 5)))
      let start =
        op == "BEGINSWITH"
        ? 0 : op == "ENDSWITH" ? scalars.count - n : Int(random.next() % UInt64(scalars.count - n + 1))
      var piece = String(String.UnicodeScalarView(scalars[start..<(start + n)]))
      if chance(0.3) { piece = piece.uppercased() }
      if op == "MATCHES" {
        // The piece escaped, a letter now and then any character or a class, between runs of
        // anything or an alternation.
        var regex = ""
        for c in piece {
          let roll = random.next() % 10
          regex +=
            roll == 0 ? "." : roll == 1 && c.isLetter ? "[A-Za-z]" : NSRegularExpression.escapedPattern(for: String(c))
        }
        if chance(0.2) { regex = "(?:\(regex)|zz\\d+)" }
        return (chance(0.7) ? ".*" : "") + regex + (chance(0.7) ? ".*" : "")
      }
      guard op == "LIKE" else { return piece }
      var out = chance(0.7) ? "*" : ""
      for c in piece { out += chance(0.15) ? "?" : String(c) }
      return out + (chance(0.7) ? "*" : "")
    }

    mutating func leaf() -> Expr {
      let field = pick(fields)
      let roll = random.next() % 100
      switch roll {
      case 0..<4: return .constant(chance(0.5))
      case 4..<10: return .isNil(field, chance(0.5))
      case 10..<40:
        guard let l = literal(field) else { return .isNil(field, true) }
        let ops =
          field.kind == .string && chance(0.5) ? ["==", "=", "!=", "<>"] : ["==", "!=", "<", "<=", ">", ">=", "<>"]
        return .compare(field, pick(ops), l)
      case 40..<50:
        guard let a = literal(field), let b = literal(field) else { return .isNil(field, false) }
        return Reference.order(a.value, b.value) <= 0 ? .between(field, a, b) : .between(field, b, a)
      case 50..<60:
        let values = (0..<(1 + Int(random.next() % 4))).compactMap { _ in literal(field) }
        return values.isEmpty ? .constant(false) : .among(field, values)
      default:
        let strings = fields.filter { $0.kind == .string }
        let f = pick(strings)
        guard case .string(let s) = sample(f), !s.isEmpty else { return .isNil(f, true) }
        let fold = pick(["", "", "c", "d", "cd"])
        if chance(0.2) {
          return .foldedEquals(
            f, chance(0.3) ? s.uppercased() : s, fold: fold.isEmpty ? "c" : fold, negated: chance(0.3))
        }
        let op = pick(["BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "MATCHES"])
        return .text(f, op, pattern(s, op), fold: op == "MATCHES" ? pick(["", "c"]) : fold)
      }
    }

    mutating func expr(depth: Int) -> Expr {
      guard depth > 0, chance(0.6) else { return leaf() }
      switch random.next() % 5 {
      case 0, 1: return .and(expr(depth: depth - 1), expr(depth: depth - 1), pick(["AND", "&&", "and"]))
      case 2, 3: return .or(expr(depth: depth - 1), expr(depth: depth - 1), pick(["OR", "||", "or"]))
      default: return .not(expr(depth: depth - 1), pick(["NOT ", "!", "not "]))
      }
    }
  }

  /// The text of `e`, some literals and key paths as placeholders or variables.
  static func render(_ e: Expr, _ out: inout Rendered, _ random: inout SeededGenerator) -> String {
    func key(_ f: Field) -> String {
      guard random.next() % 6 == 0 else { return f.keyPath }
      out.arguments.append(f.keyPath)
      return "%K"
    }
    func lit(_ l: Literal) -> String {
      switch random.next() % 6 {
      case 0:
        out.arguments.append(l.argument)
        if case .integer = l.value { return "%d" }
        return "%@"
      case 1:
        let name = "V\(out.variables.count)"
        out.variables[name] = l.argument
        return "$" + name
      default: return l.spelling
      }
    }
    switch e {
    case .compare(let f, let op, let l): return "\(key(f)) \(op) \(lit(l))"
    case .isNil(let f, let isNil):
      return "\(f.keyPath) \(isNil ? "==" : "!=") \(random.next() % 2 == 0 ? "nil" : "NULL")"
    case .between(let f, let a, let b): return "\(key(f)) BETWEEN {\(a.spelling), \(b.spelling)}"
    case .among(let f, let ls): return "\(key(f)) IN {\(ls.map(\.spelling).joined(separator: ", "))}"
    case .text(let f, let op, let p, let fold):
      return "\(key(f)) \(op)\(fold.isEmpty ? "" : "[\(fold)]") \(lit(Literal(value: .string(p), spelling: "'\(p)'")))"
    case .foldedEquals(let f, let s, let fold, let negated):
      return "\(key(f)) \(negated ? "!=" : "==")[\(fold)] '\(s)'"
    case .constant(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
    case .and(let a, let b, let word): return "(\(render(a, &out, &random)) \(word) \(render(b, &out, &random)))"
    case .or(let a, let b, let word): return "(\(render(a, &out, &random)) \(word) \(render(b, &out, &random)))"
    case .not(let a, let word): return "\(word)(\(render(a, &out, &random)))"
    }
  }

  /// Whether `e` uses `[d]`, which PostgreSQL refuses.
  static func foldsDiacritics(_ e: Expr) -> Bool {
    switch e {
    case .text(_, _, _, let fold), .foldedEquals(_, _, let fold, _): fold.contains("d")
    case .and(let a, let b, _), .or(let a, let b, _): foldsDiacritics(a) || foldsDiacritics(b)
    case .not(let a, _): foldsDiacritics(a)
    default: false
    }
  }

  // MARK: the grammar's own evaluation

  /// Three-valued: nil is unknown. `postgres` folds case by a lowercase mapping, as `lower()`.
  static func eval(_ e: Expr, _ r: Reference.Record, postgres: Bool) -> Bool? {
    func fold(_ s: String, _ letters: String) -> String {
      if postgres { return letters.contains("c") ? s.lowercased() : s }
      var o: String.CompareOptions = []
      if letters.contains("c") { o.insert(.caseInsensitive) }
      if letters.contains("d") { o.insert(.diacriticInsensitive) }
      return o.isEmpty ? s : s.folding(options: o, locale: nil)
    }
    switch e {
    case .constant(let b): return b
    case .isNil(let f, let isNil): return r[f.keyPath]!.isNull == isNil
    case .compare(let f, let op, let l):
      let x = r[f.keyPath]!
      if x.isNull { return nil }
      let c = Reference.order(x, l.value)
      switch op {
      case "==", "=": return c == 0
      case "!=", "<>": return c != 0
      case "<": return c < 0
      case "<=": return c <= 0
      case ">": return c > 0
      default: return c >= 0
      }
    case .between(let f, let a, let b):
      let x = r[f.keyPath]!
      if x.isNull { return nil }
      return Reference.order(x, a.value) >= 0 && Reference.order(x, b.value) <= 0
    case .among(let f, let ls):
      let x = r[f.keyPath]!
      if x.isNull { return nil }
      return ls.contains { Reference.order(x, $0.value) == 0 }
    case .text(let f, let op, let p, let letters):
      guard case .string(let raw) = r[f.keyPath]! else { return nil }
      let x = Array(fold(raw, letters).utf8)
      let y = Array(fold(p, letters).utf8)
      switch op {
      case "MATCHES":
        // ICU's regular expressions (NSRegularExpression), anchored to the whole string.
        let regex = try! NSRegularExpression(
          pattern: "^(?:\(p))$", options: letters.contains("c") ? [.caseInsensitive] : [])
        return regex.firstMatch(in: raw, range: NSRange(raw.startIndex..., in: raw)) != nil
      case "BEGINSWITH": return x.starts(with: y)
      case "ENDSWITH": return x.count >= y.count && Array(x.suffix(y.count)) == y
      case "CONTAINS":
        return y.isEmpty
          || (0...max(0, x.count - y.count)).contains { x.count >= y.count && Array(x[$0..<($0 + y.count)]) == y }
      default:
        return TestSupport.glob(Array(fold(p, letters).unicodeScalars), Array(fold(raw, letters).unicodeScalars))
      }
    case .foldedEquals(let f, let s, let letters, let negated):
      guard case .string(let raw) = r[f.keyPath]! else { return nil }
      return (Array(fold(raw, letters).utf8) == Array(fold(s, letters).utf8)) != negated
    case .and(let a, let b, _):
      let (x, y) = (eval(a, r, postgres: postgres), eval(b, r, postgres: postgres))
      if x == false || y == false { return false }
      return x == nil || y == nil ? nil : true
    case .or(let a, let b, _):
      let (x, y) = (eval(a, r, postgres: postgres), eval(b, r, postgres: postgres))
      if x == true || y == true { return true }
      return x == nil || y == nil ? nil : false
    case .not(let a, _): return eval(a, r, postgres: postgres).map { !$0 }
    }
  }

  static let perKind = 260

  @Test(arguments: [DatasetKind.wells, .banks])
  func everyStoreSelectsWhatTheGrammarSelects(_ kind: DatasetKind) throws {
    let entity = kind == .banks ? "FailedBankInfo" : "Well"
    let records = Reference.records(kind, entity: entity)
    var grammar = Grammar(
      random: SeededGenerator(seed: kind == .banks ? 11 : 7), records: records,
      fields: Self.fields[kind]!)
    var stores: [(String, any Store)] = [
      ("memory", try EngineFixture.shared.store(kind, "memory")),
      ("sqlite", try EngineFixture.shared.store(kind, "sqlite")),
    ]
    let coreData = try EngineFixture.shared.store(kind, "sqlite")
    (coreData as! SQLiteStore).plan = .coreData
    stores.append(("sqlite-coredata", coreData))
    if EngineFixture.shared.postgres.url != nil {
      stores.append(("postgres", try EngineFixture.shared.store(kind, "postgres")))
    }
    var selecting = 0
    for n in 0..<Self.perKind {
      let e = grammar.expr(depth: 3)
      var rendered = Rendered()
      rendered.text = Self.render(e, &rendered, &grammar.random)
      let predicate = try QueryParser.predicate(
        rendered.text, arguments: rendered.arguments, variables: rendered.variables)
      let request = FetchRequest(entityName: entity, predicate: predicate, sortDescriptors: [SortDescriptor("id")])
      for (name, store) in stores {
        let postgres = name == "postgres"
        if postgres && Self.foldsDiacritics(e) { continue }
        let expected = records.filter { Self.eval(e, $0, postgres: postgres) == true }.compactMap { r -> Int64? in
          if case .integer(let id) = r["id"]! { id } else { nil }
        }
        if name == "memory" && !expected.isEmpty && expected.count < records.count { selecting += 1 }
        // Selection is what is compared: Core Data's statements order by no tie-breaker, so
        // a list by ID alone comes in SQLite's order there.
        let ids = try store.fetchIDs(request.resolve(in: store.model)).sorted()
        let same = ids == expected
        #expect(
          same,
          "\(kind) #\(n) on \(name): \(rendered.text) args \(rendered.arguments) vars \(rendered.variables): \(ids.count) rows, expected \(expected.count)"
        )
      }
    }
    // Most predicates select some rows and not all, or the test would test little.
    #expect(selecting > Self.perKind / 3, "\(selecting) of \(Self.perKind) select a row")
  }
}
