import Collation
import FetchedResults

/// The datasets as the engine sees them, by kind: shorthands for `DatasetKind.definition`,
/// with Foundation's collation for sorts by a selector (`FoundationCollation.current`).
public enum DatasetModels {
  public static let banks = collated(BanksDataset.model)
  public static let wells = collated(WellsDataset.model)

  public static func model(for kind: DatasetKind) -> Model { collated(kind.definition.model) }

  /// `model` comparing strings under sort selectors as Foundation does, in this process's
  /// locale (`FoundationCollation.current`).
  public static func collated(_ model: Model) -> Model {
    var m = model
    m.collation = FoundationCollation.current
    return m
  }

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
