extension MemoryStore {
  /// A memory store holding every row of `source`, for its model: the dataset an app has
  /// loaded before its list shows. O(rows); one full fetch per entity.
  public static func load(from source: any Store) throws -> MemoryStore {
    let store = MemoryStore(model: source.model)
    for entity in source.model.entities {
      let request = try FetchRequest(entityName: entity.name).resolve(in: source.model)
      for object in try source.fetchObjects(request) {
        try store.load(entity: entity.name, id: object.id, values: object.values)
      }
      for r in entity.toMany {
        guard case .joinTable(let join) = r.link, store.joinRows[join] == nil else { continue }
        store.joinRows[join] = try source.fetchJoinRows(join)
      }
    }
    return store
  }
}
