import Catalog
import DatasetStores
import FetchedResults
import Foundation
import GRDB
import PostgresStore
import SQLiteStore
import TestSupport
import Testing
import Vocabulary

/// The oracle of NSPredicate's tests of a to-many relationship: random predicates from a
/// grammar written here — ANY, SOME, ALL and NONE over every string operator (==, !=,
/// BEGINSWITH, CONTAINS, ENDSWITH, LIKE, MATCHES) with and without `[c]`/`[d]`/`[cd]` and nil
/// tests, `@count` and `SUBQUERY(…).@count` over nested inner predicates, beside the owner's own
/// attributes, under AND/OR/NOT, with `%K`, `%@`, `%d` and `$VARIABLES` — rendered as text,
/// parsed by the engine and run on every store. Each store's rows equal the grammar's own
/// evaluation over the raw tables: a Core Data model's one-to-many and its many-to-many from
/// both sides (memory, SQLite, Core Data's statements), and an app schema's planes ← flights in
/// SQLite and PostgreSQL.
@Suite struct ToManyOracle {
  /// The owners of one to-many relationship and their elements, as plain strings.
  struct World {
    var entity: String
    var relationship: String
    var ownerFields: [String]
    var elementFields: [String]
    var owners: [Int64: [String: String?]]
    /// Each owner's elements (absent: none).
    var elements: [Int64: [[String: String?]]]

    /// The counts a comparison draws from: up to the most elements an owner has.
    var mostElements: Int { elements.values.map(\.count).max() ?? 0 }

    func values(_ field: String, ofElements: Bool) -> [String] {
      (ofElements ? elements.values.flatMap { $0 } : Array(owners.values)).compactMap { $0[field] ?? nil }
    }
  }

  /// A test of one string (or its absence).
  struct Leaf {
    var field: String
    /// `==`, `!=`, a string operator, or `nil` / `!nil` for a nil test.
    var op: String
    var pattern: String
    var fold: String
  }

  indirect enum Inner {
    case leaf(Leaf)
    case and(Inner, Inner)
    case or(Inner, Inner)
    case not(Inner)
  }

  indirect enum Expr {
    case own(Leaf)
    case quantified(String, Leaf)
    case count(String, Int)
    case subquery(Inner, String, Int)
    case and(Expr, Expr)
    case or(Expr, Expr)
    case not(Expr)
  }

  struct Grammar {
    var state: UInt64
    let world: World
    let postgres: Bool

    mutating func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 33
    }
    mutating func chance(_ p: Double) -> Bool { Double(next() % 1000) < p * 1000 }
    mutating func pick<T>(_ xs: [T]) -> T { xs[Int(next() % UInt64(xs.count))] }

