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
    switch store {
    case .memory: try openMemory()
    case .sqlite: try openSQLite(plan: .tuned)
    case .sqliteCoreData: try openSQLite(plan: .coreData)
    case .postgres: try openPostgres()
    }
  }

  /// The rows loaded into the in-memory store: from a user's file or server schema, read in
  /// place, or from the dataset's file. O(rows).
  public func openMemory() throws -> MemoryStore {
    if let database { return try database.openMemory(model) }
    return try MemoryStore.load(from: SQLiteStore(path: try generatedFile(), model: model, mode: .immutable))
  }

  /// The dataset's SQLite file, or a user's read in place, issuing `plan`'s statements. O(1).
  public func openSQLite(plan: StatementPlan) throws -> SQLiteStore {
    let store = try database.map { try $0.openSQLite(model) } ?? SQLiteStore(path: try generatedFile(), model: model)
    store.plan = plan
    return store
  }

  /// The dataset in PostgreSQL: a user's server schema read in place; otherwise its tables
  /// (a user's file's too) copied into the server by COPY when the server does not hold them
  /// yet. O(rows) the first time, O(1) after.
  public func openPostgres() throws -> PostgresStore {
    if let store = try database?.openServer(model) { return store }
    // The server first: the SQLite file is needed only when the dataset must be loaded
    // (by COPY, seconds), and the loader says so then.
    let url = try PostgresLocation.url()
    try PostgresLoader.load(self, into: url)
    return try PostgresStore(url: url, model: model)
  }

  private var model: Model { DatasetModels.model(for: kind) }

  /// The generated dataset's file, checked readable; a missing one is an error that says how
  /// to make it. O(1).
  private func generatedFile() throws -> String {
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
    return sqlitePath
  }
}
