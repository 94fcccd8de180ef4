import FetchedResults

/// The datasets as the engine sees them, by kind: shorthands for `DatasetKind.definition`.
public enum DatasetModels {
  public static let banks = BanksDataset.model
  public static let wells = WellsDataset.model

  public static func model(for kind: DatasetKind) -> Model { kind.definition.model }

  /// The entity a list of the dataset shows.
  public static func listEntity(for kind: DatasetKind) -> String { kind.definition.listEntity }

  /// The default request sectioned by state: sorted by state first, as sections require,
  /// then as the default request.
  public static func sectionedRequest(for kind: DatasetKind, batchSize: Int = 20) -> FetchRequest {
    kind.definition.sectionedRequest(batchSize: batchSize)
  }

  /// The tutorials' request: banks by `details.closeDate` descending (details prefetched, as
  /// a cell shows them), wells by `spudDate` descending.
  public static func defaultRequest(for kind: DatasetKind, batchSize: Int = 20) -> FetchRequest {
    kind.definition.defaultRequest(batchSize: batchSize)
  }
}
