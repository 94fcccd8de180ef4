import ArgumentParser
import Catalog
import DatasetStores
import Datasets
import FetchBenchKit
import FetchedResults
import Foundation
import SQLQueries
import SQLiteStore
import TextFormatting
import Vocabulary

struct Fetch: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run one fetch request through a FetchedResultsController, for inspection.",
    discussion: """
      Examples:
        fetchbench fetch --dataset banks --store sqlite --ids | head
        # the same order, page by page, seeking past each page's last row
        fetchbench fetch --dataset banks --strategy keyset --ids | head
        fetchbench fetch --dataset banks --section state \\
          --sort 'state asc, name asc' --sections
        fetchbench fetch --dataset banks --stats \\
          --where "state IN {'TX','CA'} AND details.closeDate > 2009-01-01"
        # the statements Core Data would issue for the same list
        fetchbench fetch --dataset banks --plan coredata --show 20 --sql-debug
      """)

  @Option(help: "banks or wells (default: banks).") var dataset: String?
  @Option(
    help:
      """
      memory, sqlite, or postgres (FETCHBENCH_POSTGRES_URL, default the private server of scripts/postgres; the \
      dataset is loaded by COPY when missing). Default: sqlite; postgres for a --db on a server.
      """
  ) var store: String?
  @Option(help: "Entity to fetch (default: FailedBankInfo for banks, Well for wells).") var entity: String?
  @Option(
    help:
      "Sort descriptors, e.g. 'details.closeDate desc, name asc localizedStandardCompare:' (default: the dataset's).")
  var sort: String?
  @Option(help: "Section key path; it must be the first sort key.") var section: String?
  @OptionGroup var filter: PredicateOptions
  @OptionGroup var localeOption: LocaleOption
  var predicate: String? { filter.predicate }
  @Option(
    parsing: .unconditional,
    help:
      """
      fetchBatchSize: 0 fetches every row at once; the page size of offset and keyset \
      \(OptionRange.help(OptionRange.fetchBatchSize)).
      """
  )
  var batchSize = 20
  @Option(
    help:
      """
      full, batched (Core Data's fetchBatchSize), offset (pages by LIMIT/OFFSET) or keyset (pages by seeking past \
      the last row's sort key and ID); default: batched, or full with --batch-size 0.
      """
  ) var strategy: FetchStrategy?
  @Option(parsing: .unconditional, help: "fetchLimit (0 = none) \(OptionRange.help(OptionRange.count)).") var limit = 0
  @Option(parsing: .unconditional, help: "fetchOffset \(OptionRange.help(OptionRange.count)).") var offset = 0
  @Option(
    help: """
      Prefetch these relationships (comma-separated), as relationshipKeyPathsForPrefetching: a to-one's attributes \
      with each row, a to-many's elements by one more statement per batch. Default: with --cell, none; otherwise \
      the dataset's list's own (banks prefetches details); --stats says which.
      """)
  var prefetch: String?
  @Option(
    help: ArgumentHelp(
      """
      What a cell shows: key paths, comma-separated, e.g. 'name, details.closeDate' or 'title, tags.@count' \
      (default: every attribute).
      """,
      discussion: """
        A key path through a relationship that is not prefetched fires a fault per related object, as Core Data \
        does (one statement each; --stats counts them).
        """))
  var cell: String?
  @Flag(help: "Print the IDs in order, one per line, without loading rows.") var ids = false
  @Flag(help: "Print each section's name and count, tab-separated.") var sections = false
  @Option(
    parsing: .unconditional,
    help: "Without --ids or --sections: how many rows to print \(OptionRange.help(OptionRange.count)).")
  var show = 20
  @Flag(help: "Print queries issued, rows materialized and time on standard error.") var stats = false
  @Flag(
    help: """
      Open the list with a delegate, as a list that tracks changes (run's change-tracking cases): it keeps each \
      row's sort keys.
      """)
  var track = false
  @Option(parsing: .unconditional, help: "Dataset rows (1 to \(DatasetKind.maxRows.grouped)).") var rows = DatasetKind
    .defaultRows
  @Option(parsing: .unconditional, help: "Dataset seed (0 to 18,446,744,073,709,551,615).") var seed: UInt64 = 1
  @OptionGroup var datasetsFolder: DatasetsFolderOption
  var datasets: String { datasetsFolder.datasets }
  @OptionGroup var postgres: PostgresOptions
  @OptionGroup var sqlDebug: SQLDebugOption
  @Option(help: "Use the dataset file with an index on this column.") var index: [String] = []
  @Option(
    help:
      "fetchbench (default), or coredata: the dataset's file in Core Data's schema (generate --schema coredata).")
  var schema: String?
  @Option(
    help:
      """
      SQLite's statements: tuned (FetchBench's; the default), or coredata (what Core Data issues, as --store \
      sqlite-coredata: see --sql-debug).
      """
  )
  var plan: String?
  @Option(
    help: ArgumentHelp(
      """
      Keep the section counts under this name, as NSFetchedResultsController's cacheName: the next fetch of the same \
      list on unchanged data reads them instead of asking the store.
      """,
      discussion:
        "Kept in the temporary directory's fetchbench-section-cache folder; a write to the database invalidates them."))
  var cacheName: String?
  @OptionGroup var database: DatabaseOptions

  /// The dataset named, banks by default.
  var datasetName: String { dataset ?? DatasetKind.banks.rawValue }

  func validate() throws {
    let _: DatasetKind = try OptionValue.kind(datasetName, "dataset")
    try checkOwnList()
    if let store { let _: StoreKind = try OptionValue.kind(store, "store") }
    let statements: StatementPlan? = try plan.map { try OptionValue.kind($0, "plan") }
    if statements == .coreData && store != nil && store != "sqlite" && store != StoreKind.sqliteCoreData.rawValue {
      throw ValidationError(
        "--plan coredata is SQLite's: Core Data's statements run on SQLite only; drop --store or give --store sqlite")
    }
    guard !(ids && sections) else { throw ValidationError("--ids and --sections exclude each other") }
    try OptionValue.check(show, in: OptionRange.count, "show")
    try OptionValue.check(batchSize, in: OptionRange.fetchBatchSize, "batch-size")
    try OptionValue.check(limit, in: OptionRange.count, "limit")
    try OptionValue.check(offset, in: OptionRange.count, "offset")
    try OptionValue.check(rows, in: 1...DatasetKind.maxRows, "rows")
    if let paging = strategy?.paging {
      guard batchSize > 0 else {
        throw ValidationError("--strategy \(paging.rawValue) reads pages of --batch-size rows; give a size above 0")
      }
      guard !sections else {
        throw ValidationError("--sections needs --strategy full or batched: pages carry no section counts")
      }
      guard cell == nil else {
        throw ValidationError("--cell reads rows through a controller; give --strategy full or batched")
      }
      guard limit == 0 && offset == 0 else {
        throw ValidationError("--strategy \(paging.rawValue) sets the limit and offset of each page itself")
      }
    }
    if strategy == .batched && batchSize == 0 {
      throw ValidationError("--strategy batched needs --batch-size above 0")
    }
  }

  /// `--db` and `--model` read the user's own list: the dataset's options would be ignored
  /// there, so each is a usage error naming it.
  func checkOwnList() throws {
    guard database.db != nil || database.model != nil else { return }
    let source = database.db != nil ? "--db" : "--model"
    for (given, option) in [(dataset != nil, "--dataset"), (!index.isEmpty, "--index"), (schema != nil, "--schema")]
    where given {
      throw ValidationError(
        "\(option) is for the banks and wells datasets; \(source) reads your own list: drop \(option)")
    }
  }

  func run() throws {
    try postgres.apply()
    sqlDebug.apply()
    let db = try database.database(entity: entity, rows: rows, datasets: datasets)
    let storeKind: StoreKind = try OptionValue.kind(store ?? (try db?.server != nil ? "postgres" : "sqlite"), "store")
    let list = try parsedList()
    if let db { return try runOnDatabase(db, list: list, storeKind: storeKind) }
    let kind: DatasetKind = try OptionValue.kind(datasetName, "dataset")
    let request = makeRequest(kind, list: list)
    // Checked against the model before the dataset is opened (or generated, or loaded).
    do {
      _ = try request.resolve(in: DatasetModels.model(for: kind))
    } catch {
      throw ValidationError(String(describing: error))
    }
    let location = DatasetLocation(kind: kind, rows: rows, seed: seed, directory: datasets, indexes: index)
    let physical: PhysicalSchema = try OptionValue.kind(schema ?? PhysicalSchema.fetchbench.rawValue, "schema")
    guard physical == .coreData else { return try execute(request, location: location, storeKind: storeKind) }
    guard index.isEmpty else {
      throw ValidationError("--index names a column of FetchBench's schema; Core Data's file has its own indexes")
    }
    let (file, listKind) = try CoreDataFile.open(location)
    try executeOnDatabase(file, kind: listKind, list: list, storeKind: storeKind)
  }

  /// `--sort`, `--section` and `--where` parsed, once; a usage error for what does not parse.
  func parsedList() throws -> ListSpec {
    let text = try filter.request(sort: sort, section: section)
    do {
      return try ListSpec(parsing: text)
    } catch {
      throw ValidationError(String(describing: error))
    }
  }

  /// The list over the user's own database: `--entity` names it; `--sort` (default: by
  /// primary key) is its sort.
  func runOnDatabase(_ db: UserDatabase, list: ListSpec, storeKind: StoreKind) throws {
    guard let entity else {
      let (model, _) = try db.model(of: db.schema())
      throw ValidationError(
        """
        --db needs --entity NAME, the table or Core Data entity to list; this database has: \
        \(model.entities.map(\.name).joined(separator: ", "))
        """
      )
    }
    let (kind, _) = try db.register(entity: entity, sort: list.sortDescriptors ?? [], section: section)
    try executeOnDatabase(db, kind: kind, list: list, storeKind: storeKind)
  }

  /// The list of `kind`, registered over the user's database `db`, as the options ask.
  func executeOnDatabase(_ db: UserDatabase, kind: DatasetKind, list: ListSpec, storeKind: StoreKind) throws {
    var request = makeRequest(kind, list: list)
    request.entityName = kind.definition.listEntity
    do {
      _ = try request.resolve(in: kind.definition.model)
    } catch {
      throw ValidationError(String(describing: kind.definition.explain(error)))
    }
    var location = DatasetLocation(kind: kind)
    location.database = db
    try execute(request, location: location, storeKind: storeKind)
  }

  /// `kind`'s request with the options' entity, `list`'s sort and predicate, its section or
  /// none, the prefetch, and the strategy's batch size, limit and offset.
  func makeRequest(_ kind: DatasetKind, list: ListSpec) -> FetchRequest {
    var request = DatasetModels.defaultRequest(for: kind, batchSize: batchSize)
    if let entity {
      request.entityName = entity
      request.relationshipKeyPathsForPrefetching = []
      request.sortDescriptors = []
    }
    request = list.replacingParts(of: request)
    if let prefetch {
      request.relationshipKeyPathsForPrefetching = prefetch.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
      }
    } else if cell != nil {
      // The cell is the user's: what it reads through is faulted unless --prefetch names it,
      // as a request prefetches only what it names.
      request.relationshipKeyPathsForPrefetching = []
    }
    request.sectionNameKeyPath = section
    request.fetchBatchSize = strategy == .full ? 0 : batchSize
    request.fetchLimit = limit
    request.fetchOffset = offset
    return request
  }

  func execute(_ request: FetchRequest, location: DatasetLocation, storeKind: StoreKind) throws {
    let start = DispatchTime.now()
    do {  // one scope for the store's lifetime
      // --plan names SQLite's statements; another store has its own.
      let statements: StatementPlan? = storeKind.isSQLite ? try plan.map { try OptionValue.kind($0, "plan") } : nil
      let store = try statements.map { try location.openSQLite(plan: $0) } ?? location.open(storeKind)
      store.resetCounters()
      if let paging = strategy?.paging {
        return try page(request, store: store, paging, kind: location.kind, start: start)
      }
      let controller = FetchedResultsController(fetchRequest: request, store: store)
      controller.tracksChanges = track
      if let cacheName {
        controller.sectionCache = SectionCacheFolder()
        controller.cacheName = cacheName
      }
      try controller.performFetch()
      var out = OutputBuffer()
      var faults: Int?
      if ids {
        for id in controller.fetchedIDs { out.line(String(id)) }
      } else if sections {
        for s in controller.sections { out.line("\(s.name)\t\(s.numberOfObjects)") }
      } else {
        faults = try printRows(controller, request: request, store: store, kind: location.kind, into: &out)
      }
      out.flush()
      printStats(
        store, rows: controller.count, sections: controller.sections.count, faults: faults,
        prefetched: request.relationshipKeyPathsForPrefetching, since: start)
      if stats && cacheName != nil {
        FileHandle.standardError.write(
          Data("section_cache\t\(controller.sectionCacheHits == 1 ? "hit" : "miss")\n".utf8))
      }
    }
  }

  /// The first `show` rows, or with `--cell` their cells (each relationship not prefetched
  /// faulted per related object), tab-separated under a header.
  /// Returns the faults the cells fired, nil without `--cell`.
  func printRows(
    _ controller: FetchedResultsController, request: FetchRequest, store: any Store, kind: DatasetKind,
    into out: inout OutputBuffer
  ) throws -> Int? {
    let resolved = try request.resolve(in: store.model)
    let cells = try cellKeyPaths.map { try Cells($0, request: resolved, store: store, related: controller.related) }
    let keys = cells?.keyPaths ?? resolved.rowLayout.keys
    out.line((["id"] + keys).joined(separator: "\t"))
    let dates = DateColumns(kind, keys: keys)
    for i in 0..<min(show, controller.count) {
      let object = try controller.object(atGlobalIndex: i)
      out.line(dates.line(try cells?.cell(object) ?? object))
    }
    return cells?.faultsFired
  }

  /// `--cell`'s key paths.
  var cellKeyPaths: [String]? {
    cell.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
  }

  /// With `--stats`, what reading the list cost, on standard error (the IDs stay on standard
  /// output, to compare with another strategy's).
  func printStats(
    _ store: any Store, rows: Int, sections: Int?, faults: Int? = nil, prefetched: [String] = [],
    since start: DispatchTime
  ) {
    guard stats else { return }
    let ms = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
    let c = store.counters
    var lines = ["rows\t\(rows)"]
    if let sections { lines.append("sections\t\(sections)") }
    // Relationship faults are among the queries: one each.
    if let faults { lines.append("faults\t\(faults)") }
    // So are the statements of FetchBench's own under Core Data's plan.
    if store.counters.ownQueries > 0 { lines.append("own_queries\t\(store.counters.ownQueries)") }
    lines += [
      "queries\t\(c.queries)", "rows_materialized\t\(c.rowsMaterialized)",
      "time_ms\t\(String(format: "%.1f", ms)) (including opening the store)",
      "prefetched\t\(prefetched.isEmpty ? "none" : prefetched.joined(separator: ", "))",
    ]
    FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
  }
}

