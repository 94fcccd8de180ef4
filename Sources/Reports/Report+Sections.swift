import Catalog
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

// The page's sections beside the per-store tables: stores side by side, floors, scaling.
extension Report {
  /// What the two SQLite plans are, under a table that shows both.
  package static let planNote =
    """
    \n\"SQLite, Core Data's statements\" is what Core Data issues for the same list on the same file: the ID query \
    ordered by the sort 
    """
      + """
      keys alone (no tie-breaker), each batch by primary key without a join, one more statement per prefetched \
      relationship and 
      """
      + """
      batch, section counts by a separate grouped statement (see `fetch --plan coredata --sql-debug`). \"SQLite, tuned \
      statements\" 
      """
      + """
      is FetchBench's own. With no tie-breaker, rows with equal sort keys come in SQLite's order, which Core Data does \
      not 
      """
      + """
      guarantee either: the tests compare them with the oracle as sets within each group of equal keys. PostgreSQL \
      keeps its own plan. Each figure here is its own case's median, in its own process; the 
      """
    + "two plans' ratio, per pair in one process, is in the next table.\n"

  package func sideBySide(dataset: DatasetKind, rows n: Int) -> String {
    let stores = StoreKind.allCases.filter { st in
      storeKeys.contains { $0.dataset == dataset && $0.rows == n && $0.store == st }
    }
    guard stores.count > 1, let batch = tableBatchSizes.first else { return "" }
    let hasPostgres = stores.contains(.postgres)
    var columns: [MarkdownTable.Column] = [.left("scenario")]
    for st in stores {
      let name = Self.storeName(Key(dataset: dataset, rows: n, store: st, index: .none))
      columns += [.right("\(name) full"), .right("\(name) batched")]
    }
    if hasPostgres {
      columns += [.right("PostgreSQL round trips full / batched"), .right("PostgreSQL bytes received full / batched")]
    }
    var md = "### The stores side by side (no index; batch \(batch); median ms)\n\n" + MarkdownTable(columns).header
    for sc in scenarios {
      md += "| \(sc.csv) |"
      for st in stores {
        let k = Key(dataset: dataset, rows: n, store: st, index: .none)
        let f = find(k, mode: .fetch(.full), batch: 0, scenario: sc, metric: .time)
        let b = find(k, mode: .fetch(.batched), batch: batch, scenario: sc, metric: .time)
        md +=
          """
           \(f.map { String(format: "%.1f", $0.value) } ?? "—") | \
          \(b.map { String(format: "%.1f", $0.value) } ?? "—") |
          """
      }
      if hasPostgres {
        let k = Key(dataset: dataset, rows: n, store: .postgres, index: .none)
        func v(_ mode: FetchMode, _ b: Int, _ m: Metric) -> Double? {
          find(k, mode: .fetch(mode), batch: b, scenario: sc, metric: m)?.value
        }
        md += " \(count(v(.full, 0, .roundTrips))) / \(count(v(.batched, batch, .roundTrips))) |"
        md += " \(bytes(v(.full, 0, .bytesReceived))) / \(bytes(v(.batched, batch, .bytesReceived))) |"
      }
      md += "\n"
    }
    if stores.contains(.sqliteCoreData) { md += Self.planNote }
    if let load = rows.first(where: { $0.dataset == dataset && $0.rows == n && $0.scenario == .load && $0.isOK }) {
      md += String(
        format:
          """
          \nLoading the dataset into PostgreSQL (COPY of every table, then indexes and ANALYZE) took **%.2f s** (one \
          load; target well under \(Int(Targets.postgresLoadSeconds.bound)) s).\n
          """,
        load.value)
    }
    return md + "\n"
  }

  package func postgresFloorSection(dataset: DatasetKind, rows n: Int) -> String {
    let floors = rows.filter { $0.dataset == dataset && $0.rows == n && $0.store == .raw(.postgres) && $0.isOK }
    guard !floors.isEmpty else { return "" }
    var md = "### PostgreSQL against the floor (the same statements timed by the server, and fetched by psql)\n\n"
    md +=
      """
      EXPLAIN ANALYZE gives the server's planning + execution time (no network, no client); psql's `\\timing` gives \
      libpq 
      """
    md += "fetching the rows with nothing on top. The store fetches the sorted IDs as one `bigint[]` value "
    md +=
      """
      (`SELECT ARRAY(…)`, one row instead of one per ID); the target compares it with psql fetching the IDs as rows, \
      the plain way, 
      """
    md +=
      """
      and psql running the store's own statement is shown too. A scroll-through's psql floor is the ID query plus \
      every batch statement. 
      """
    md +=
      """
      Heap peaks of PostgreSQL cases count the measuring thread only: rows are decoded on postgres-nio's event-loop \
      thread.\n\n
      """
    md +=
      MarkdownTable(
        .left("index"), .right("batch"), .left("what"), .right("engine ms"), .right("server ms"), .right("psql ms"),
        .right("engine/psql"), .right("target")
      ).header
    var notes: [String] = []
    for index in Array(Set(floors.map(\.index))).sorted(by: { $0.csv < $1.csv }) {
      for batch in tableBatchSizes {
        let (table, more) = postgresFloorRows(floors, dataset: dataset, rows: n, index: index, batch: batch)
        md += table
        notes += more
      }
    }
    md += "\n" + notes.map { "- \($0)\n" }.joined() + "\n"
    return md
  }

