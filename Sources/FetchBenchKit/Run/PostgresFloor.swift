import Catalog
import ChildProcesses
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import PostgresStore
import Reports
import ResultModel
import SQLQueries
import Vocabulary

/// The PostgreSQL floor (`postgres-raw`): the store's own statements timed by the server
/// (EXPLAIN ANALYZE: execution without the network or a client) and fetched by `psql`
/// (libpq, nothing on top: `\timing` around each statement, rows discarded), plus what a
/// batch fault costs: one round trip, and the batch size at which a scroll-through stops
/// being dominated by round trips.
enum PostgresFloor {
  static let sweepRows = BatchSweep.rows
  static let sweepBatchSizes = BatchSweep.batchSizes

  static func measure(_ spec: CaseSpec) throws -> CaseResult {
    let list = try List(spec)
    let server = try serverTimes(list, spec)
    let psql = try psqlTimes(list, spec)
    let roundTrip = try Sampler.repeated(warmups: 0, repetitions: spec.repetitions * 200) { _ in
      Double(try Sampler.wall { try list.store.ping() }.nanos) / 1e3
    }
    let sweep = try batchSweep(list, spec)
    return CaseResult(
      spec: spec, measurements: sweep + server + psql + [Measurement(.roundTrip, Summary(roundTrip))] + fitted(sweep),
      error: nil)
  }

  /// The list's statements on the store: its ID, full and batch queries, the batch holding
  /// the first IDs as an array literal.
  struct List {
    let store: PostgresStore
    let request: ResolvedRequest
    let sql: SQLBuilder
    let ids: [Int64]
    let batchQuery: String

    init(_ spec: CaseSpec) throws {
      let model = DatasetModels.model(for: spec.dataset)
      request = try DatasetModels.defaultRequest(for: spec.dataset, batchSize: spec.batchSize).resolve(in: model)
      sql = SQLBuilder(request, dialect: .postgres)
      guard sql.arguments.isEmpty else {
        throw MeasurementFault.floorWithPredicate
      }
      // Opening loads the dataset when the server does not have it, and checks the schema.
      store = try spec.location.openPostgres()
      ids = try store.fetchIDs(request)
      batchQuery = Self.batchQuery(sql, ids.prefix(spec.batchSize))
    }

    /// The batch statement with `ids` in place of its array parameter.
    static func batchQuery(_ sql: SQLBuilder, _ ids: ArraySlice<Int64>) -> String {
      sql.rowsByIDArrayQuery(parameter: 1).replacingOccurrences(
        of: "$1", with: "'{\(ids.map(String.init).joined(separator: ","))}'::bigint[]")
    }
  }

