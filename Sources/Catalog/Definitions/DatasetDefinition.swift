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
  /// Whether the rows are a Core Data store's, whose indexes the model declares. O(1).
  var isCoreData: Bool { get }
  /// The error to show for `error`, met reading this dataset's list: one that says more where
  /// the dataset knows more (a user's database), else `error`. O(model).
  func explain(_ error: any Error) -> any Error
  /// Seconds to add to the date at `keyPath` (from the list's entity) for seconds since 1970;
  /// nil where its values count from 1970 already. O(key path).
  func dateOffset(of keyPath: String) -> Double?
}

extension DatasetDefinition {
  public var cellKeyPaths: [String] { [] }
  public var isCoreData: Bool { false }
  public func explain(_ error: any Error) -> any Error { error }
  public func dateOffset(of keyPath: String) -> Double? { nil }

  /// The default list sectioned by `sectionKeyPath`: sorted by it first, as sections require,
  /// then as the default list.
  public func sectionedRequest(batchSize: Int) -> FetchRequest {
    var r = defaultRequest(batchSize: batchSize)
    r.sortDescriptors.insert(SortDescriptor(sectionKeyPath), at: 0)
    r.sectionNameKeyPath = sectionKeyPath
    return r
  }
}
