import Catalog
import DatasetStores
import Datasets
import FetchedResults
import GRDBSQLite
import HarnessSupport
import ResultModel
import SQLiteStore

/// The physical limit the engine is held against: the same SQL the SQLite store issues, run
/// through the raw SQLite C API with nothing on top.
enum Floor {
  static func measure(_ spec: CaseSpec) throws -> CaseResult {
    let model = DatasetModels.model(for: spec.dataset)
    let request = try DatasetModels.defaultRequest(for: spec.dataset, batchSize: spec.batchSize).resolve(in: model)
    let raw = try RawSQLite(spec.location, request: request, batchSize: spec.batchSize)
    let times = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
      let (tIDs, all) = Sampler.wall { raw.ids() }
      let tFull = Sampler.wall { raw.fullRows() }.nanos
      let tScroll = try Sampler.wall { try raw.scroll(all) }.nanos
      return (ids: Double(tIDs) / 1e6, full: Double(tFull) / 1e6, scroll: Double(tScroll) / 1e6)
    }
    return CaseResult(
      spec: spec,
      measurements: [
        Measurement(.floorIDs, Summary(times.map(\.ids))),
        Measurement(.floorFull, Summary(times.map(\.full))),
        Measurement(.floorScroll, Summary(times.map(\.scroll))),
      ], error: nil)
  }
}