    mutating func leaf(_ field: String, elements: Bool) -> Leaf {
      if chance(0.12) { return Leaf(field: field, op: chance(0.5) ? "nil" : "!nil", pattern: "", fold: "") }
      let op = pick(["==", "!=", "BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "MATCHES"])
      let sample = pick(world.values(field, ofElements: elements))
      var fold = pick(["", "", "c", "d", "cd"])
      if op == "MATCHES" { fold = pick(["", "c"]) }
      if postgres { fold = fold.replacingOccurrences(of: "d", with: "") }
      if (op == "==" || op == "!=") && chance(0.5) { fold = "" }
      let scalars = Array(sample.unicodeScalars)
      let n = max(1, min(scalars.count, 1 + Int(next() % 5)))
      let start =
        op == "BEGINSWITH" ? 0 : op == "ENDSWITH" ? scalars.count - n : Int(next() % UInt64(scalars.count - n + 1))
      var piece = op == "==" || op == "!=" ? sample : String(String.UnicodeScalarView(scalars[start..<(start + n)]))
      if chance(0.3) { piece = piece.uppercased() }
      switch op {
      case "LIKE":
        piece =
          (chance(0.7) ? "*" : "") + piece.map { chance(0.15) ? "?" : String($0) }.joined() + (chance(0.7) ? "*" : "")
      case "MATCHES":
        piece =
          (chance(0.7) ? ".*" : "")
          + piece.map { chance(0.1) ? "." : NSRegularExpression.escapedPattern(for: String($0)) }
          .joined() + (chance(0.7) ? ".*" : "")
      default: break
      }
      return Leaf(field: field, op: op, pattern: piece, fold: fold)
    }

    mutating func inner(depth: Int) -> Inner {
      guard depth > 0, chance(0.5) else { return .leaf(leaf(pick(world.elementFields), elements: true)) }
      switch next() % 3 {
      case 0: return .and(inner(depth: depth - 1), inner(depth: depth - 1))
      case 1: return .or(inner(depth: depth - 1), inner(depth: depth - 1))
      default: return .not(inner(depth: depth - 1))
      }
    }

    mutating func expr(depth: Int) -> Expr {
      if depth > 0, chance(0.5) {
        switch next() % 3 {
        case 0: return .and(expr(depth: depth - 1), expr(depth: depth - 1))
        case 1: return .or(expr(depth: depth - 1), expr(depth: depth - 1))
        default: return .not(expr(depth: depth - 1))
        }
      }
      switch next() % 10 {
      case 0, 1: return .own(leaf(pick(world.ownerFields), elements: false))
      case 2, 3, 4, 5:
        return .quantified(pick(["ANY", "SOME", "ALL", "NONE"]), leaf(pick(world.elementFields), elements: true))
      case 6, 7: return .count(pick(["==", "!=", "<", "<=", ">", ">="]), Int(next() % UInt64(world.mostElements + 1)))
      default:
        let n = Int(next() % UInt64(world.mostElements / 2 + 1))
        return .subquery(inner(depth: 2), pick(["==", "!=", "<", "<=", ">", ">="]), n)
      }
    }
  }

  // MARK: rendering

  struct Rendered {
    var text = ""
    var arguments: [String] = []
    var variables: [String: String] = [:]
  }

  static func quoted(_ s: String) -> String {
    "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
  }

  /// `key op[fold] 'pattern'`, the pattern now and then a placeholder or a variable.
  static func render(_ l: Leaf, key: String, _ out: inout Rendered, _ g: inout Grammar) -> String {
    switch l.op {
    case "nil": return "\(key) == nil"
    case "!nil": return "\(key) != \(g.chance(0.5) ? "nil" : "NULL")"
    default:
      let value: String
      switch g.next() % 5 {
      case 0:
        out.arguments.append(quoted(l.pattern))
        value = "%@"
      case 1:
        let name = "V\(out.variables.count)"
        out.variables[name] = quoted(l.pattern)
        value = "$\(name)"
      default: value = quoted(l.pattern)
      }
      return "\(key) \(l.op)\(l.fold.isEmpty ? "" : "[\(l.fold)]") \(value)"
    }
  }

  static func render(_ i: Inner, variable: String, _ out: inout Rendered, _ g: inout Grammar) -> String {
    switch i {
    case .leaf(let l): render(l, key: "$\(variable).\(l.field)", &out, &g)
    case .and(let a, let b):
      "(\(render(a, variable: variable, &out, &g)) AND \(render(b, variable: variable, &out, &g)))"
    case .or(let a, let b): "(\(render(a, variable: variable, &out, &g)) || \(render(b, variable: variable, &out, &g)))"
    case .not(let a): "NOT (\(render(a, variable: variable, &out, &g)))"
    }
  }

  static func render(_ e: Expr, _ w: World, _ out: inout Rendered, _ g: inout Grammar) -> String {
    switch e {
    case .own(let l): return render(l, key: l.field, &out, &g)
    case .quantified(let word, let l):
      var key = "\(w.relationship).\(l.field)"
      if g.chance(0.2) {
        out.arguments.append(key)
        key = "%K"
      }
      return "\(word) " + render(l, key: key, &out, &g)
    case .count(let op, let n):
      guard g.chance(0.8) else {
        out.arguments.append(String(n))
        return "\(w.relationship).@count \(op) %d"
      }
      return "\(w.relationship).@count \(op) \(n)"
    case .subquery(let i, let op, let n):
      let v = g.pick(["x", "t", "e"])
      return "SUBQUERY(\(w.relationship), $\(v), \(render(i, variable: v, &out, &g))).@count \(op) \(n)"
    case .and(let a, let b): return "(\(render(a, w, &out, &g)) AND \(render(b, w, &out, &g)))"
    case .or(let a, let b): return "(\(render(a, w, &out, &g)) OR \(render(b, w, &out, &g)))"
    case .not(let a): return "NOT (\(render(a, w, &out, &g)))"
    }
  }

  // MARK: the grammar's own evaluation

  /// Three-valued: nil is unknown. `postgres` folds case by a lowercase mapping, as `lower()`.
  static func eval(_ l: Leaf, _ row: [String: String?], postgres: Bool) -> Bool? {
    let value = row[l.field] ?? nil
    switch l.op {
    case "nil": return value == nil
    case "!nil": return value != nil
    default: break
    }
    guard let raw = value else { return nil }
    if l.op == "MATCHES" {
      let regex = try! NSRegularExpression(
        pattern: "^(?:\(l.pattern))$", options: l.fold.contains("c") ? [.caseInsensitive] : [])
      return regex.firstMatch(in: raw, range: NSRange(raw.startIndex..., in: raw)) != nil
    }
    func fold(_ s: String) -> String {
      if postgres { return l.fold.contains("c") ? s.lowercased() : s }
      var o: String.CompareOptions = []
      if l.fold.contains("c") { o.insert(.caseInsensitive) }
      if l.fold.contains("d") { o.insert(.diacriticInsensitive) }
      return o.isEmpty ? s : s.folding(options: o, locale: nil)
    }
    let (x, y) = (Array(fold(raw).utf8), Array(fold(l.pattern).utf8))
    switch l.op {
    case "==": return x == y
    case "!=": return x != y
    case "BEGINSWITH": return x.starts(with: y)
    case "ENDSWITH": return x.count >= y.count && Array(x.suffix(y.count)) == y
    case "CONTAINS":
      return y.isEmpty
        || (x.count >= y.count && (0...(x.count - y.count)).contains { Array(x[$0..<($0 + y.count)]) == y })
    default: return TestSupport.glob(Array(fold(l.pattern).unicodeScalars), Array(fold(raw).unicodeScalars))
    }
  }

  static func eval(_ i: Inner, _ row: [String: String?], postgres: Bool) -> Bool? {
    switch i {
    case .leaf(let l): return eval(l, row, postgres: postgres)
    case .and(let a, let b):
      let (x, y) = (eval(a, row, postgres: postgres), eval(b, row, postgres: postgres))
      if x == false || y == false { return false }
      return x == nil || y == nil ? nil : true
    case .or(let a, let b):
      let (x, y) = (eval(a, row, postgres: postgres), eval(b, row, postgres: postgres))
      if x == true || y == true { return true }
      return x == nil || y == nil ? nil : false
    case .not(let a): return eval(a, row, postgres: postgres).map { !$0 }
    }
  }

  static func compare(_ n: Int, _ op: String, _ k: Int) -> Bool {
    switch op {
    case "==": n == k
    case "!=": n != k
    case "<": n < k
    case "<=": n <= k
    case ">": n > k
    default: n >= k
    }
  }

  /// An element counts when its test is true (for ALL, when it is not); a collection test is
  /// never unknown.
  static func eval(_ e: Expr, _ id: Int64, _ w: World, postgres: Bool) -> Bool? {
    let elements = w.elements[id] ?? []
    switch e {
    case .own(let l): return eval(l, w.owners[id]!, postgres: postgres)
    case .quantified(let word, let l):
      let results = elements.map { eval(l, $0, postgres: postgres) }
      switch word {
      case "ALL": return !results.contains { $0 != true }
      case "NONE": return !results.contains(true)
      default: return results.contains(true)
      }
    case .count(let op, let n): return compare(elements.count, op, n)
    case .subquery(let i, let op, let n):
      return compare(elements.filter { eval(i, $0, postgres: postgres) == true }.count, op, n)
    case .and(let a, let b):
      let (x, y) = (eval(a, id, w, postgres: postgres), eval(b, id, w, postgres: postgres))
      if x == false || y == false { return false }
      return x == nil || y == nil ? nil : true
    case .or(let a, let b):
      let (x, y) = (eval(a, id, w, postgres: postgres), eval(b, id, w, postgres: postgres))
      if x == true || y == true { return true }
      return x == nil || y == nil ? nil : false
    case .not(let a): return eval(a, id, w, postgres: postgres).map { !$0 }
    }
  }

  /// Draws `count` predicates over `world`, runs each on `stores` and compares with the
  /// grammar's evaluation: the IDs in order (by primary key), or as a set on Core Data's
  /// statements, which order a list sorted by its primary key alone by nothing. Returns how
  /// many selected neither nothing nor everything.
  static func check(
    _ world: World, model: Model, stores: [(String, any Store)], count: Int, seed: UInt64, postgres: Bool = false
  ) throws -> Int {
    var g = Grammar(state: seed, world: world, postgres: postgres)
    var informative = 0
    for _ in 0..<count {
      let e = g.expr(depth: 2)
      var rendered = Rendered()
      rendered.text = render(e, world, &rendered, &g)
      let predicate = try QueryParser.predicate(
        rendered.text, arguments: rendered.arguments, variables: rendered.variables)
      let request = try FetchRequest(
        entityName: world.entity, predicate: predicate, sortDescriptors: [SortDescriptor("id")]
      )
      .resolve(in: model)
      let expected = world.owners.keys.filter { eval(e, $0, world, postgres: postgres) == true }.sorted()
      if !expected.isEmpty && expected.count < world.owners.count { informative += 1 }
      for (name, store) in stores {
        let ids = try store.fetchIDs(request)
        #expect(
          (name == "coredata" ? ids.sorted() : ids) == expected,
          "\(world.entity) on \(name): \(rendered.text) \(rendered.arguments) \(rendered.variables)")
      }
    }
    return informative
  }

