import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import ResultModel
import Vocabulary

extension Scenario {
  /// Where `sectioned_cached` keeps its counts: a folder of this process's, removed with its
  /// temporary files when the process ends or is interrupted.
  nonisolated(unsafe) static var sectionCache: SectionCacheFolder = {
    let folder =
      (try? AtomicFile.createTemporaryFolder(for: NSTemporaryDirectory() + "fetchbench-sections"))
      ?? NSTemporaryDirectory()
    return SectionCacheFolder(folder: folder)
  }()

  /// What the cells scenarios read: the cell's key paths, and whether the relationships they
  /// cross are prefetched (the reference) or faulted one related object at a time (the case).
  package struct CellReading: Sendable {
    package var keyPaths: [String]
    package var prefetched = false
    package init(_ keyPaths: [String], prefetched: Bool = false) {
      (self.keyPaths, self.prefetched) = (keyPaths, prefetched)
    }
  }

  /// Runs the scenario and returns the controller, still holding whatever it loaded, and for
  /// the mapped scenarios the time spent mapping rows to typed models.
  /// `request` replaces the scenario's own (the sectioned scenario's same sort without sections);
  /// the cells scenarios read `cells`.
  package func run(
    _ kind: DatasetKind, batchSize: Int, store: any Store, request: FetchRequest? = nil, cells: CellReading? = nil
  ) throws -> (controller: FetchedResultsController, mappingNanos: UInt64?) {
    var request = request ?? self.request(kind, batchSize: batchSize)
    if readsCells {
      guard let cells, !Cells.relationships(of: cells.keyPaths).isEmpty else {
        throw ListError.scenarioNeedsCell(scenario: rawValue)
      }
      request.relationshipKeyPathsForPrefetching = cells.prefetched ? Cells.relationships(of: cells.keyPaths) : []
    }
    let controller = FetchedResultsController(fetchRequest: request, store: store)
    let cellReader =
      try cells.map { (cells: CellReading) throws -> Cells? in
        guard readsCells else { return nil }
        return try Cells(
          cells.keyPaths, request: request.resolve(in: store.model), store: store, related: controller.related)
      } ?? nil
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
    case .firstScreenCells, .scrollFirst1000Cells:
      let n = min(self == .firstScreenCells ? 20 : Self.flingRows, controller.count)
      for i in 0..<n { sink &+= Self.read(try cellReader!.cell(try controller.object(atGlobalIndex: i))) }
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
    case .firstScreenMapped, .firstScreenMappedCodable, .scrollThrough, .randomAccess, .sectionedCached,
      .firstScreenCells, .scrollFirst1000Cells:
      throw MeasurementFault.notPaged(scenario: rawValue)
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
  package func measure(
    _ kind: DatasetKind, mode: FetchMode, batchSize: Int, store: any Store, request: FetchRequest? = nil,
    cells: CellReading? = nil
  ) throws -> Run {
    store.resetCounters()
    if let strategy = mode.paging {
      let (sample, page) = try Sampler.once {
        try self.runPaged(kind, pageSize: batchSize, strategy: strategy, store: store, request: request)
      }
      withExtendedLifetime(page) {}
      return Run(sample: sample, counters: store.counters, mappingNanos: nil)
    }
    let (sample, run) = try Sampler.once {
      try self.run(kind, batchSize: mode.batchSize(batchSize), store: store, request: request, cells: cells)
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
