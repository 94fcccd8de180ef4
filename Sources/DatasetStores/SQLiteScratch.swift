import Catalog
import Datasets
import FetchedResults
import Foundation
import GRDB
import SQLiteStore
import Vocabulary

/// A private copy of a dataset's SQLite file for a case that writes (`diff`, `load`, the
/// gate's change tracking), so that writes never touch the dataset other cases read. It lives
/// in a new folder under the temporary directory, registered with `AtomicFile` so that an
/// interrupt removes it too, and is removed by `remove()` or when released.
public final class SQLiteScratch: Sendable {
  /// The copy's path (`…/db.sqlite`).
  public let path: String
  private let folder: String

  /// Copies `location`'s file after checking it as the store would open it; a user's file is
  /// copied without its triggers (`withoutTriggers`). O(file size).
  public convenience init(_ location: DatasetLocation, purpose: String) throws {
    _ = try location.open(.sqlite)  // a missing or foreign file fails here, with the store's words
    // A user's file as SQLite reads it, its log folded in; never the main file alone.
    try self.init(copying: try location.database?.readablePath() ?? location.sqlitePath, purpose: purpose)
    if location.database != nil { try withoutTriggers() }
  }

  /// Drops the copy's triggers. A trigger's own writes reach no store's change report (nor
  /// Core Data's, which tracks its context's changes), and one that refuses a write (`RAISE`)
  /// would fail the case: the copy's writes are FetchBench's alone, the same on every store.
  /// `describe --db` names the triggers a copy runs without. O(triggers).
  func withoutTriggers() throws {
    do {
      try DatabaseQueue(path: path).write { db in
        for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'") {
          try db.makeStatement(sql: "DROP TRIGGER \(name.sqlName)").execute()
        }
      }
    } catch {
      remove()
      throw DatasetError.cannotWrite(path: path, reason: AtomicFile.describe(error))
    }
  }

  /// Copies the SQLite file at `source`, which the caller has checked. O(file size).
  public convenience init(copying source: String, purpose: String) throws {
    try self.init(purpose: purpose)
    do {
      try FileManager.default.copyItem(atPath: source, toPath: path)
    } catch {
      AtomicFile.discard(folder)
      throw DatasetError.cannotWrite(path: path, reason: AtomicFile.describe(error))
    }
  }

  /// An empty folder for a new file at `path`, which the caller writes.
  init(purpose: String) throws {
    folder = try AtomicFile.createTemporaryFolder(for: NSTemporaryDirectory() + "fetchbench-\(purpose)")
    path = folder + "/db.sqlite"
  }

  /// Removes the copy (and its `-wal`/`-shm`); every store on it must be closed first.
  /// Idempotent.
  public func remove() { AtomicFile.discard(folder) }

  deinit { remove() }
}

extension SQLiteScratch {
  /// A copy of a user's database with `index` built in it: the index advice's variant of it,
  /// whose own file is never written. Every table is created as the file declares it, but
  /// only the list's table and those its to-one relationships reach get their rows (with
  /// Core Data's `Z_` bookkeeping tables): a large file's unrelated tables are not copied.
  /// Virtual tables (full-text search) and their shadow tables are left out: no list is one,
  /// and their module may not exist here.
  /// Read through SQLite from the file (its WAL included), not copied byte for byte.
  /// O(rows of the tables involved + index build).
  public static func indexed(_ location: DatasetLocation, _ index: IndexSpec) throws -> SQLiteScratch {
    guard let database = location.database else {
      throw DatasetError.cannotWrite(path: location.sqlitePath, reason: "not a user's database")
    }
    let scratch = try SQLiteScratch(purpose: "index")
    let source = try database.readableURI()
    let involved = location.kind.listTables
    var statement = ""
    do {
      let queue = try DatabaseQueue(path: scratch.path)
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "ATTACH DATABASE ? AS src", arguments: [source])
        try db.inTransaction {
          let objects = try Row.fetchAll(
            db,
            sql: """
              SELECT type, name, tbl_name, sql FROM src.sqlite_master
              WHERE type IN ('table', 'index') AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
                AND tbl_name NOT IN (SELECT name FROM pragma_table_list WHERE schema = 'src' AND type IN ('virtual', \
                'shadow'))
              ORDER BY type = 'index', rowid
              """)
          for object in objects {
            let (type, name, table, sql): (String, String, String, String) = (
              object[0], object[1], object[2], object[3]
            )
            statement = sql
            try db.makeStatement(sql: sql).execute()
            if type == "table" && (involved.contains(name.lowercased()) || name.hasPrefix("Z_")) {
              statement = "INSERT INTO main.\(name.sqlName) SELECT * FROM src.\(table.sqlName)"
              try db.makeStatement(sql: statement).execute()
            }
          }
          statement = index.createStatement
          try db.makeStatement(sql: statement).execute()
          return .commit
        }
        try db.execute(sql: "DETACH DATABASE src")
      }
      try queue.close()
    } catch {
      scratch.remove()
      throw DatasetError.cannotWrite(path: scratch.path, reason: "\(statement): \(error)")
    }
    return scratch
  }
}
