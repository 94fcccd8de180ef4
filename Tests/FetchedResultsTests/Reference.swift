import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import PostgresStore
import SQLiteStore
import TestSupport
import Testing

/// A small dataset on disk, generated once per test process.
final class EngineFixture: Sendable {
  static let rows = 3_000
  static let shared = EngineFixture()
  let folder: String

  init() {
    folder = TestSupport.temporaryFolder("engine")
    _ = try! Generation.run(
      GenerationRequest(rows: Self.rows, seed: 5, outDirectory: folder, writeCSV: false))
  }

  func path(_ kind: DatasetKind) -> String {
    DatasetPaths.sqlite(in: folder, kind, rows: Self.rows, seed: 5)
  }

  func store(_ kind: DatasetKind, _ type: String) throws -> any Store {
    let model = DatasetModels.model(for: kind)
    switch type {
    case "memory": return try MemoryStore.load(from: SQLiteStore(path: path(kind), model: model, mode: .immutable))
    case "postgres":
      guard let url = postgres.url else { throw PostgresStoreError.badURL("", postgres.problem ?? "no server") }
      return try PostgresStore(url: url, model: model)
    default: return try SQLiteStore(path: path(kind), model: model)
    }
  }

  var postgres: (url: PostgresURL?, problem: String?) { Self.postgresDatabase }

  /// The fixture's datasets in a database of their own on the PostgreSQL server (the one
  /// `scripts/postgres start` runs, or FETCHBENCH_POSTGRES_URL's), when it is reachable.
  static let postgresDatabase: (url: PostgresURL?, problem: String?) = {
    do {
      let url = try TestDatabases.create("engine")
      for kind in DatasetKind.allCases {
        try PostgresLoader.load(
          DatasetLocation(kind: kind, rows: EngineFixture.rows, seed: 5, directory: EngineFixture.shared.folder, indexes: []), into: url)
      }
      return (url, nil)
    } catch {
      return (nil, String(describing: error))
    }
  }()

  /// Returns when the fixture's PostgreSQL database is there; otherwise skips the test (or
  /// this case of it), or fails it when FETCHBENCH_REQUIRE_POSTGRES=1.
  func requirePostgres() throws {
    try TestSupport.requirePostgres(postgres.url != nil, problem: postgres.problem ?? "")
  }

  /// `stores` and PostgreSQL when its cases can run: with the server, or when it is required
  /// (FETCHBENCH_REQUIRE_POSTGRES=1, where they fail without it). Without, `PostgresCases`
  /// shows them as skipped, with the reason.
  static func withPostgres(_ stores: [String]) -> [String] {
    let required = ProcessInfo.processInfo.environment["FETCHBENCH_REQUIRE_POSTGRES"] == "1"
    return stores + (shared.postgres.url != nil || required ? ["postgres"] : [])
  }
}

/// The PostgreSQL cases of the equivalence, paging and batching tests, which run only with the
/// server: skipped here, by name and with the reason, when it is missing.
@Suite struct PostgresCases {
  @Test func theParameterizedTestsHaveTheirPostgreSQLCases() throws {
    try EngineFixture.shared.requirePostgres()
    #expect(EngineFixture.withPostgres([]) == ["postgres"])
  }
}

/// Databases of this test process on the PostgreSQL server (`scripts/postgres start`'s, or
/// FETCHBENCH_POSTGRES_URL's), named `fbt_<pid>_<name>`. Databases of test processes that
/// are gone are dropped first, and this process's own at its exit (tests run in parallel, so
/// a database is not dropped while tests may still use it).
enum TestDatabases {
  static let prefix = "fbt_\(getpid())_"
  private static let cleaned: Result<PostgresURL, any Error> = Result {
    let server = try PostgresLocation.url(nil)
    let admin = try PostgresAdmin(url: server)
    for name in try admin.column("SELECT datname FROM pg_database WHERE datname LIKE 'fbt\\_%' OR datname LIKE 'fetchbench\\_test\\_%'") {
      let pid = name.split(separator: "_").dropFirst(name.hasPrefix("fbt_") ? 1 : 2).first.flatMap { Int32($0) }
      if let pid, pid != getpid(), kill(pid, 0) != 0 { try? admin.execute("DROP DATABASE IF EXISTS \(name)") }
    }
    atexit { TestDatabases.dropAll() }
    return server
  }

  /// A fresh database (from `template` when given), returned as a URL.
  static func create(_ name: String, template: String? = nil) throws -> PostgresURL {
    var url = try cleaned.get()
    let admin = try PostgresAdmin(url: url)
    try admin.execute("DROP DATABASE IF EXISTS \(prefix + name)")
    try admin.execute("CREATE DATABASE \(prefix + name)\(template.map { " TEMPLATE \(prefix + $0)" } ?? "")")
    url.database = prefix + name
    return url
  }

  /// Drops every database of this process (at exit: connections still open are ended).
  static func dropAll() {
    guard let url = try? cleaned.get(), let admin = try? PostgresAdmin(url: url) else { return }
    for name
      in (try? admin.column("SELECT datname FROM pg_database WHERE datname LIKE '\(prefix.replacingOccurrences(of: "_", with: "\\_"))%'"))
      ?? []
    {
      try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
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
      if case .date = field, case .string(let s) = v, let secs = ISO8601.parse(Substring(s)) { return .date(Double(secs)) }
      return v
    }
    switch p {
    case .constant(let b): return b
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
    case .beginsWith(let k, let s):
      guard case .string(let x) = r[k]! else { return nil }
      return x.hasPrefix(s)
    case .contains(let k, let s):
      guard case .string(let x) = r[k]! else { return nil }
      return s.isEmpty || x.contains(s)
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
