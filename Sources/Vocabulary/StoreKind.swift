/// The storage engines FetchBench measures. A new kind is a case here, its module, and its
/// line in `DatasetLocation.open`.
public enum StoreKind: String, Sendable, Codable, CaseIterable {
  case memory, sqlite
  /// SQLite issuing Core Data's statements (`StatementPlan.coreData`) rather than FetchBench's.
  case sqliteCoreData = "sqlite-coredata"
  case postgres
}

extension StoreKind {
  /// The store's name in reports' prose and tables.
  public var displayName: String {
    switch self {
    case .memory: "in-memory store"
    case .sqlite: "SQLite, tuned statements"
    case .postgres: "PostgreSQL"
    case .sqliteCoreData: "SQLite, Core Data's statements"
    }
  }

  /// The SQLite file's store, whichever statements it issues.
  public var isSQLite: Bool { self == .sqlite || self == .sqliteCoreData }
}