  @Test func aCoreDataModelsToManyAnswersAsTheGrammarSays() throws {
    let dir = TestSupport.temporaryFolder("to-many-oracle")
    defer { TestSupport.remove(dir) }
    let (path, model) = try ToManyPredicates.notes(dir, rows: 600)
    let (rows, _) = try ToManyPredicates.read(path)
    let stores = try ["memory", "sqlite", "coredata"].map { ($0, try ToManyPredicates.store($0, path, model)) }
    let items = rows.items.mapValues { ["title": $0.title] as [String: String?] }
    let worlds = [
      World(
        entity: "Item", relationship: "tags", ownerFields: ["title"], elementFields: ["name"], owners: items,
        elements: Dictionary(grouping: rows.pairs, by: \.0).mapValues { $0.map { ["name": rows.tags[$0.1]!] } }),
      World(
        entity: "Folder", relationship: "items", ownerFields: ["name"], elementFields: ["title"],
        owners: rows.folders.mapValues { ["name": $0] },
        elements: Dictionary(grouping: rows.items.filter { $0.value.folder != nil }, by: { $0.value.folder! }).mapValues
        {
          $0.map { ["title": $0.value.title] }
        }),
      World(
        entity: "Tag", relationship: "items", ownerFields: ["name"], elementFields: ["title"],
        owners: rows.tags.mapValues { ["name": $0] },
        elements: Dictionary(grouping: rows.pairs, by: \.1).mapValues { $0.map { ["title": rows.items[$0.0]!.title] } }),
    ]
    var informative = 0
    for (i, world) in worlds.enumerated() {
      informative += try Self.check(world, model: model, stores: stores, count: 170, seed: 31 + UInt64(i))
    }
    #expect(informative >= 250, "\(informative) of 510 predicates selected some but not every row")
  }

