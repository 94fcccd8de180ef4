import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import PostgresStore
import ResultModel
import SQLQueries
import Vocabulary

extension IndexAdvice {
  /// One index variant: the store that reads it, how to enter and leave it, its plans, and
  /// which requests' candidates it is.
  private struct Variant {
    var tag: String?
    var store: any Store
    var forList: Bool
    var forSectioned: Bool
    var enter: () throws -> Void = {}
    var leave: () throws -> Void = {}
    var plan: (String) throws -> String
    /// What the variant reads and must outlive it (a user's database's indexed copy).
    var scratch: SQLiteScratch? = nil
    /// The copy of a user's server tables the variant reads, dropped once no variant holds it.
    var trials: PostgresTrials? = nil

    /// `body` with the variant's index set in place.
    func within<T>(_ body: () throws -> T) throws -> T {
      try enter()
      defer { try? leave() }
      return try body()
    }
  }

  /// The case: every variant checked to read the unindexed order, then timed in turn in
  /// every repetition, with the scan limit on SQLite and each statement's plan.
  /// O(repetitions · variants · works).
  static func measure(_ spec: CaseSpec) throws -> CaseResult {
    let model = DatasetModels.model(for: spec.dataset)
    let (listRequest, sectionedRequest) = try requests(spec.dataset, batchSize: spec.batchSize, request: spec.request)
    let list = try listRequest.resolve(in: model)
    let sectioned = try sectionedRequest?.resolve(in: model)
    var (variants, scan) = try openVariants(spec, list: list)
    let listTags = Set(IndexCandidate.all(for: list).map(\.index.tag))
    let sectionedTags = Set(sectioned.map { IndexCandidate.all(for: $0).map(\.index.tag) } ?? [])
    for i in variants.indices {
      variants[i].forList = variants[i].tag.map(listTags.contains) ?? true
      variants[i].forSectioned = sectioned != nil && (variants[i].tag.map(sectionedTags.contains) ?? true)
    }
    let expected = try checkSameOrder(variants, list: listRequest, sectioned: sectionedRequest)
    // times[variant][work] and the scan limit, one entry per repetition.
    var times = Array(repeating: [Work: [Double]](), count: variants.count)
    var scanMs: [Double] = []
    _ = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { measured in
      for (i, v) in variants.enumerated() {
        let timed = try v.within {
          try Self.run(v, list: listRequest, sectioned: sectionedRequest, batchSize: spec.batchSize)
        }
        for (work, value) in timed where measured { times[i][work, default: []].append(value) }
      }
      if let scan {
        let nanos = try Sampler.wall { try scan.run() }.nanos
        if measured { scanMs.append(Double(nanos) / 1e6) }
      }
    }
    let statements = try Self.statements(
      list: list, sectioned: sectioned, batchSize: spec.batchSize,
      dialect: spec.store == .postgres ? .postgres : .sqlite,
      ids: Array(expected.prefix(spec.batchSize)))
    let out = try measurements(variants, times: times, scanMs: scanMs, statements: statements)
    return CaseResult(spec: spec, measurements: out, error: nil)
  }

  /// Every variant, no index first: on SQLite a file each (and the C API connections for the
  /// plans and the scan limit, none with a predicate); on PostgreSQL one database holding
  /// every candidate, each variant a transaction that drops the others and rolls back.
  private static func openVariants(_ spec: CaseSpec, list: ResolvedRequest) throws -> ([Variant], ScanLimit?) {
    let all = try candidates(spec.dataset, request: spec.request)
    var base = spec
    base.index = nil
    switch spec.store {
    case .sqlite:
      // Their own statements bind no predicate arguments, so they are prepared without it.
      var bare = list
      bare.predicate = nil
      let raw = try RawSQLite(base.location, request: bare, batchSize: spec.batchSize)
      let variants = try ([nil] + all.map(\.index)).map { index in
        var s = base
        s.index = index?.tag
        // A user's file is never written: each candidate is built in a copy of it.
        let scratch = try index.flatMap { i in
          try base.userList.map { _ in try SQLiteScratch.indexed(base.location, i) }
        }
        if let scratch { s.userList?.database.path = scratch.path }
        let file = index == nil ? raw : try RawSQLite(s.location, request: bare, batchSize: spec.batchSize)
        return Variant(
          tag: index?.tag, store: try s.location.open(.sqlite), forList: true, forSectioned: true, plan: file.plan,
          scratch: scratch)
      }
      return (variants, ScanLimit(raw, request: list))
    case .postgres:
      let (store, trials) = try postgresStore(spec, candidates: all.map(\.index))
      let variants = ([nil] + all.map(\.index)).map { kept in
        Variant(
          tag: kept?.tag, store: store, forList: true, forSectioned: true,
          enter: {
            _ = try store.scalarText("BEGIN")
            for c in all where c.index != kept { _ = try store.scalarText("DROP INDEX \(c.index.name.sqlName)") }
          },
          leave: { _ = try store.scalarText("ROLLBACK") },
          plan: { sql in try PostgresPlan.summary(try store.scalarText("EXPLAIN (FORMAT JSON) \(sql)") ?? "") },
          trials: trials)
      }
      return (variants, nil)
    case .memory, .sqliteCoreData:
      throw MeasurementFault.indexAdviceNotOnSQL
    }
  }

