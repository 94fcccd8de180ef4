import FetchedResults
import PostgresStore
import SQLiteStore

/// The writers' stores, by kind: the raw writers and the durability settings reach beneath
/// the engine's `Store` to the store's own client.
enum WriterStores {
  case none
  /// One store under a lock, a view of it per writer.
  case memory([LockedStore])
  /// One connection that a serial writer (or each raw writer's connection of its own) commits through.
  case sqlite(SQLiteStore)
  /// A session per writer.
  case postgres([PostgresStore])

  /// Every writer's store as the engine uses it. O(writers).
  var stores: [any Store] {
    switch self {
    case .none: []
    case .memory(let stores): stores
    case .sqlite(let store): [store]
    case .postgres(let stores): stores
    }
  }
}