  @Test func anAppSchemasToManyAnswersAsTheGrammarSaysInSQLiteAndPostgreSQL() throws {
    typealias F = UserDatabaseFixture
    let planes = Dictionary(
      uniqueKeysWithValues: (1...F.planes).map { i in
        (Int64(i), ["tail_number": F.plane(i).tail, "manufacturer": F.plane(i).maker] as [String: String?])
      })
    var flights: [Int64: [[String: String?]]] = [:]
    for i in 1...F.flights {
      let f = F.flight(i)
      guard let plane = f.plane else { continue }
      flights[Int64(plane), default: []].append(["carrier": f.carrier, "origin": f.origin])
    }
    let world = World(
      entity: "planes", relationship: "flights", ownerFields: ["tail_number", "manufacturer"],
      elementFields: ["carrier", "origin"], owners: planes, elements: flights)
    let dir = TestSupport.temporaryFolder("to-many-oracle-app")
    defer { TestSupport.remove(dir) }
    let app = dir + "/app.sqlite"
    try F.app(app)
    let file = UserDatabase(path: app)
    let model = try file.register(entity: "planes").kind.definition.model
    let sqlite = try file.openSQLite(model)
    var informative = try Self.check(
      world, model: model, stores: [("memory", try MemoryStore.load(from: sqlite)), ("sqlite", sqlite)], count: 100,
      seed: 5)
    try TestSupport.requirePostgresServer()
    let server = try PostgresLocation.url(nil)
    let admin = try PostgresAdmin(url: server)
    let schema = UserServerSchema.schema(for: "oracle")
    try UserServerSchema.build(admin, schema: schema)
    defer { try? admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
    let db = try UserDatabase.named(
      "postgres://\(server.user)@\(server.host):\(server.port)/\(server.database)?schema=\(schema)")
    let serverModel = try db.register(entity: "planes").kind.definition.model
    let postgres = try #require(try db.openServer(serverModel))
    defer { postgres.close() }
    informative += try Self.check(
      world, model: serverModel, stores: [("postgres", postgres)], count: 100, seed: 6, postgres: true)
    // Each plane has 34 to 36 flights of three carriers from three airports: most tests are
    // true of every plane or of none; the Core Data model's worlds carry the variety.
    #expect(informative >= 25, "\(informative) of 200 predicates selected some but not every plane")
  }
}
