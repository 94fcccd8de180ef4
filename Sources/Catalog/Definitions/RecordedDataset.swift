import FetchedResults

/// A dataset known only by the name results recorded: a user's database read by the run that
/// wrote them, whose report is rendered again without it. It has no model and no list of its
/// own; the report's figures need neither.
public struct RecordedDataset: DatasetDefinition {
  public var name: String
  public var tables: [TableSchema] { [] }
  public var model: Model { Model(entities: []) }
  public var listEntity: String { name }
  public var sortDescription: String { "its own sort (recorded in the run's settings)" }
  public var sectionKeyPath: String { "" }

  public init(name: String) { self.name = name }

  public func defaultRequest(batchSize: Int) -> FetchRequest {
    FetchRequest(entityName: name, fetchBatchSize: batchSize)
  }
  public func mapTyped(_ objects: [FetchedObject], codable: Bool) throws -> Int { 0 }
}

extension DatasetKind {
  /// The kind named `name` in results: a registered one, or a `RecordedDataset` registered for
  /// a well-formed name no definition has (lowercase letters, digits, `-`). O(1).
  public static func recorded(_ name: String) -> DatasetKind? {
    if let kind = DatasetKind(rawValue: name) { return kind }
    guard !name.isEmpty, name.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" }) else { return nil }
    return register(RecordedDataset(name: name))
  }
}
