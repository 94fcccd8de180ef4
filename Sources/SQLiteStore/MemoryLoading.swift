import FetchedResults
import GRDB

extension MemoryStore {
  /// A memory store holding every row of the SQLite file at `path`, for `model`.
  /// O(rows); one query per entity.
  public static func load(fromSQLite path: String, model: Model) throws -> MemoryStore {
    // Immutable: the load reads every row once and leaves nothing beside the file.
    let source = try SQLiteStore(path: path, model: model, mode: .immutable)
    let store = MemoryStore(model: model)
    for entity in model.entities {
      let request = try FetchRequest(entityName: entity.name).resolve(in: model)
      for object in try source.fetchObjects(request) {
        try store.load(entity: entity.name, id: object.id, values: object.values)
      }
    }
    return store
  }
}
