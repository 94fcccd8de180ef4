import PostgresStore
import Vocabulary

extension StoreKind {
  /// Throws `PostgresStoreError.notBuilt` for PostgreSQL in a build without the `PostgreSQL`
  /// trait. O(1).
  public func checkBuilt() throws {
    if self == .postgres && !PostgresStore.isBuilt { throw PostgresStoreError.notBuilt }
  }
}
