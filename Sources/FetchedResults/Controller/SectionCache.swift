/// Where a controller keeps its section info from one `performFetch` to the next, across
/// launches: NSFetchedResultsController's `cacheName`. With a cache, a name and a store that
/// reports its `dataVersion`, `performFetch` of a sectioned list reads the section counts saved
/// for the same name, request and data version instead of asking the store (Core Data's plan
/// then issues no grouped count; the tuned plan's one statement becomes the ID query alone),
/// and saves them when it had to ask. A write to the store changes its data version, so the
/// next fetch asks again; counts that do not add up to the IDs fetched are asked again too.
public protocol SectionCache: AnyObject {
  /// The counts saved under `key`, nil when none are.
  func sections(for key: String) -> [SectionCount]?
  /// Saves `sections` under `key`, replacing what was there.
  func save(_ sections: [SectionCount], for key: String)
}

extension FetchedResultsController {
  /// The cache's key for `request`: the name, the request, the store's data version. Nil
  /// without a cache, a name or a version.
  func sectionCacheKey() -> String? {
    guard sectionCache != nil, let cacheName, let version = store.dataVersion else { return nil }
    return "\(cacheName)\n\(String(describing: fetchRequest))\n\(version)"
  }

  /// The saved counts of this request, when they are for the store's current data.
  func cachedSections() -> [SectionCount]? {
    guard let key = sectionCacheKey(), let counts = sectionCache?.sections(for: key) else { return nil }
    sectionCacheHits += 1
    return counts
  }

  /// Saves the counts the store gave, for the next `performFetch`.
  func saveSections(_ counts: [SectionCount]) {
    guard let key = sectionCacheKey() else { return }
    sectionCache?.save(counts, for: key)
  }
}
