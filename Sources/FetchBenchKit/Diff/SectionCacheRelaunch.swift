import DatasetStores
import FetchedResults
import HarnessSupport
import ResultModel
import Vocabulary

/// A relaunch after a save, with NSFetchedResultsController's `cacheName`: the section cache
/// the last launch saved no longer matches the store's data version, so `performFetch`
/// counts the sections again and saves them; a second relaunch finds them valid. Both
/// timed; a cache that survives a save, or is not used on the second open, is an error.
struct SectionCacheRelaunch {
  let afterSaveMs: Double
  let cachedMs: Double

  init(_ request: FetchRequest, store: any Store) throws {
    func open() throws -> (ms: Double, hits: Int) {
      let controller = FetchedResultsController(fetchRequest: request, store: store)
      controller.sectionCache = Scenario.sectionCache
      controller.cacheName = "diff"
      let (nanos, _) = try Sampler.wall { try controller.performFetch() }
      return (Double(nanos) / 1e6, controller.sectionCacheHits)
    }
    let afterSave = try open()
    guard afterSave.hits == 0 else { throw MeasurementFault.sectionCacheUsedAfterSave }
    let cached = try open()
    guard cached.hits == 1 else {
      throw MeasurementFault.sectionCacheNotUsed
    }
    (afterSaveMs, cachedMs) = (afterSave.ms, cached.ms)
  }
}
