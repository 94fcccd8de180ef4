import Datasets
import Foundation
import GRDB
import SQLiteStore
import Synchronization
import Vocabulary

/// Reading a user's SQLite file as SQLite reads it, without writing beside it.
///
/// A file that no writer may be using (no `-wal` or `-journal` beside it, not in WAL mode) is
/// read in place with `immutable=1`: no lock, no file created. Any other file is copied, with
/// its `-wal` or hot `-journal`, into a private folder under the temporary directory; the copy
/// is opened once read-write there, which folds the log into it as SQLite would, and is then
/// read `immutable=1`. Opening the user's file itself read-only would create `-wal`/`-shm`
/// beside it, and reading the main file alone would miss the rows still in its log. One copy
/// per file and process, removed when the process ends (or at the next interrupt).
extension UserDatabase {
  /// The file to read, always `immutable=1`: the user's own, or its private copy. O(1) for
  /// a file read in place; O(file size) the first time a file is copied.
  public func readablePath() throws -> String {
    needsSnapshot ? try Snapshots.copy(of: path) : path
  }

  /// `readablePath()` as the URI that opens it immutable.
  public func readableURI() throws -> String { SQLiteStore.immutableURI(try readablePath()) }

  /// Whether a writer may be using the file: a `-wal` or `-journal` beside it, or a header in
  /// WAL mode (bytes 18 and 19 are 2). O(1).
  var needsSnapshot: Bool {
    if ["-wal", "-journal"].contains(where: { FileManager.default.fileExists(atPath: path + $0) }) { return true }
    guard DatasetFile.entry(at: path) == .file, let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = Array((try? handle.read(upToCount: 20)) ?? Data())
    return head.count == 20 && (head[18] == 2 || head[19] == 2)
  }
}

/// The process's copies of users' files, by path.
enum Snapshots {
  private static let copies = Mutex<[String: String]>([:])
  private static let exitHook: Void = { atexit { AtomicFile.discardAll() } }()

  static func copy(of path: String) throws -> String {
    try copies.withLock { copies in
      if let made = copies[path] { return made }
      _ = exitHook
      // A copy taken while a writer holds the file or a checkpoint runs could be torn.
      if WriterLocks.held(on: path) { throw UserDatabaseError.locked(path) }
      let folder = try AtomicFile.createTemporaryFolder(for: NSTemporaryDirectory() + "fetchbench-snapshot")
      let copy = folder + "/db.sqlite"
      do {
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        for suffix in ["-wal", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
          try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        // Replays the log into the copy, then leaves it a plain rollback-journal file.
        let queue = try DatabaseQueue(path: copy)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
        try queue.close()
      } catch let error as DatabaseError {
        AtomicFile.discard(folder)
        throw UserDatabaseError.unreadable(
          path, "its copy with its log cannot be read (\(error.message ?? "\(error)"))")
      } catch {
        AtomicFile.discard(folder)
        throw DatasetError.cannotWrite(
          path: copy, reason: AtomicFile.describe(error) + " (a private copy of \(path) with its log)")
      }
      copies[path] = copy
      return copy
    }
  }
}

/// Whether another process writes a SQLite file now, read from the POSIX locks SQLite takes
/// (never taking one): a RESERVED, PENDING or EXCLUSIVE lock on the main file's lock bytes
/// (a rollback-journal writer, or WAL's exclusive locking mode), or the checkpoint lock in
/// its `-shm`. Readers' shared locks do not count.
enum WriterLocks {
  /// SQLite's lock bytes: PENDING_BYTE at 1 GiB, then RESERVED and the SHARED range.
  static let pendingByte: off_t = 0x4000_0000
  /// The checkpointer's lock in the `-shm` file (WAL_CKPT_LOCK, at byte 120 + 1).
  static let checkpointByte: off_t = 121

  static func held(on path: String) -> Bool {
    conflicts(path, start: pendingByte, length: 512) || conflicts(path + "-shm", start: checkpointByte, length: 1)
  }

  /// Whether a read lock on the range would conflict with another process's write lock.
  static func conflicts(_ path: String, start: off_t, length: off_t) -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var lock = flock()
    lock.l_type = Int16(F_RDLCK)
    lock.l_whence = Int16(SEEK_SET)
    lock.l_start = start
    lock.l_len = length
    guard fcntl(fd, F_GETLK, &lock) == 0 else { return false }
    return lock.l_type != Int16(F_UNLCK)
  }
}
