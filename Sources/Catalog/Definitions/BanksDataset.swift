import FetchedResults

/// The Core Data tutorial's failed banks: FailedBankInfo ↔ FailedBankDetails, one-to-one
/// through `failed_bank_details.info_id`, listed by `details.closeDate` descending.
public struct BanksDataset: DatasetDefinition {
  public init() {}

  public var name: String { "banks" }

  public var tables: [TableSchema] { [Schemas.failedBankInfo, Schemas.failedBankDetails] }

  public static let model = Model(entities: [
    Entity(
      name: "FailedBankInfo", table: "failed_bank_info",
      attributes: [
        Attribute("name", .string), Attribute("city", .string), Attribute("state", .string),
      ],
      relationships: [
        Relationship("details", to: "FailedBankDetails", sourceColumn: "id", destinationColumn: "info_id")
      ]),
    Entity(
      name: "FailedBankDetails", table: "failed_bank_details",
      attributes: [
        Attribute("infoID", column: "info_id", .integer), Attribute("closeDate", .date),
        Attribute("updatedDate", .date), Attribute("zip", .string), Attribute("cert", .integer),
        Attribute("acquiringInstitution", .string), Attribute("fund", .integer),
      ],
      relationships: [
        Relationship("info", to: "FailedBankInfo", sourceColumn: "info_id", destinationColumn: "id")
      ]),
  ])

  public var model: Model { Self.model }
  public var listEntity: String { "FailedBankInfo" }
  public var sortDescription: String { "`details.closeDate` descending" }
  public var sectionKeyPath: String { "state" }
  /// The tutorial's cell: the bank, where it was, and when it closed.
  public var cellKeyPaths: [String] { ["name", "city", "state", "details.closeDate"] }

  /// Details prefetched, as a cell shows them.
  public func defaultRequest(batchSize: Int) -> FetchRequest {
    FetchRequest(
      entityName: listEntity, sortDescriptors: [SortDescriptor("details.closeDate", ascending: false)],
      fetchBatchSize: batchSize, relationshipKeyPathsForPrefetching: ["details"])
  }

  public func mapTyped(_ objects: [FetchedObject], codable: Bool) throws -> Int {
    try FailedBank.map(objects, codable: codable)
  }

}
