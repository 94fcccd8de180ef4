import Catalog
import Datasets
import Foundation
import GRDB

/// A private copy of a dataset's SQLite file for a case that writes (`diff`, `load`, the
/// gate's change tracking), so that writes never touch the dataset other cases read. It lives
/// in a new folder under the temporary directory, registered with `AtomicFile` so that an
/// interrupt removes it too, and is removed by `remove()` or when released.
public final class SQLiteScratch: Sendable {
  /// The copy's path (`…/db.sqlite`).
  public let path: String
  private let folder: String

  /// Copies `location`'s file after checking it as the store would open it. O(file size).
  public init(_ location: DatasetLocation, purpose: String) throws {
    _ = try location.open(.sqlite)  // a missing or foreign file fails here, with the store's words
    folder = try AtomicFile.createTemporaryFolder(for: NSTemporaryDirectory() + "fetchbench-\(purpose)")
    path = folder + "/db.sqlite"
    do {
      try FileManager.default.copyItem(atPath: location.sqlitePath, toPath: path)
    } catch {
      AtomicFile.discard(folder)
      throw DatasetError.cannotWrite(path: path, reason: AtomicFile.describe(error))
    }
  }

  /// Removes the copy (and its `-wal`/`-shm`); every store on it must be closed first.
  /// Idempotent.
  public func remove() { AtomicFile.discard(folder) }

  deinit { remove() }
}

extension SQLiteScratch {
  /// A copy of `location`'s file with `index` built in it: the index advice's variant of a
  /// user's database, whose own file is never written. O(file size + index build).
  public static func indexed(_ location: DatasetLocation, _ index: IndexSpec) throws -> SQLiteScratch {
    let scratch = try SQLiteScratch(location, purpose: "index")
    do {
      let queue = try DatabaseQueue(path: scratch.path)
      try queue.write { db in try db.execute(sql: index.createStatement) }
      try queue.close()
    } catch {
      scratch.remove()
      throw DatasetError.cannotWrite(path: scratch.path, reason: "\(index.createStatement): \(error)")
    }
    return scratch
  }
}
