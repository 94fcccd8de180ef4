import FetchedResults

/// The datasets as the engine sees them: entities over the tables of `Schemas`.
public enum DatasetModels {
  /// FailedBankInfo ↔ FailedBankDetails, one-to-one through `failed_bank_details.info_id`.
  public static let banks = Model(entities: [
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

  public static let wells = Model(entities: [
    Entity(
      name: "Well", table: "wells",
      attributes: [
        Attribute("apiNumber", .string), Attribute("wellName", .string),
        Attribute("operator", .string), Attribute("field", .string, optional: true),
        Attribute("county", .string), Attribute("state", .string),
        Attribute("latitude", .double, optional: true),
        Attribute("longitude", .double, optional: true),
        Attribute("spudDate", .date, optional: true), Attribute("status", .string),
        Attribute("wellType", .string), Attribute("totalDepth", .integer, optional: true),
      ])
  ])

  public static func model(for kind: DatasetKind) -> Model { kind == .banks ? banks : wells }

  /// The entity a list of the dataset shows.
  public static func listEntity(for kind: DatasetKind) -> String {
    kind == .banks ? "FailedBankInfo" : "Well"
  }

  /// The tutorials' request: banks by `details.closeDate` descending (details prefetched, as
  /// a cell shows them), wells by `spudDate` descending.
  /// The default request sectioned by state: sorted by state first, as sections require,
  /// then as the default request.
  public static func sectionedRequest(for kind: DatasetKind, batchSize: Int = 20) -> FetchRequest {
    var r = defaultRequest(for: kind, batchSize: batchSize)
    r.sortDescriptors.insert(SortDescriptor("state"), at: 0)
    r.sectionNameKeyPath = "state"
    return r
  }

  public static func defaultRequest(for kind: DatasetKind, batchSize: Int = 20) -> FetchRequest {
    switch kind {
    case .banks:
      FetchRequest(
        entityName: "FailedBankInfo",
        sortDescriptors: [SortDescriptor("details.closeDate", ascending: false)],
        fetchBatchSize: batchSize, relationshipKeyPathsForPrefetching: ["details"])
    case .wells:
      FetchRequest(
        entityName: "Well", sortDescriptors: [SortDescriptor("spudDate", ascending: false)],
        fetchBatchSize: batchSize)
    }
  }
}