extension Fetch {
  /// Offset or keyset: the rows read page by page, each page one query, no ID list.
  func page(
    _ request: FetchRequest, store: any Store, _ strategy: PagingStrategy, kind: DatasetKind, start: DispatchTime
  ) throws {
    let pager = try Pager(request, store: store, pageSize: batchSize)
    var out = OutputBuffer()
    var rows: [FetchedObject] = []
    if ids {
      rows = try pager.all(strategy)
      for o in rows { out.line(String(o.id)) }
    } else {
      let keys = try pager.request.resolve(in: store.model).rowLayout.keys
      out.line((["id"] + keys).joined(separator: "\t"))
      while rows.count < show {
        let page = try strategy == .offset ? pager.page(at: rows.count) : pager.page(after: rows.last)
        rows += page
        if page.count < batchSize { break }
      }
      let dates = DateColumns(kind, keys: keys)
      for o in rows.prefix(show) { out.line(dates.line(o)) }
    }
    out.flush()
    printStats(store, rows: rows.count, sections: nil, since: start)
  }
}

/// How `fetch` reads the list.
enum FetchStrategy: String, ExpressibleByArgument, CaseIterable {
  case full, batched, offset, keyset
  var paging: PagingStrategy? { PagingStrategy(rawValue: rawValue) }
}