  /// The PostgreSQL store holding every candidate: FetchBench's own database, loaded with them;
  /// or for a user's server, a copy of the list's tables in a schema of FetchBench's own
  /// (`--allow-index-trials`), which the variants keep alive.
  private static func postgresStore(_ spec: CaseSpec, candidates: [IndexSpec]) throws -> (
    PostgresStore, PostgresTrials?
  ) {
    let model = DatasetModels.model(for: spec.dataset)
    if let database = spec.userList?.database, let server = try database.server {
      guard database.allowsIndexTrials == true else {
        throw ListError.indexTrialsNotAllowed(database: database.path)
      }
      let trials = try PostgresTrials(server, kind: spec.dataset, indexes: candidates)
      return (try PostgresStore(url: server.url, model: model, userSchema: trials.schema, readOnly: false), trials)
    }
    var location = DatasetLocation(
      kind: spec.dataset, rows: spec.rows, seed: spec.seed, directory: spec.datasetsDirectory,
      indexes: candidates.map(\.tag))
    location.database = spec.userList?.database
    return (try location.openPostgres(), nil)
  }

  /// Correct before fast: every variant reads the unindexed order. Returns the list's IDs.
  private static func checkSameOrder(_ variants: [Variant], list: FetchRequest, sectioned: FetchRequest?) throws
    -> [Int64]
  {
    let expected = try variants[0].within {
      (try ids(list, variants[0].store), try sectioned.map { try ids($0, variants[0].store) })
    }
    for v in variants.dropFirst() {
      try v.within {
        if v.forList, try ids(list, v.store) != expected.0 {
          throw MeasurementFault.indexChangedIDs(tag: v.tag!, sectioned: false)
        }
        if v.forSectioned, let sectioned, try ids(sectioned, v.store) != expected.1 {
          throw MeasurementFault.indexChangedIDs(tag: v.tag!, sectioned: true)
        }
      }
    }
    return expected.0
  }

  /// Each variant's figures per work: its time, its per-pair ratio to no index, the scan
  /// limit beside the ID query, and the statement's plan.
  private static func measurements(
    _ variants: [Variant], times: [[Work: [Double]]], scanMs: [Double], statements: [Work: String]
  ) throws
    -> [Measurement]
  {
    var out: [Measurement] = []
    for (i, v) in variants.enumerated() {
      let tag = IndexTag(v.tag)
      for work in Work.allCases {
        guard let samples = times[i][work] else { continue }
        func m(_ metric: Metric, _ s: Summary, detail: String? = nil) -> Measurement {
          var m = Measurement(metric, s)
          (m.index, m.scenario, m.detail) = (tag, .forAdvice(work), detail)
          return m
        }
        out.append(m(work.metric, Summary(samples)))
        if i > 0, let none = times[0][work] {
          out.append(m(.overUnindexed, Summary(zip(samples, none).map { $0 / max($1, 1e-9) })))
        }
        if work == .performFetch, !scanMs.isEmpty {
          out.append(m(.scanLimit, Summary(scanMs)))
          out.append(m(.engineOverScanLimit, Summary(zip(samples, scanMs).map { $0 / max($1, 1e-9) })))
        }
        if let sql = statements[work] {
          out.append(m(.queryPlan, Summary([0]), detail: try v.within { try v.plan(sql) }))
        }
      }
    }
    return out
  }

  private static func ids(_ request: FetchRequest, _ store: any Store) throws -> [Int64] {
    let c = FetchedResultsController(fetchRequest: request, store: store)
    try c.performFetch()
    return c.fetchedIDs
  }

