import Catalog
import FetchedResults
import ResultModel
import Vocabulary

extension CaseSpec {
  /// The scenario's request as the user gave it (`--sort`, `--section`, `--where`) at
  /// `batchSize`; nil for the dataset's own list.
  func customRequest(_ scenario: Scenario, batchSize: Int) throws -> FetchRequest? {
    try request.map { try $0.apply(to: scenario.request(dataset, batchSize: batchSize), of: dataset) }
  }
}

extension CaseSpec {
  /// What the list's cells show: the user's `--cell`, or the dataset's cell.
  var cellKeyPaths: [String] { request?.cells ?? dataset.definition.cellKeyPaths }

  /// The cells scenarios' reading: the cell's key paths with their relationships faulted, or
  /// with `prefetched`, prefetched. O(key paths).
  func cells(prefetched: Bool = false) -> Scenario.CellReading {
    Scenario.CellReading(cellKeyPaths, prefetched: prefetched)
  }
}
