import Catalog
import FetchedResults
import PostgresStore
import SQLQueries
import SQLiteStore
import Vocabulary

/// A store of `kind` over a private copy of a dataset, for a case that writes (`diff`, the
/// gate's change tracking): SQLite on an `SQLiteScratch` file, PostgreSQL on a
/// `PostgresScratch` database, the in-memory store on its own load of the file. `close()`
/// closes the store and removes the copy; so does releasing it.
public final class ScratchStore {
  public let store: any Store
  private var release: (() -> Void)?

  /// O(dataset size): the copy is made, or loaded, here.
  public init(_ location: DatasetLocation, _ kind: StoreKind, purpose: String) throws {
    let model = DatasetModels.model(for: location.kind)
    switch kind {
    case .memory:
      store = try location.open(.memory)
    case .sqlite, .sqliteCoreData:
      let scratch = try SQLiteScratch(location, purpose: purpose)
      let sqlite = try SQLiteStore(path: scratch.path, model: model)
      if kind == .sqliteCoreData { sqlite.plan = .coreData }
      sqlite.deleteRules = location.database?.deleteRules ?? []
      store = sqlite
      release = { scratch.remove() }
    case .postgres:
      let scratch = try PostgresScratch(location, purpose: purpose)
      let postgres = try PostgresStore(url: scratch.url, model: model)
      store = postgres
      release = {
        postgres.close()
        scratch.drop()
      }
    }
  }

  /// Closes the store and removes its copy. Idempotent.
  public func close() {
    release?()
    release = nil
  }

  deinit { close() }
}
