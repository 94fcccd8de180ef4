import FetchedResults

/// The RubyMotion tutorial's oil and gas wells: one table, listed by `spudDate` descending.
public struct WellsDataset: DatasetDefinition {
  public init() {}

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
    FetchRequest(entityName: listEntity, sortDescriptors: [SortDescriptor("spudDate", ascending: false)], fetchBatchSize: batchSize)
  }

  public func mapTyped(_ objects: [FetchedObject], codable: Bool) throws -> Int {
    guard let layout = objects.first?.layout else { return 0 }
    var sink = 0
    if codable {
      let decoder = FetchedObjectDecoder()
      for o in objects { sink &+= try decoder.decode(Well.self, from: o).wellName.utf8.count }
    } else {
      let ix = try Well.Indexes(layout)
      for o in objects { sink &+= Well(o, ix).wellName.utf8.count }
    }
    return sink
  }
}
