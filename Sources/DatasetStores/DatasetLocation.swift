import Catalog
import Datasets
import FetchedResults
import Foundation
import PostgresStore
import SQLQueries
import SQLiteStore
import Vocabulary

/// Which dataset file a command works on.
public struct DatasetLocation: Sendable {
  public var kind: DatasetKind
  public var rows: Int
  public var seed: UInt64
  public var directory: String
  /// Indexed columns (the file with `.idx-…` in its name).
  public var indexes: [String]
  /// The user's own database in place of a generated dataset file.
  public var database: UserDatabase? = nil

  public init(
    kind: DatasetKind, rows: Int = DatasetKind.defaultRows, seed: UInt64 = 1,
    directory: String = "datasets", indexes: [String] = []
  ) {
    self.kind = kind
    self.rows = rows
    self.seed = seed
    self.directory = directory
    self.indexes = indexes
  }

  public var sqlitePath: String {
    if let database { return database.path }
    return DatasetPaths.sqlite(in: directory, kind, rows: rows, seed: seed, indexes: indexes)
  }

  /// The file a reader of its own connection opens (`SQLITE_OPEN_URI`): a user's database
  /// immutable, or its private copy when a writer may be using it, so that nothing is created
  /// beside it; a generated dataset by its path. O(1), or O(file size) the first time a user's
  /// file is copied.
  public func readerURI() throws -> String {
    try database.map { try $0.readableURI() } ?? sqlitePath
  }

  /// Opens the dataset in a store of `store` kind. A missing file is an error that says how
  /// to make it.
  public func open(_ store: StoreKind) throws -> any Store {
    let model = DatasetModels.model(for: kind)
    // A user's file is read in place; PostgreSQL gets a copy of its tables, by COPY. A user's
    // server schema is read in place by PostgreSQL and the memory store.
    if let database, try database.server != nil {
      guard !store.isSQLite else { throw UserDatabaseError.serverNotSQLite(database.path) }
      return try database.open(model, memory: store == .memory)
    }
    if let database, store != .postgres { return try planned(database.open(model, memory: store == .memory), store) }
    switch store {
    case .postgres:
      // The server first: the SQLite file is needed only when the dataset must be loaded
      // (by COPY, seconds), and the loader says so then.
      let url = try PostgresLocation.url(nil)
      try PostgresLoader.load(self, into: url)
      return try PostgresStore(url: url, model: model)
    case .sqlite, .sqliteCoreData, .memory: break
    }
    guard try DatasetFile.checkReadable(sqlitePath) else {
      let index = indexes.map { " --index \($0)" }.joined()
      throw HarnessError.missingDataset(
        sqlitePath,
        hint:
          """
          fetchbench generate --dataset \(kind.rawValue) --rows \(rows) --seed \(seed) --datasets \(directory) \
          --format sqlite\(index)
          """
      )
    }
    return store.isSQLite
      ? try planned(SQLiteStore(path: sqlitePath, model: model), store)
      : try MemoryStore.load(from: SQLiteStore(path: sqlitePath, model: model, mode: .immutable))
  }

  /// `store` issuing the statements `kind` names: Core Data's for `sqliteCoreData`.
  func planned(_ store: any Store, _ kind: StoreKind) -> any Store {
    if kind == .sqliteCoreData { (store as? SQLiteStore)?.plan = .coreData }
    return store
  }
}
