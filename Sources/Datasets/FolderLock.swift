import Foundation

/// An exclusive lock on a datasets folder (`flock(2)` on the folder itself), held while a
/// process reads the manifest, merges its entries and renames its files into place: two
/// `generate` processes on one folder then neither lose each other's manifest entries nor
/// rename a file the other has not finished. The kernel releases it when the process ends,
/// however it ends.
///
/// The folder, not a lock file in it: nothing is added to the user's folder, and no lock file
/// can be removed under a waiting process.
public enum FolderLock {
  /// Runs `body` holding the folder's lock, waiting for another process that holds it (and
  /// saying so on `progress`). O(1) besides the wait and `body`.
  public static func withLock<T>(_ folder: String, progress: ProgressLine? = nil, _ body: () throws -> T) throws -> T {
    let path = folder
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw DatasetError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    if flock(fd, LOCK_EX | LOCK_NB) != 0 {
      progress?.note("waiting for another FetchBench process writing \(folder)")
      while flock(fd, LOCK_EX) != 0 {
        guard errno == EINTR else {
          throw DatasetError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
      }
    }
    defer { flock(fd, LOCK_UN) }
    return try body()
  }
}
