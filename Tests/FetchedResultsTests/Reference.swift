import Catalog
import Datasets
import FetchedResults
import Foundation
import TestSupport
import Testing

/// The PostgreSQL cases of the equivalence, paging and batching tests, which run only with the
/// server: skipped here, by name and with the reason, when it is missing.
@Suite struct PostgresCases {
  @Test func theParameterizedTestsHaveTheirPostgreSQLCases() throws {
    try EngineFixture.shared.requirePostgres()
    #expect(EngineFixture.withPostgres([]) == ["postgres"])
  }
}

/// An independent answer to a request: records built straight from the generator (not from
/// any store), filtered and sorted by code written here, not the engine's.
enum Reference {
  typealias Record = [String: Value]

  /// Every record of the list entity, keyed by key path (`details.closeDate` included).
  static func records(_ kind: DatasetKind, entity: String) -> [Record] {
    let g = try! DatasetGenerator(kind: kind, rows: EngineFixture.rows, seed: 5)
    let model = DatasetModels.model(for: kind)
    func tableRecords(_ table: Int, _ e: Entity) -> [Record] {
      var row: [FieldValue] = []
      return (1...EngineFixture.rows).map { id in
        g.fill(table: table, id: id, into: &row)
        var r: Record = ["id": .integer(Int64(id))]
        for a in e.attributes {
          let col = kind.tables[table].columns.firstIndex { $0.name == a.column }!
          r[a.name] = convert(row[col], a.type)
        }
        return r
      }
    }
    switch kind {
    case .wells:
      return tableRecords(0, try! model.entity("Well"))
    default:
      precondition(kind == .banks, "records of the built-in kinds only")
      let info = tableRecords(0, try! model.entity("FailedBankInfo"))
      let details = tableRecords(1, try! model.entity("FailedBankDetails"))
      var detailsByInfo: [Int64: Record] = [:]
      for d in details { if case .integer(let i) = d["infoID"]! { detailsByInfo[i] = d } }
      let infoByID = Dictionary(uniqueKeysWithValues: info.map { ($0["id"]!, $0) })
      if entity == "FailedBankInfo" {
        return info.map { r in
          var r = r
          if case .integer(let id) = r["id"]!, let d = detailsByInfo[id] {
            for (k, v) in d { r["details.\(k)"] = v }
          }
          return r
        }
      }
      return details.map { d in
        var r = d
        for (k, v) in infoByID[d["infoID"]!]! { r["info.\(k)"] = v }
        return r
      }
    }
  }

  static func convert(_ f: FieldValue, _ t: AttributeType) -> Value {
    switch (f, t) {
    case (.null, _): .null
    case (.integer(let v), _): .integer(v)
    case (.real(let v), .date): .date(v)
    case (.real(let v), _): .double(v)
    case (.text(let s), _): .string(s)
    }
  }

  /// SQL-style ordering written out plainly: NULL first, numbers by value, strings by bytes.
  static func order(_ a: Value, _ b: Value) -> Int {
    func num(_ v: Value) -> Double? {
      switch v {
      case .integer(let i): Double(i)
      case .double(let d), .date(let d): d
      case .bool(let b): b ? 1 : 0
      default: nil
      }
    }
    switch (a, b) {
    case (.null, .null): return 0
    case (.null, _): return -1
    case (_, .null): return 1
    case (.string(let x), .string(let y)):
      if x == y { return 0 }
      return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? -1 : 1
    default:
      let x = num(a)!
      let y = num(b)!
      return x < y ? -1 : (x > y ? 1 : 0)
    }
  }

