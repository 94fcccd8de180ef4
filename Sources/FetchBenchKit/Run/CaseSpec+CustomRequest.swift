import Catalog
import FetchedResults
import ResultModel

extension CaseSpec {
  /// The scenario's request as the user gave it (`--sort`, `--section`, `--where`) at
  /// `batchSize`; nil for the dataset's own list.
  func customRequest(_ scenario: Scenario, batchSize: Int) throws -> FetchRequest? {
    try request.map { try $0.apply(to: scenario.request(dataset, batchSize: batchSize), of: dataset) }
  }
}