/// Buffered standard output: printing 244,292 lines one `print` at a time is slow.
struct OutputBuffer {
  private var buffer = ""
  mutating func line(_ s: String) {
    buffer += s
    buffer += "\n"
    if buffer.utf8.count > 1 << 16 { flush() }
  }
  mutating func flush() {
    FileHandle.standardOutput.write(Data(buffer.utf8))
    buffer = ""
  }
}

extension Value {
  /// How `fetch` prints a value.
  var displayText: String {
    switch self {
    case .null: ""
    case .string(let s): s
    case .date(let d): ISO8601.format(seconds: Int64(d))
    default: literalText
    }
  }
}

/// How `fetch` prints a row: each value as text, a Core Data store's dates (seconds since 2001)
/// as the dates they are.
struct DateColumns {
  let offsets: [Double?]

  init(_ kind: DatasetKind, keys: [String]) {
    let definition = kind.definition
    offsets = keys.map { definition.dateOffset(of: $0) }
  }

  func line(_ o: FetchedObject) -> String {
    let values = o.values.enumerated().map { i, v -> String in
      switch (i < offsets.count ? offsets[i] : nil, v) {
      case (let offset?, .double(let d)): ISO8601.format(seconds: Int64((d + offset).rounded(.down)))
      case (let offset?, .integer(let n)): ISO8601.format(seconds: n + Int64(offset))
      default: v.displayText
      }
    }
    return ([String(o.id)] + values).joined(separator: "\t")
  }
}
