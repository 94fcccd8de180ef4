/// The storage engines FetchBench measures. A new kind is a case here, its module, and its
/// line in `DatasetLocation.open`.
public enum StoreKind: String, Sendable, Codable, CaseIterable {
  case memory, sqlite, postgres
}