  /// One index's and batch size's lines of the PostgreSQL floor table, and its notes on round
  /// trips and the batch sweep.
  func postgresFloorRows(_ floors: [ResultRow], dataset: DatasetKind, rows n: Int, index: IndexTag, batch: Int) -> (
    String, [String]
  ) {
    var md = ""
    var notes: [String] = []
    let k = Key(dataset: dataset, rows: n, store: .postgres, index: index)
    func floor(_ m: Metric) -> ResultRow? {
      floors.first { $0.index == index && $0.batchSize == batch && $0.metric == m }
    }
    func f(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "—" }
    let ids = floor(.floorIDs)?.value
    let scroll = floor(.floorScroll)?.value
    let lines: [(String, ResultRow?, Double?, Double?, String)] = [
      (
        "batched performFetch vs the ID query", find(k, .batched, batch: batch, .performFetch, metric: .time),
        floor(.floorServerIDs)?.value, ids, Targets.engineOverPsql.description
      ),
      (
        "batched performFetch vs the store's own statement, SELECT ARRAY(the ID query)",
        find(k, .batched, batch: batch, .performFetch, metric: .time), nil,
        floor(.floorIDsArray)?.value, "—"
      ),
      (
        "batched scroll-through vs the ID query + every batch statement",
        find(k, .batched, batch: batch, .scrollThrough, metric: .time), nil,
        ids.flatMap { i in scroll.map { i + $0 } }, "—"
      ),
      (
        "full performFetch vs all rows", find(k, .full, batch: 0, .performFetch, metric: .time),
        floor(.floorServerFull)?.value, floor(.floorFull)?.value, "—"
      ),
    ]
    for (what, engine, server, psql, target) in lines {
      md +=
        """
        | \(index) | \(batch) | \(what) | \(ms(engine)) | \(f(server)) | \(f(psql)) | \
        \(ratio(engine?.value, psql)) | \(target) |\n
        """
    }
    if let rt = floor(.roundTrip), let fixed = floor(.batchFaultFixed), let row = floor(.rowCost),
      let crossover = floor(.roundTripBatchSize), let server = floor(.floorServerBatch)
    {
      notes.append(
        String(
          format:
            """
            index %@: one round trip (`SELECT 1` through the store's connection) takes %.0f µs (median of %d, \
            %.0f–%.0f); a batch fault's fixed cost is %.0f µs and each row %.2f µs more (least squares over a \
            scroll through %@ rows at batch sizes %@), so a scroll-through is dominated by round trips below a \
            batch size of **%.0f rows**; the server itself spends %.3f ms on a %d-row batch statement.
            """,
          index.csv, rt.value, rt.repetitions, rt.min, rt.max, fixed.value, row.value, BatchSweep.rows.grouped,
          BatchSweep.batchSizes.map(String.init).joined(separator: ", "), crossover.value, server.value, batch))
      let sweep = BatchSweep.batchSizes.compactMap { b in
        floor(.sweepPerRow(batchSize: b)).map { String(format: "%d: %.2f µs", b, $0.value) }
      }
      notes.append("index \(index): time per row by batch size: " + sweep.joined(separator: ", "))
    }
    return (md, notes)
  }

  package func floorSection(dataset: DatasetKind, rows n: Int) -> String {
    let floors = rows.filter { $0.dataset == dataset && $0.rows == n && $0.store == .raw(.sqlite) && $0.isOK }
    guard !floors.isEmpty else { return "" }
    var md = "### SQLite against the floor (the same SQL through the raw SQLite C API)\n\n"
    md +=
      MarkdownTable(
        .left("index"), .right("batch"), .left("what"), .right("engine ms"), .right("floor ms"), .right("engine/floor"),
        .right("target")
      ).header
    var notes: [String] = []
    for index in Array(Set(floors.map(\.index))).sorted(by: { $0.csv < $1.csv }) {
      for batch in tableBatchSizes {
        let k = Key(dataset: dataset, rows: n, store: .sqlite, index: index)
        func floor(_ m: Metric) -> Double? {
          floors.first { $0.index == index && $0.batchSize == batch && $0.metric == m }?.value
        }
        let pairs: [(String, ResultRow?, Double?, String)] = [
          (
            "batched performFetch vs the ID query", find(k, .batched, batch: batch, .performFetch, metric: .time),
            floor(.floorIDs), Targets.engineOverFloor.description
          ),
          // A scroll-through issues the ID query, then every batch query: its floor is both.
          (
            "batched scroll-through vs the ID query + every batch query",
            find(k, .batched, batch: batch, .scrollThrough, metric: .time),
            floor(.floorIDs).flatMap { ids in floor(.floorScroll).map { ids + $0 } },
            Targets.engineOverFloor.description
          ),
          (
            "full performFetch vs all rows", find(k, .full, batch: 0, .performFetch, metric: .time),
            floor(.floorFull), "—"
          ),
        ]
        for (what, engine, fl, target) in pairs {
          md +=
            """
            | \(index) | \(batch) | \(what) | \(ms(engine)) | \(fl.map { String(format: "%.1f", $0) } ?? "—") | \
            \(ratio(engine?.value, fl)) | \(target) |\n
            """
        }
        if let live = find(k, .batched, batch: batch, .performFetch, metric: .heapLive)?.value {
          notes.append(
            String(
              format:
                "index %@, batch %d: live heap after batched performFetch is %.1f bytes per row "
                + "(target \(Targets.heapBytesPerRow))",
              index.csv, batch,
              live / Double(n)))
        }
      }
    }
    md += "\n" + notes.map { "- \($0)\n" }.joined() + "\n"
    return md
  }
}
