import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

/// The sort selectors' collations on a SQLite connection: each compares through the model's
/// `StringCollation`, so SQLite orders as the memory store does. Registered on the store's
/// connection (GRDB) and on the raw connections of the floors (the C API): one comparison.
/// The store's connection also folds the `[c]`/`[d]` string operators' sides through it (the
/// floors bind no predicate).
extension SQLiteStore {
  /// On a GRDB connection. O(selectors).
  public static func addCollations(_ db: Database, _ collation: any StringCollation) {
    // The `[c]`/`[d]` string operators' folding (`SQLDialect.fold`): NULL stays NULL.
    db.add(
      function: DatabaseFunction(SQLDialect.foldFunction, argumentCount: 2, pure: true) { values in
        guard let s = String.fromDatabaseValue(values[0]), let n = Int.fromDatabaseValue(values[1]) else { return nil }
        return collation.fold(s, TextFold(rawValue: n))
      })
    // MATCHES: the memory store's matching, its expression compiled once per pattern seen.
    let expressions = LockedCache<String, TextMatch>()
    db.add(
      function: DatabaseFunction(SQLDialect.matchesFunction, argumentCount: 3, pure: true) { values in
        guard let s = String.fromDatabaseValue(values[0]), let p = String.fromDatabaseValue(values[1]),
          let n = Int.fromDatabaseValue(values[2])
        else { return nil }
        let match = expressions.value(for: "\(n) \(p)") {
          TextMatch(.matches, p, fold: TextFold(rawValue: n), collation: collation)
        }
        return try match.matches(s)
      })
    for (name, selector) in SortSelector.sqliteCollations {
      db.add(
        collation: DatabaseCollation(name) { a, b in
          let c = collation.compare(a, b, by: selector)
          return c < 0 ? .orderedAscending : c > 0 ? .orderedDescending : .orderedSame
        })
    }
  }

  /// On a raw connection (`sqlite3_open_v2`); the collation lives as long as the connection.
  /// O(selectors).
  public static func addCollations(raw db: OpaquePointer, _ collation: any StringCollation) {
    for (name, selector) in SortSelector.sqliteCollations {
      let box = Unmanaged.passRetained(RawCollation(collation: collation, selector: selector)).toOpaque()
      sqlite3_create_collation_v2(
        db, name, SQLITE_UTF8, box,
        { context, n1, p1, n2, p2 in
          let c = Unmanaged<RawCollation>.fromOpaque(context!).takeUnretainedValue()
          func text(_ p: UnsafeRawPointer?, _ n: Int32) -> String {
            guard let p, n > 0 else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: p, count: Int(n)), as: UTF8.self)
          }
          return Int32(c.collation.compare(text(p1, n1), text(p2, n2), by: c.selector).signum())
        },
        { context in Unmanaged<RawCollation>.fromOpaque(context!).release() })
    }
  }
}

/// What a raw connection's collation callback compares with.
private final class RawCollation {
  let collation: any StringCollation
  let selector: SortSelector
  init(collation: any StringCollation, selector: SortSelector) {
    (self.collation, self.selector) = (collation, selector)
  }
}

/// Values computed once per key, shared by a connection's function calls.
private final class LockedCache<Key: Hashable, Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [Key: Value] = [:]

  func value(for key: Key, _ make: () -> Value) -> Value {
    lock.lock()
    defer { lock.unlock() }
    if let known = values[key] { return known }
    let made = make()
    values[key] = made
    return made
  }
}
