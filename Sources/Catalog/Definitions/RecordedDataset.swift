import FetchedResults

/// A dataset known only by the name results recorded: a user's database read by the run that
/// wrote them, whose report is rendered again without it. It has no model and no list of its
/// own; the report's figures need neither.
public struct RecordedDataset: DatasetDefinition {
  public var name: String
  public var tables: [TableSchema] { [] }
  public var model: Model { Model(entities: []) }
  /// The list's entity as the run's settings spell it; the kind's name where they do not.
  public var listEntity: String
  public var sortDescription: String { "its own sort (recorded in the run's settings)" }
  public var sectionKeyPath: String { "" }
  /// As a `DatabaseDataset` of this name and entity names itself, so that a report rendered
  /// without the database names the list as the run did.
  public var displayName: String { DatabaseDataset.displayName(name: name, listEntity: listEntity) }
  /// The indexes the run's advice tried, as its results recorded them: what an index's tag
  /// names (`IndexSpec(tag:in:)`) without the database's tables.
  public var indexes: [IndexSpec]
  /// For a Core Data store, each of those indexes as its model declares it, by tag
  /// (`DatabaseDataset.coreDataFetchIndex`).
  public var coreDataFetchIndexes: [String: String]

  public init(
    name: String, listEntity: String? = nil, indexes: [IndexSpec] = [], coreDataFetchIndexes: [String: String] = [:]
  ) {
    (self.name, self.listEntity, self.indexes) = (name, listEntity ?? name, indexes)
    self.coreDataFetchIndexes = coreDataFetchIndexes
  }

  public func defaultRequest(batchSize: Int) -> FetchRequest {
    FetchRequest(entityName: name, fetchBatchSize: batchSize)
  }
  public func mapTyped(_ objects: [FetchedObject], codable: Bool) throws -> Int { 0 }
}

extension DatasetKind {
  /// The kind named `name` in results: a registered one, or a `RecordedDataset` registered for
  /// a well-formed name no definition has (lowercase letters, digits, `-`). With `listEntity`
  /// (a run's settings name the entity of a user's list and the indexes its advice tried), a
  /// `RecordedDataset` registered before is replaced by one that names them; a definition read
  /// from a database is kept. O(1).
  public static func recorded(
    _ name: String, listEntity: String? = nil, indexes: [IndexSpec] = [], coreDataFetchIndexes: [String: String] = [:]
  ) -> DatasetKind? {
    if let kind = DatasetKind(rawValue: name), listEntity == nil || !(kind.definition is RecordedDataset) {
      return kind
    }
    guard !name.isEmpty, name.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" }) else { return nil }
    return register(
      RecordedDataset(
        name: name, listEntity: listEntity, indexes: indexes, coreDataFetchIndexes: coreDataFetchIndexes))
  }
}
