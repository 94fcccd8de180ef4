import FetchedResults

/// The RubyMotion tutorial's oil and gas wells: one table, listed by `spudDate` descending.
public struct WellsDataset: DatasetDefinition {
  public init() {}

  public var name: String { "wells" }

  public var tables: [TableSchema] { [Schemas.wells] }

  public static let model = Model(entities: [
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

  public var model: Model { Self.model }
  public var listEntity: String { "Well" }
  public var sortDescription: String { "`spudDate` descending" }
  public var sectionKeyPath: String { "state" }

  public func defaultRequest(batchSize: Int) -> FetchRequest {
    FetchRequest(
      entityName: listEntity, sortDescriptors: [SortDescriptor("spudDate", ascending: false)], fetchBatchSize: batchSize
    )
  }

  public func mapTyped(_ objects: [FetchedObject], codable: Bool) throws -> Int {
    try Well.map(objects, codable: codable)
  }

}
