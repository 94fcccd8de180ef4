import Crypto
import Foundation
import Synchronization

/// Writing files so that a reader never sees half of one: write `NAME.partial`, then rename.
///
/// Temporary paths are registered so that an interrupt (SIGINT, SIGTERM) removes them before the
/// process exits.
public enum AtomicFile {
  private static let pending = Mutex<Set<String>>([])

  /// Writes `data` to `path` through a temporary file in the same folder.
  public static func write(_ data: Data, to path: String) throws {
    let tmp = temporaryPath(for: path)
    register(tmp)
    defer { discard(tmp) }
    do {
      try data.write(to: URL(fileURLWithPath: tmp))
    } catch {
      throw DatasetError.cannotWrite(path: path, reason: describe(error))
    }
    try commit(tmp, to: path)
  }

  /// The temporary name used for `path`.
  public static func temporaryPath(for path: String) -> String { path + ".partial" }

  /// Remembers `tmp` for removal on interrupt.
  public static func register(_ tmp: String) { _ = pending.withLock { $0.insert(tmp) } }

  /// Removes `tmp` (file or folder) if it still exists and forgets it.
  public static func discard(_ tmp: String) {
    _ = pending.withLock { $0.remove(tmp) }
    try? FileManager.default.removeItem(atPath: tmp)
  }

  /// Moves the finished `tmp` into place, replacing what was at `path`.
  public static func commit(_ tmp: String, to path: String) throws {
    let fm = FileManager.default
    var isDir: ObjCBool = false
    if fm.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
      // rename(2) cannot replace a non-empty folder.
      try? fm.removeItem(atPath: path)
    }
    guard rename(tmp, path) == 0 else {
      throw DatasetError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
    }
    _ = pending.withLock { $0.remove(tmp) }
  }

  /// Removes every registered temporary path; called on SIGINT/SIGTERM.
  public static func discardAll() {
    let paths = pending.withLock { p in
      defer { p.removeAll() }
      return p
    }
    for p in paths { try? FileManager.default.removeItem(atPath: p) }
  }

  static func describe(_ error: any Error) -> String {
    if let e = error as? CocoaError, let u = e.userInfo[NSUnderlyingErrorKey] as? NSError {
      return String(cString: strerror(Int32(u.code)))
    }
    return (error as NSError).localizedDescription
  }
}

enum SHA256Hex {
  static func of(_ text: String) -> String {
    SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
  }
}
