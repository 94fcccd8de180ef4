import FetchedResults

/// Everything the engine, the harness and the report know about one dataset, in one place: a
/// new dataset is one conformer (and, for a generated one, its rows' generator in `Datasets`),
/// registered once with `DatasetKind.register(_:)` and reached through `DatasetKind.definition`.
public protocol DatasetDefinition: Sendable {
  /// The dataset's name: its `DatasetKind`, its files' prefix and its results' `dataset`
  /// column. Lowercase letters, digits and `-`.
  var name: String { get }
  /// The tables, each referenced table before the tables that reference it (the order they
  /// are written in).
  var tables: [TableSchema] { get }
  /// The entities over those tables.
  var model: Model { get }
  /// The entity a list of the dataset shows.
  var listEntity: String { get }
  /// The tutorial's list: its sort, and the relationships a cell shows, prefetched.
  func defaultRequest(batchSize: Int) -> FetchRequest
  /// How the default list is sorted, in words for headings (`spudDate` descending).
  var sortDescription: String { get }
  /// The key path the sectioned list is grouped by.
  var sectionKeyPath: String { get }
  /// What a cell of the list shows: key paths, some through relationships (empty: the row's
  /// own attributes, as every scenario reads them).
  var cellKeyPaths: [String] { get }
  /// Maps `objects` to the dataset's typed model, by its direct initializer or through
  /// `Decodable`, and returns a sum of what was read, so that no mapping is optimised away.
  /// O(objects).
  func mapTyped(_ objects: [FetchedObject], codable: Bool) throws -> Int
}

extension DatasetDefinition {
  public var cellKeyPaths: [String] { [] }

  /// The default list sectioned by `sectionKeyPath`: sorted by it first, as sections require,
  /// then as the default list.
  public func sectionedRequest(batchSize: Int) -> FetchRequest {
    var r = defaultRequest(batchSize: batchSize)
    r.sortDescriptors.insert(SortDescriptor(sectionKeyPath), at: 0)
    r.sectionNameKeyPath = sectionKeyPath
    return r
  }
}
