import Catalog
import FetchedResults

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
  /// performFetch with nothing prefetched, then the first screen's cells filled (the list's
  /// cell key paths): each related object a cell reads is a fault, one query each. Held
  /// against the same cells with their relationships prefetched, alternately.
  case firstScreenCells = "first_screen_cells"
  /// The same through the first 1,000 rows: a fling through cells that fault.
  case scrollFirst1000Cells = "scroll_first_1000_cells"

  /// What the scenario does, in words, for charts and prose: "first screen", "fling through
  /// the first 1,000 rows".
  package var title: String {
    switch self {
    case .performFetch: "performFetch alone"
    case .firstScreen: "first screen"
    case .firstScreenMapped: "first screen, mapped to models"
    case .firstScreenMappedCodable: "first screen, decoded (Codable)"
    case .scrollThrough: "scroll through every row"
    case .randomAccess: "1,000 random rows"
    case .sectioned: "sectioned first screen"
    case .sectionedCached: "sectioned, section cache valid"
    case .jumpMiddle: "jump to the middle"
    case .jumpEnd: "jump to the end"
    case .scrollFirst1000: "first 1,000 rows"
    case .firstScreenCells: "first screen's cells, faulting"
    case .scrollFirst1000Cells: "first 1,000 rows' cells, faulting"
    }
  }

  package static let randomRows = 1_000
  package static let flingRows = 1_000

  /// Whether `mode` runs this scenario. Offset and keyset read pages only: a whole
  /// scroll-through or 1,000 random rows would be a query per page, each sorting the table
  /// without an index; the mapped first screens price the mapping, the same for every
  /// strategy.
  package func applies(to mode: FetchMode) -> Bool {
    guard mode.paging != nil else { return true }
    // Pages prefetch as the batches do; the controller's cells are what is compared.
    guard !readsCells else { return false }
    // Pages carry no section counts to cache.
    return [.performFetch, .firstScreen, .sectioned, .jumpMiddle, .jumpEnd, .scrollFirst1000].contains(self)
  }

  /// The request this scenario runs. Sectioned sorts by state first, as sections require.
  package func request(_ kind: DatasetKind, batchSize: Int) -> FetchRequest {
    isSectioned
      ? DatasetModels.sectionedRequest(for: kind, batchSize: batchSize)
      : DatasetModels.defaultRequest(for: kind, batchSize: batchSize)
  }

  /// The scenarios that fill the list's cells, faulting what they read through relationships.
  /// The scenarios the recommendation reads to choose a batch size: the opening and the fling
  /// through the first rows (`Recommendation.candidates`).
  package var decidesBatchSize: Bool { self == .firstScreen || self == .scrollFirst1000 }
  package var readsCells: Bool { self == .firstScreenCells || self == .scrollFirst1000Cells }

  /// The sectioned scenarios, with or without a cache.
  package var isSectioned: Bool { self == .sectioned || self == .sectionedCached }

  /// The sectioned scenario's request without its sections: the same sort, so the two differ
  /// only by what sections cost (the section counts, and on SQL stores their grouped query).
  package func unsectionedRequest(_ kind: DatasetKind, batchSize: Int) -> FetchRequest? {
    guard self == .sectioned else { return nil }
    var request = request(kind, batchSize: batchSize)
    request.sectionNameKeyPath = nil
    return request
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

  /// The `fetchBatchSize` a list read this way at batch size `batch` is requested with: 0 for
  /// a full fetch, which reads every row at once, else `batch`. O(1).
  package func batchSize(_ batch: Int) -> Int { self == .full ? 0 : batch }
}
