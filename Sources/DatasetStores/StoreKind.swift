/// The storage engines FetchBench measures. A new kind is a case here, its module, and its
/// line in `DatasetLocation.open`.
public enum StoreKind: String, Sendable, Codable, CaseIterable {
  case memory, sqlite, postgres
}

extension StoreKind {
  /// The store's name in reports' prose and tables.
  public var displayName: String {
    switch self {
    case .memory: "in-memory store"
    case .sqlite: "SQLite"
    case .postgres: "PostgreSQL"
    }
  }
}