  /// The server's own time for each statement.
  static func serverTimes(_ list: List, _ spec: CaseSpec) throws -> [Measurement] {
    let server = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
      (
        ids: try explainAnalyze(list.store, list.sql.idQuery), full: try explainAnalyze(list.store, list.sql.fullQuery),
        batch: try explainAnalyze(list.store, list.batchQuery)
      )
    }
    return [
      Measurement(.floorServerIDs, Summary(server.map(\.ids))),
      Measurement(.floorServerFull, Summary(server.map(\.full))),
      Measurement(.floorServerBatch, Summary(server.map(\.batch))),
    ]
  }

  /// psql fetching the same statements; a scroll-through is every batch statement.
  static func psqlTimes(_ list: List, _ spec: CaseSpec) throws -> [Measurement] {
    let (url, sql, reps) = (list.store.url, list.sql, spec.warmups + spec.repetitions)
    let psqlIDs = try PsqlTiming.time(url, statement: sql.idQuery, times: reps).dropFirst(spec.warmups)
    // The store fetches the IDs as one array value (see PostgresStore.fetchIDs): psql
    // running that very statement is reported too.
    let psqlIDArray = try PsqlTiming.time(url, statement: "SELECT ARRAY(\(sql.idQuery))", times: reps).dropFirst(
      spec.warmups)
    let psqlFull = try PsqlTiming.time(url, statement: sql.fullQuery, times: reps).dropFirst(spec.warmups)
    let scroll = stride(from: 0, to: list.ids.count, by: spec.batchSize).map { start in
      List.batchQuery(sql, list.ids[start..<min(list.ids.count, start + spec.batchSize)])
    }
    let psqlScroll = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
      try PsqlTiming.time(url, statements: scroll).reduce(0, +)
    }
    return [
      Measurement(.floorIDs, Summary(Array(psqlIDs))),
      Measurement(.floorIDsArray, Summary(Array(psqlIDArray))),
      Measurement(.floorFull, Summary(Array(psqlFull))),
      Measurement(.floorScroll, Summary(psqlScroll)),
    ]
  }

  /// The batch fault's cost per row by batch size, over the first `sweepRows` IDs.
  static func batchSweep(_ list: List, _ spec: CaseSpec) throws -> [Measurement] {
    let sweepIDs = Array(list.ids.prefix(sweepRows))
    return try sweepBatchSizes.map { b in
      let samples = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
        let scrolled = try Sampler.wall {
          for s in stride(from: 0, to: sweepIDs.count, by: b) {
            blackHole(try list.store.fetchObjects(list.request, ids: sweepIDs[s..<min(sweepIDs.count, s + b)]))
          }
        }
        return Double(scrolled.nanos) / 1e3 / Double(sweepIDs.count)
      }
      return Measurement(.sweepPerRow(batchSize: b), Summary(samples))
    }
  }

  /// Time per row = roundTrip/b + perRow, fitted by least squares of µs per row against 1/b
  /// over the sweep: the slope is the fixed cost of a batch fault (the round trip and
  /// statement), the intercept the cost of a row.
  static func fitted(_ sweep: [Measurement]) -> [Measurement] {
    let line = LineFit(zip(sweepBatchSizes, sweep).map { (x: 1 / Double($0), y: $1.summary.median) })
    let slope: Double = line?.slope ?? 0
    let intercept: Double = line?.intercept ?? 0
    return [
      Measurement(.batchFaultFixed, slope),
      Measurement(.rowCost, intercept),
      // Below this batch size the fixed cost per batch outweighs its rows' cost.
      Measurement(.roundTripBatchSize, intercept > 0 ? slope / intercept : 0),
    ]
  }

  /// The server's planning plus execution time of `sql`, in ms.
  static func explainAnalyze(_ store: PostgresStore, _ sql: String) throws -> Double {
    let plan = try store.scalarText("EXPLAIN (ANALYZE, FORMAT JSON) \(sql)")
    guard let data = plan?.data(using: .utf8),
      let json = try JSONSerialization.jsonObject(with: data) as? [[String: Any]],
      let top = json.first,
      let execution = top["Execution Time"] as? Double
    else { throw MeasurementFault.noExecutionTime(sql: sql) }
    return execution + ((top["Planning Time"] as? Double) ?? 0)
  }
}

/// `psql` as the floor's client: statements from a script, `\timing` on, rows to /dev/null.
enum PsqlTiming {
  /// Runs `statement` `times` times in one psql session; its `\timing` figure for each, ms.
  static func time(_ url: PostgresURL, statement: String, times: Int) throws -> [Double] {
    try time(url, statements: Array(repeating: statement, count: times))
  }

  /// Runs `statements` in one psql session; its `\timing` figure for each, in ms.
  static func time(_ url: PostgresURL, statements: [String]) throws -> [Double] {
    let script = NSTemporaryDirectory() + "fetchbench-psql-\(getpid()).sql"
    defer { try? FileManager.default.removeItem(atPath: script) }
    var text = "\\timing on\n\\o /dev/null\n"
    for s in statements { text += s + ";\n" }
    try text.write(toFile: script, atomically: true, encoding: .utf8)
    let psql = try Psql.command(url, ["-f", script])
    let output = try ChildProcess.run(psql.executable, psql.arguments, environment: psql.environment)
    guard output.succeeded else { throw MeasurementFault.psqlFailed(standardError: output.standardError) }
    // "Time: 12.345 ms", or "Time: 1234.567 ms (00:01.235)" past a second.
    let times = output.text.split(separator: "\n").compactMap { line -> Double? in
      guard line.hasPrefix("Time: ") else { return nil }
      return Double(line.dropFirst(6).split(separator: " ").first ?? "")
    }
    guard times.count == statements.count else {
      throw MeasurementFault.psqlTimings(timings: times.count, statements: statements.count)
    }
    return times
  }
}