  /// One repetition's timings of `v`, in milliseconds or microseconds as `Work.metric` says.
  private static func run(_ v: Variant, list: FetchRequest, sectioned: FetchRequest?, batchSize: Int) throws -> [(
    Work, Double
  )] {
    var out: [(Work, Double)] = []
    if v.forSectioned, let sectioned {
      let t = try Sampler.wall { () throws -> Int in
        let c = FetchedResultsController(fetchRequest: sectioned, store: v.store)
        try c.performFetch()
        return c.sections.count
      }
      out.append((.sectioned, Double(t.nanos) / 1e6))
    }
    guard v.forList else { return out }
    let (t, controller) = try Sampler.wall { () throws -> FetchedResultsController in
      let c = FetchedResultsController(fetchRequest: list, store: v.store)
      try c.performFetch()
      return c
    }
    out.append((.performFetch, Double(t) / 1e6))
    let n = controller.count
    guard n > 0 else { return out }
    // Ten batches spread over the list, none of them loaded before (the controller is new).
    let positions = (0..<faults).map { min(n - 1, $0 * n / faults + n / (2 * faults)) }
    let fault = try Sampler.wall { try positions.reduce(0) { $0 &+ Int(try controller.object(atGlobalIndex: $1).id) } }
    out.append((.batchFault, Double(fault.nanos) / 1e3 / Double(faults)))
    let firstScreen = try Sampler.wall { () throws -> Int64 in
      let c = FetchedResultsController(fetchRequest: list, store: v.store)
      try c.performFetch()
      return try (0..<min(batchSize, c.count)).reduce(0) { $0 &+ (try c.object(atGlobalIndex: $1).id) }
    }
    out.append((.firstScreen, Double(firstScreen.nanos) / 1e6))
    let pager = try Pager(list, store: v.store, pageSize: batchSize)
    out.append((.firstPage, Double(try Sampler.wall { try pager.page(at: 0).count }.nanos) / 1e3))
    let before = try controller.object(atGlobalIndex: max(0, n / 2 - 1))
    out.append((.seekMiddle, Double(try Sampler.wall { try pager.page(after: before).count }.nanos) / 1e3))
    return out
  }

  /// The statements each work issues, for the plans: the batch fault with `ids` written in
  /// (PostgreSQL plans no unbound parameter); a keyset page's depends on the row it seeks
  /// past, so it has none.
  private static func statements(
    list: ResolvedRequest, sectioned: ResolvedRequest?, batchSize: Int, dialect: SQLDialect, ids: [Int64]
  ) throws -> [Work: String] {
    var firstPage = list
    firstPage.request.fetchLimit = batchSize
    let sql = SQLBuilder(list, dialect: dialect)
    let batch =
      dialect == .postgres
      ? sql.rowsByIDArrayQuery(parameter: 1).replacingOccurrences(
        of: "$1", with: "'{\(ids.map(String.init).joined(separator: ","))}'::bigint[]")
      : sql.rowsByIDQuery(count: batchSize)
    // PostgreSQL plans no unbound parameter: a predicate's arguments are written in.
    func bound(_ builder: SQLBuilder, _ text: String) -> String {
      dialect == .postgres ? builder.inliningArguments(text) : text
    }
    let page = SQLBuilder(firstPage, dialect: dialect)
    var out: [Work: String] = [
      .performFetch: bound(sql, list.section == nil ? sql.idQuery : sql.idAndSectionQuery),
      .batchFault: batch,
      .firstPage: bound(page, page.fullQuery),
    ]
    out[.sectioned] = sectioned.map { r in
      let s = SQLBuilder(r, dialect: dialect)
      return bound(s, s.idAndSectionQuery)
    }
    return out
  }
}

/// PostgreSQL's `EXPLAIN (FORMAT JSON)` as one line in the manner of SQLite's plans: each
/// node's type, index and relation, children indented by their depth, joined by "; ".
enum PostgresPlan {
  static func summary(_ json: String) throws -> String {
    guard let data = json.data(using: .utf8),
      let top = (try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first,
      let plan = top["Plan"] as? [String: Any]
    else { throw MeasurementFault.noPlan(json: String(json.prefix(200))) }
    var steps: [String] = []
    func walk(_ node: [String: Any], _ depth: Int) {
      var text = (node["Node Type"] as? String) ?? "?"
      if let index = node["Index Name"] as? String { text += " using \(index)" }
      if let relation = node["Relation Name"] as? String {
        text += " on \(relation) \((node["Alias"] as? String) ?? "")"
      }
      if let keys = node["Sort Key"] as? [String] { text += " (\(keys.joined(separator: ", ")))" }
      steps.append(String(repeating: "  ", count: depth) + text.trimmingCharacters(in: .whitespaces))
      for child in (node["Plans"] as? [[String: Any]]) ?? [] { walk(child, depth + 1) }
    }
    walk(plan, 0)
    return steps.joined(separator: "; ")
  }
}