  /// Three-valued evaluation: nil is unknown.
  static func test(_ p: FetchPredicate, _ r: Record) -> Bool? {
    func lit(_ v: Value, like field: Value) -> Value {
      if case .date = field, case .string(let s) = v, let secs = ISO8601.parse(Substring(s)) {
        return .date(Double(secs))
      }
      return v
    }
    switch p {
    case .constant(let b): return b
    case .ordered:
      // A keyset page's seek, which no predicate text spells.
      Issue.record("the reference evaluates predicate texts only")
      return nil
    case .collection:
      Issue.record("the generated datasets' records have no to-many relationship")
      return nil
    case .comparison(let k, let op, let v):
      let x = r[k]!
      if case .null = v {
        if op == .equal { return x == .null }
        if op == .notEqual { return x != .null }
        return nil
      }
      if case .null = x { return nil }
      let c = order(x, lit(v, like: x))
      switch op {
      case .equal: return c == 0
      case .notEqual: return c != 0
      case .less: return c < 0
      case .lessOrEqual: return c <= 0
      case .greater: return c > 0
      case .greaterOrEqual: return c >= 0
      }
    case .between(let k, let lo, let hi):
      let x = r[k]!
      if case .null = x { return nil }
      return order(x, lit(lo, like: x)) >= 0 && order(x, lit(hi, like: x)) <= 0
    case .in(let k, let vs):
      let x = r[k]!
      if case .null = x { return nil }
      return vs.contains { order(x, lit($0, like: x)) == 0 }
    case .text(let k, let op, let pattern, let fold):
      guard case .string(let raw) = r[k]! else { return nil }
      // [c] and [d]: both sides through Foundation's folding, not locale-aware.
      var options: String.CompareOptions = []
      if fold.contains(.caseInsensitive) { options.insert(.caseInsensitive) }
      if fold.contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
      let x = options.isEmpty ? raw : raw.folding(options: options, locale: nil)
      let s = options.isEmpty ? pattern : pattern.folding(options: options, locale: nil)
      switch op {
      case .equals: return Array(x.utf8) == Array(s.utf8)
      case .beginsWith: return x.hasPrefix(s)
      case .contains: return s.isEmpty || x.contains(s)
      case .endsWith: return x.hasSuffix(s)
      case .like: return likeExpression(s).firstMatch(in: x, range: NSRange(x.startIndex..., in: x)) != nil
      case .matches:
        let regex = try? NSRegularExpression(
          pattern: "^(?:\(pattern))$", options: fold.contains(.caseInsensitive) ? [.caseInsensitive] : [])
        return regex?.firstMatch(in: raw, range: NSRange(raw.startIndex..., in: raw)) != nil
      }
    case .and(let ps):
      let rs = ps.map { test($0, r) }
      if rs.contains(false) { return false }
      return rs.contains(nil) ? nil : true
    case .or(let ps):
      let rs = ps.map { test($0, r) }
      if rs.contains(true) { return true }
      return rs.contains(nil) ? nil : false
    case .not(let q): return test(q, r).map { !$0 }
    }
  }

  /// The IDs and (section value, count) pairs a request must produce.
  static func answer(_ request: FetchRequest, _ records: [Record]) -> (ids: [Int64], sections: [(Value, Int)]) {
    var rs = records.filter { r in request.predicate.map { test($0, r) == true } ?? true }
    let sorts = request.sortDescriptors + [SortDescriptor("id")]
    rs.sort { a, b in
      for s in sorts {
        let c = order(a[s.keyPath]!, b[s.keyPath]!)
        if c != 0 { return s.ascending ? c < 0 : c > 0 }
      }
      return false
    }
    if request.fetchOffset > 0 { rs = Array(rs.dropFirst(request.fetchOffset)) }
    if request.fetchLimit > 0 { rs = Array(rs.prefix(request.fetchLimit)) }
    var sections: [(Value, Int)] = []
    if let key = request.sectionNameKeyPath {
      for r in rs {
        if let last = sections.last, order(last.0, r[key]!) == 0 {
          sections[sections.count - 1].1 += 1
        } else {
          sections.append((r[key]!, 1))
        }
      }
    } else {
      sections = [(.null, rs.count)]
    }
    return (rs.map { if case .integer(let i) = $0["id"]! { i } else { -1 } }, sections)
  }
}

/// NSPredicate's LIKE as a regular expression, written apart from the engine's matcher: `?`
/// one character (Unicode scalar), `*` any run, the rest literal, the whole string.
func likeExpression(_ pattern: String) -> NSRegularExpression {
  var expression = "^"
  for scalar in pattern.unicodeScalars {
    switch scalar {
    case "?": expression += "."
    case "*": expression += ".*"
    default: expression += NSRegularExpression.escapedPattern(for: String(scalar))
    }
  }
  return try! NSRegularExpression(pattern: expression + "$", options: [.dotMatchesLineSeparators])
}
