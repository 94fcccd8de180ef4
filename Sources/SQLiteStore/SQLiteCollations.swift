import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

/// The sort selectors' collations and the string operators' functions on a SQLite connection:
/// each compares or folds through the model's `StringCollation`, so SQLite orders and matches
/// as the memory store does. Registered on the store's connection (GRDB) and on the raw
/// connections of the floors, the index advice and the gate (the C API): the same functions,
/// so any statement the store runs can run on either.
extension SQLiteStore {
  /// On a GRDB connection. O(selectors).
  public static func addCollations(_ db: Database, _ collation: any StringCollation) {
    let functions = TextFunctions(collation)
    db.add(
      function: DatabaseFunction(SQLDialect.foldFunction, argumentCount: 2, pure: true) { values in
        guard let s = String.fromDatabaseValue(values[0]), let n = Int.fromDatabaseValue(values[1]) else { return nil }
        return functions.fold(s, n)
      })
    db.add(
      function: DatabaseFunction(SQLDialect.matchesFunction, argumentCount: 3, pure: true) { values in
        guard let s = String.fromDatabaseValue(values[0]), let p = String.fromDatabaseValue(values[1]),
          let n = Int.fromDatabaseValue(values[2])
        else { return nil }
        return try functions.matches(s, p, n)
      })
    for (name, selector) in SortSelector.sqliteCollations {
      db.add(
        collation: DatabaseCollation(name) { a, b in
          let c = collation.compare(a, b, by: selector)
          return c < 0 ? .orderedAscending : c > 0 ? .orderedDescending : .orderedSame
        })
    }
  }

  /// On a raw connection (`sqlite3_open_v2`); collations and functions live as long as the
  /// connection. O(selectors).
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
    addFunctions(raw: db, TextFunctions(collation))
  }

  /// `fetchbench_fold` and `fetchbench_matches` through the C API, as GRDB registers them:
  /// deterministic, NULL for a NULL argument, an expression's failure the statement's error.
  private static func addFunctions(raw db: OpaquePointer, _ functions: TextFunctions) {
    let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
    let fold = Unmanaged.passRetained(functions).toOpaque()
    sqlite3_create_function_v2(
      db, SQLDialect.foldFunction, 2, flags, fold,
      { context, _, argv in
        let f = Unmanaged<TextFunctions>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
        guard let s = RawArgument.text(argv, 0), let n = RawArgument.integer(argv, 1) else {
          return sqlite3_result_null(context)
        }
        RawArgument.result(context, f.fold(s, n))
      }, nil, nil,
      { box in Unmanaged<TextFunctions>.fromOpaque(box!).release() })
    let matches = Unmanaged.passRetained(functions).toOpaque()
    sqlite3_create_function_v2(
      db, SQLDialect.matchesFunction, 3, flags, matches,
      { context, _, argv in
        let f = Unmanaged<TextFunctions>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
        guard let s = RawArgument.text(argv, 0), let p = RawArgument.text(argv, 1),
          let n = RawArgument.integer(argv, 2)
        else { return sqlite3_result_null(context) }
        do { sqlite3_result_int(context, try f.matches(s, p, n) ? 1 : 0) } catch {
          sqlite3_result_error(context, "\(error)", -1)
        }
      }, nil, nil,
      { box in Unmanaged<TextFunctions>.fromOpaque(box!).release() })
  }
}

/// The string operators' functions, written once for both kinds of connection: `[c]`/`[d]`
/// folding (`SQLDialect.fold`) and MATCHES, its expression compiled once per pattern seen.
private final class TextFunctions: @unchecked Sendable {
  let collation: any StringCollation
  private let expressions = LockedCache<String, TextMatch>()

  init(_ collation: any StringCollation) { self.collation = collation }

  /// O(length of `s`).
  func fold(_ s: String, _ fold: Int) -> String { collation.fold(s, TextFold(rawValue: fold)) }

  /// The expression's cost on `s`, bounded by the collation's time limit.
  func matches(_ s: String, _ pattern: String, _ fold: Int) throws -> Bool {
    let match = expressions.value(for: "\(fold) \(pattern)") {
      TextMatch(.matches, pattern, fold: TextFold(rawValue: fold), collation: collation)
    }
    return try match.matches(s)
  }
}

/// A raw function's arguments and result.
private enum RawArgument {
  static func text(_ argv: UnsafeMutablePointer<OpaquePointer?>?, _ i: Int) -> String? {
    guard let value = argv?[i], sqlite3_value_type(value) != SQLITE_NULL, let p = sqlite3_value_text(value) else {
      return nil
    }
    return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
  }

  static func integer(_ argv: UnsafeMutablePointer<OpaquePointer?>?, _ i: Int) -> Int? {
    guard let value = argv?[i], sqlite3_value_type(value) != SQLITE_NULL else { return nil }
    return Int(sqlite3_value_int64(value))
  }

  /// The text copied by SQLite before the call returns (`SQLITE_TRANSIENT`).
  static func result(_ context: OpaquePointer?, _ s: String) {
    let bytes = Int32(s.utf8.count)  // the whole text, a NUL inside it too
    s.withCString { sqlite3_result_text(context, $0, bytes, SQLiteStore.transient) }
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
