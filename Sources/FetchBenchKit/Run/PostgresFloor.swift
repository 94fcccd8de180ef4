import Catalog
import ChildProcesses
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import PostgresStore
import SQLQueries

/// The PostgreSQL floor (`postgres-raw`): the store's own statements timed by the server
/// (EXPLAIN ANALYZE: execution without the network or a client) and fetched by `psql`
/// (libpq, nothing on top: `\timing` around each statement, rows discarded), plus what a
/// batch fault costs: one round trip, and the batch size at which a scroll-through stops
/// being dominated by round trips.
enum PostgresFloor {
  /// IDs scrolled through per batch size in the round-trip sweep: enough for a stable
  /// per-row figure, few enough that batch size 1 (one round trip per row) stays seconds.
  static let sweepRows = 5_000
  static let sweepBatchSizes = [1, 5, 20, 100, 1_000]

  static func measure(_ spec: CaseSpec) throws -> CaseResult {
    let model = DatasetModels.model(for: spec.dataset)
    let request = try DatasetModels.defaultRequest(for: spec.dataset, batchSize: spec.batchSize).resolve(in: model)
    let sql = SQLBuilder(request, dialect: .postgres)
    guard sql.arguments.isEmpty else { throw HarnessError.invalidArgument("the floor runs requests without predicates") }
    // Opening loads the dataset when the server does not have it, and checks the schema.
    guard let store = try spec.location.open(.postgres) as? PostgresStore else {
      throw HarnessError.invalidArgument("the PostgreSQL floor needs the PostgreSQL store")
    }
    let ids = try store.fetchIDs(request)
    let batch = Array(ids.prefix(spec.batchSize))
    let arrayLiteral = { (ids: ArraySlice<Int64>) in "'{\(ids.map(String.init).joined(separator: ","))}'::bigint[]" }
    let batchQuery = sql.rowsByIDArrayQuery(parameter: 1).replacingOccurrences(of: "$1", with: arrayLiteral(batch[...]))
    let reps = spec.warmups + spec.repetitions

    // 1. The server's own time for each statement.
    let server = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
      (
        ids: try explainAnalyze(store, sql.idQuery), full: try explainAnalyze(store, sql.fullQuery),
        batch: try explainAnalyze(store, batchQuery)
      )
    }

    // 2. psql fetching the same statements; a scroll-through is every batch statement.
    let psqlIDs = try PsqlTiming.time(store.url, statement: sql.idQuery, times: reps).dropFirst(spec.warmups)
    // The store fetches the IDs as one array value (see PostgresStore.fetchIDs): psql
    // running that very statement is reported too.
    let psqlIDArray = try PsqlTiming.time(store.url, statement: "SELECT ARRAY(\(sql.idQuery))", times: reps).dropFirst(spec.warmups)
    let psqlFull = try PsqlTiming.time(store.url, statement: sql.fullQuery, times: reps).dropFirst(spec.warmups)
    var scroll: [String] = []
    var start = 0
    while start < ids.count {
      let end = min(ids.count, start + spec.batchSize)
      scroll.append(sql.rowsByIDArrayQuery(parameter: 1).replacingOccurrences(of: "$1", with: arrayLiteral(ids[start..<end])))
      start = end
    }
    let psqlScroll = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
      try PsqlTiming.time(store.url, statements: scroll).reduce(0, +)
    }

    // 3. One round trip (an empty statement through the store's connection), and the batch
    // fault's cost by batch size: time per row = roundTrip/b + perRow, fitted over the sweep.
    let roundTrip = try Sampler.repeated(warmups: 0, repetitions: spec.repetitions * 200) { _ in
      Double(try Sampler.wall { try store.ping() }.nanos) / 1e3
    }
    let sweepIDs = Array(ids.prefix(sweepRows))
    var perRowByBatch: [(b: Int, us: Double)] = []
    var measurements: [Measurement] = []
    for b in sweepBatchSizes {
      let samples = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
        let scrolled = try Sampler.wall {
          var s = 0
          while s < sweepIDs.count {
            let e = min(sweepIDs.count, s + b)
            blackHole(try store.fetchObjects(request, ids: sweepIDs[s..<e]))
            s = e
          }
        }
        return Double(scrolled.nanos) / 1e3 / Double(sweepIDs.count)
      }
      let summary = Summary(samples)
      perRowByBatch.append((b, summary.median))
      measurements.append(Measurement(.sweepPerRow(batchSize: b), summary))
    }
    // Least squares of us-per-row against 1/b: the slope is the fixed cost of a batch fault
    // (the round trip and statement), the intercept the cost of a row.
    let line = LineFit(perRowByBatch.map { (x: 1 / Double($0.b), y: $0.us) })
    let slope: Double = line?.slope ?? 0
    let intercept: Double = line?.intercept ?? 0
    let crossover: Double = intercept > 0 ? slope / intercept : 0
    measurements += [
      Measurement(.floorServerIDs, Summary(server.map(\.ids))),
      Measurement(.floorServerFull, Summary(server.map(\.full))),
      Measurement(.floorServerBatch, Summary(server.map(\.batch))),
      Measurement(.floorIDs, Summary(Array(psqlIDs))),
      Measurement(.floorIDsArray, Summary(Array(psqlIDArray))),
      Measurement(.floorFull, Summary(Array(psqlFull))),
      Measurement(.floorScroll, Summary(psqlScroll)),
      Measurement(.roundTrip, Summary(roundTrip)),
      Measurement(.batchFaultFixed, slope),
      Measurement(.rowCost, intercept),
      // Below this batch size the fixed cost per batch outweighs its rows' cost.
      Measurement(.roundTripBatchSize, crossover),
    ]
    return CaseResult(spec: spec, measurements: measurements, error: nil)
  }

  /// The server's planning plus execution time of `sql`, in ms.
  static func explainAnalyze(_ store: PostgresStore, _ sql: String) throws -> Double {
    let plan = try store.scalarText("EXPLAIN (ANALYZE, FORMAT JSON) \(sql)")
    guard let data = plan?.data(using: .utf8),
      let json = try JSONSerialization.jsonObject(with: data) as? [[String: Any]],
      let top = json.first,
      let execution = top["Execution Time"] as? Double
    else { throw HarnessError.invalidArgument("EXPLAIN ANALYZE gave no execution time for \(sql)") }
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
    guard output.succeeded else { throw HarnessError.invalidArgument("psql failed: \(output.standardError)") }
    // "Time: 12.345 ms", or "Time: 1234.567 ms (00:01.235)" past a second.
    let times = output.text.split(separator: "\n").compactMap { line -> Double? in
      guard line.hasPrefix("Time: ") else { return nil }
      return Double(line.dropFirst(6).split(separator: " ").first ?? "")
    }
    guard times.count == statements.count else {
      throw HarnessError.invalidArgument("psql reported \(times.count) timings for \(statements.count) statements")
    }
    return times
  }
}
