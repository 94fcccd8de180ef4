import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation

/// What a user does with a list, measured from creating the controller.
package enum Scenario: String, Sendable, Codable, CaseIterable {
  /// performFetch alone.
  case performFetch = "perform_fetch"
  /// performFetch, then rows 0…19 materialized and every attribute read.
  case firstScreen = "first_screen"
  /// The first screen mapped to typed models (`FailedBank`, `Well`) by their direct initializer.
  case firstScreenMapped = "first_screen_mapped"
  /// The same first screen decoded through `Decodable` (`FetchedObjectDecoder`), the mapping
  /// many apps reach for; beside `first_screen_mapped` it prices Codable.
  case firstScreenMappedCodable = "first_screen_mapped_codable"
  /// performFetch, then every row in order, attributes read: a fling to the bottom.
  case scrollThrough = "scroll_through"
  /// performFetch, then 1,000 seeded random rows.
  case randomAccess = "random_access"
  /// performFetch with sections by state, then the first screen.
  case sectioned = "sectioned"
  /// The sectioned scenario on a relaunch that finds its section cache valid (`cacheName`):
  /// the counts read from the cache's file instead of the store. The warm-up fills the
  /// cache. SQLite only: the other stores report no data version.
  case sectionedCached = "sectioned_cached"
  /// performFetch, then the 20 rows from the middle (n/2) read: a jump, as by the index bar.
  case jumpMiddle = "jump_middle"
  /// performFetch, then the last 20 rows read.
  case jumpEnd = "jump_end"
  /// performFetch, then the first 1,000 rows read in order: a fling. Paged strategies read
  /// it as 50 pages; a whole scroll-through would be n/20 queries each sorting the table
  /// where no index gives the order.
  case scrollFirst1000 = "scroll_first_1000"

  package static let randomRows = 1_000
  package static let flingRows = 1_000

  /// Whether `mode` runs this scenario. Offset and keyset read pages only: a whole
  /// scroll-through or 1,000 random rows would be a query per page, each sorting the table
  /// without an index; the mapped first screens price the mapping, the same for every
  /// strategy.
  package func applies(to mode: FetchMode) -> Bool {
    guard mode.paging != nil else { return true }
    // Pages carry no section counts to cache.
    return [.performFetch, .firstScreen, .sectioned, .jumpMiddle, .jumpEnd, .scrollFirst1000].contains(self)
  }

  /// The request this scenario runs. Sectioned sorts by state first, as sections require.
  package func request(_ kind: DatasetKind, batchSize: Int) -> FetchRequest {
    isSectioned
      ? DatasetModels.sectionedRequest(for: kind, batchSize: batchSize) : DatasetModels.defaultRequest(for: kind, batchSize: batchSize)
  }

  /// The sectioned scenarios, with or without a cache.
  package var isSectioned: Bool { self == .sectioned || self == .sectionedCached }

  /// Where `sectioned_cached` keeps its counts: a folder of this process's, removed with its
  /// temporary files when the process ends or is interrupted.
  nonisolated(unsafe) static var sectionCache: SectionCacheFolder = {
    let folder = (try? AtomicFile.createTemporaryFolder(for: NSTemporaryDirectory() + "fetchbench-sections")) ?? NSTemporaryDirectory()
    return SectionCacheFolder(folder: folder)
  }()

  /// The sectioned scenario's request without its sections: the same sort, so the two differ
  /// only by what sections cost (the section counts, and on SQL stores their grouped query).
  package func unsectionedRequest(_ kind: DatasetKind, batchSize: Int) -> FetchRequest? {
    guard self == .sectioned else { return nil }
    var request = request(kind, batchSize: batchSize)
    request.sectionNameKeyPath = nil
    return request
  }

  /// Runs the scenario and returns the controller, still holding whatever it loaded, and for
  /// the mapped scenarios the time spent mapping rows to typed models.
  /// `request` replaces the scenario's own (the sectioned scenario's same sort without sections).
  package func run(_ kind: DatasetKind, batchSize: Int, store: any Store, request: FetchRequest? = nil) throws -> (
    controller: FetchedResultsController, mappingNanos: UInt64?
  ) {
    let controller = FetchedResultsController(fetchRequest: request ?? self.request(kind, batchSize: batchSize), store: store)
    if self == .sectionedCached {
      controller.sectionCache = Self.sectionCache
      controller.cacheName = rawValue
    }
    try controller.performFetch()
    var mappingNanos: UInt64?
    var sink = 0
    switch self {
    case .performFetch:
      break
    case .firstScreen, .sectioned, .sectionedCached:
      for i in 0..<min(20, controller.count) { sink &+= Self.read(try controller.object(atGlobalIndex: i)) }
    case .firstScreenMapped, .firstScreenMappedCodable:
      // Fault the rows first, then time the mapping alone: it is microseconds beside a
      // performFetch of hundreds of milliseconds and would vanish in that spread.
      let objects = try (0..<min(20, controller.count)).map { try controller.object(atGlobalIndex: $0) }
      let t0 = Clock.wallNanos
      sink &+= try Self.map(objects, kind, codable: self == .firstScreenMappedCodable)
      mappingNanos = Clock.wallNanos - t0
    case .scrollThrough:
      for i in 0..<controller.count { sink &+= Self.read(try controller.object(atGlobalIndex: i)) }
    case .randomAccess:
      var rng = SeededRandom(seed: 42)
      let n = UInt64(max(1, controller.count))
      for _ in 0..<Self.randomRows where controller.count > 0 {
        sink &+= Self.read(try controller.object(atGlobalIndex: Int(rng.below(n))))
      }
    case .jumpMiddle, .jumpEnd:
      let start = self == .jumpMiddle ? controller.count / 2 : max(0, controller.count - 20)
      for i in start..<min(start + 20, controller.count) { sink &+= Self.read(try controller.object(atGlobalIndex: i)) }
    case .scrollFirst1000:
      for i in 0..<min(Self.flingRows, controller.count) { sink &+= Self.read(try controller.object(atGlobalIndex: i)) }
    }
    blackHole(sink)
    return (controller, mappingNanos)
  }

  /// The offsets of the pages `runPaged` reads in a list of `n` rows: the fling's run to the
  /// short (or empty) page that ends a list shorter than it. O(pages).
  package func pageOffsets(rows n: Int, pageSize: Int) -> [Int] {
    switch self {
    case .jumpMiddle: [n / 2]
    case .jumpEnd: [max(0, n - pageSize)]
    case .scrollFirst1000: Array(stride(from: 0, to: min(Self.flingRows, n + 1), by: pageSize))
    default: [0]
    }
  }

  /// Runs the scenario page by page (pages of `pageSize`), with no ID list: performFetch is
  /// the first page's query; a jump first counts the rows (one query), then reads the page
  /// at its offset (keyset too: a seek needs the row before, which a jump does not have);
  /// the fling reads 50 pages in order, by offset or by seeking past each page's last row.
  /// Returns the last page read, which the list holds.
  package func runPaged(
    _ kind: DatasetKind, pageSize: Int, strategy: PagingStrategy, store: any Store, request: FetchRequest? = nil
  ) throws -> [FetchedObject] {
    let pager = try Pager(request ?? self.request(kind, batchSize: pageSize), store: store, pageSize: pageSize)
    var sink = 0
    var page: [FetchedObject]
    switch self {
    case .performFetch:
      page = try pager.page(at: 0)
    case .firstScreen, .sectioned:
      page = try pager.page(at: 0)
      for o in page { sink &+= Self.read(o) }
    case .jumpMiddle, .jumpEnd:
      let n = try store.count(try pager.request.resolve(in: store.model))
      page = try pager.page(at: self == .jumpMiddle ? n / 2 : max(0, n - pageSize))
      for o in page { sink &+= Self.read(o) }
    case .scrollFirst1000:
      page = []
      var read = 0
      while read < Self.flingRows {
        page = try strategy == .offset ? pager.page(at: read) : pager.page(after: page.last)
        for o in page { sink &+= Self.read(o) }
        read += page.count
        if page.count < pageSize { break }
      }
    case .firstScreenMapped, .firstScreenMappedCodable, .scrollThrough, .randomAccess, .sectionedCached:
      throw HarnessError.invalidArgument("\(rawValue) is not measured page by page")
    }
    blackHole(sink)
    return page
  }

  /// What one measured run of a scenario cost, and the store's counters for it.
  package struct Run {
    package var sample: Sample
    package var counters: StoreCounters
    /// The mapped scenarios' time spent mapping rows to typed models.
    package var mappingNanos: UInt64?
  }

  /// Runs the scenario once under `Sampler.once`, counters reset first; what the list holds
  /// (the controller, or the last page) is dropped after its heap is read. `batchSize` is the
  /// batch or page size (0 with full fetch); `request`, built with it, replaces the scenario's
  /// own (a user's list).
  package func measure(_ kind: DatasetKind, mode: FetchMode, batchSize: Int, store: any Store, request: FetchRequest? = nil) throws -> Run {
    store.resetCounters()
    if let strategy = mode.paging {
      let (sample, page) = try Sampler.once {
        try self.runPaged(kind, pageSize: batchSize, strategy: strategy, store: store, request: request)
      }
      withExtendedLifetime(page) {}
      return Run(sample: sample, counters: store.counters, mappingNanos: nil)
    }
    let (sample, run) = try Sampler.once {
      try self.run(kind, batchSize: mode == .full ? 0 : batchSize, store: store, request: request)
    }
    withExtendedLifetime(run.controller) {}
    return Run(sample: sample, counters: store.counters, mappingNanos: run.mappingNanos)
  }

  /// Maps rows to the dataset's typed model by the direct initializer or through `Decodable`.
  static func map(_ objects: [FetchedObject], _ kind: DatasetKind, codable: Bool) throws -> Int {
    try kind.definition.mapTyped(objects, codable: codable)
  }

  /// Reads every attribute of a row, as a cell configuring its labels would.
  @inline(__always) static func read(_ o: FetchedObject) -> Int {
    var n = 0
    for v in o.values {
      switch v {
      case .string(let s): n &+= s.utf8.count
      case .integer(let i): n &+= Int(truncatingIfNeeded: i)
      case .double(let d), .date(let d): n &+= Int(d.bitPattern & 0xFF)
      case .bool(let b): n &+= b ? 1 : 0
      case .null: n &+= 1
      }
    }
    return n
  }
}

/// How a list reads its rows: Core Data's two ways, full fetch and batched faulting, and the
/// two ways without an ID list, pages by offset and by keyset.
package enum FetchMode: String, Sendable, Codable, CaseIterable {
  case full, batched, offset, keyset

  /// The paging strategy of offset and keyset; nil for full fetch and batched faulting.
  package var paging: PagingStrategy? { PagingStrategy(rawValue: rawValue) }

  /// What a list read this way gives after a save: row-level change sets (full and batched
  /// keep the sorted IDs and their keys), or only the shown pages read again.
  package var changeSets: String { paging == nil ? "row-level change sets" : "page refresh" }
}
