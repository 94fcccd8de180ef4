import Foundation
import Synchronization

/// One writer at a time for a path FetchBench writes (a results folder, a history file, a
/// baseline, an export): an exclusive `flock(2)` on a hidden lock file beside it,
/// `.NAME.fetchbench-lock`, which holds the holder's PID so that a second command can name it.
///
/// The lock file is removed when the lock is released (and on an interrupt); a waiter that
/// then holds the removed file's lock sees that the path names another file and takes the
/// lock again, so a lock is never held on a file no one else can see. The kernel releases
/// the lock when its process ends, however it ends: a lock file left by a killed process is
/// free and is taken over. Within one process a path's lock is counted, so a command that
/// holds its output's lock can call code that takes it again.
public enum OutputLock {
  private struct Held {
    var fd: Int32
    var lockFile: String
    var count: Int
  }

  private static let held = Mutex<[String: Held]>([:])

  /// A claim on a path, released by `release()`.
  public struct Claim: Sendable {
    /// The path the lock is for, with its folders' symbolic links resolved.
    public let path: String
    /// Releases the claim; the lock is released with the process's last claim on the path.
    public func release() { OutputLock.release(path) }
  }

  /// Claims `path` for writing. Without `waiting`, a path another process holds is refused
  /// at once, naming its PID; with it, the call waits for the holder (`progress` says so).
  /// O(1) besides the wait.
  public static func claim(_ path: String, waiting: Bool = false, progress: ProgressLine? = nil) throws -> Claim {
    let key = canonical(path)
    if let claim = held.withLock({ h -> Claim? in
      guard h[key] != nil else { return nil }
      h[key]!.count += 1
      return Claim(path: key)
    }) {
      return claim
    }
    let lockFile = lockFilePath(for: key)
    try? FileManager.default.createDirectory(
      atPath: (lockFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    var said = false
    while true {
      let fd = open(lockFile, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
      guard fd >= 0 else {
        throw DatasetError.cannotWrite(
          path: path, reason: "its lock \(lockFile) cannot be opened (\(String(cString: strerror(errno))))")
      }
      if flock(fd, LOCK_EX | LOCK_NB) != 0 {
        guard errno == EWOULDBLOCK || errno == EINTR else {
          let reason = String(cString: strerror(errno))
          close(fd)
          throw DatasetError.cannotWrite(path: path, reason: "its lock cannot be taken (\(reason))")
        }
        guard waiting else {
          let holder = holderPID(fd)
          close(fd)
          throw DatasetError.cannotWrite(
            path: path,
            reason:
              """
              another FetchBench process\(holder.map { " (PID \($0))" } ?? "") is writing it; wait for it to end, or \
              name another output
              """
          )
        }
        if !said {
          progress?.note(
            "waiting for another FetchBench process\(holderPID(fd).map { " (PID \($0))" } ?? "") writing \(path)")
          said = true
        }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
      }
      // The holder before us may have removed the file we locked: lock the one that is there.
      guard sameFile(fd, lockFile) else {
        close(fd)
        continue
      }
      ftruncate(fd, 0)
      let pid = Array("\(getpid())\n".utf8)
      _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
      AtomicFile.register(lockFile)
      held.withLock { $0[key] = Held(fd: fd, lockFile: lockFile, count: 1) }
      return Claim(path: key)
    }
  }

  /// Claims a new output in `folder` (created when missing): `base`, or `base-2`, `base-3`, …
  /// the first name that no process holds and under which nothing exists, neither the path
  /// nor any of `siblings(path)`. Returns the name and the claim. O(names tried).
  public static func claimNewName(
    in folder: String, base: String, siblings: (String) -> [String] = { _ in [] }
  ) throws -> (name: String, claim: Claim) {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for n in 1...1000 {
      let name = n == 1 ? base : "\(base)-\(n)"
      let path = "\(folder)/\(name)"
      guard let claim = try? OutputLock.claim(path) else { continue }
      if !([path] + siblings(path)).contains(where: { DatasetFile.entry(at: $0) != .missing }) { return (name, claim) }
      claim.release()
    }
    throw DatasetError.cannotWrite(path: "\(folder)/\(base)", reason: "no free name beside it")
  }

  /// Runs `body` holding `path`'s lock (see `claim`). O(1) besides the wait and `body`.
  public static func with<T>(
    _ path: String, waiting: Bool = false, progress: ProgressLine? = nil, _ body: () throws -> T
  ) throws -> T {
    let claim = try claim(path, waiting: waiting, progress: progress)
    defer { claim.release() }
    return try body()
  }

  /// `.NAME.fetchbench-lock` beside `path`.
  static func lockFilePath(for path: String) -> String {
    let parent = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    return (parent.isEmpty ? "." : parent) + "/.\(name).fetchbench-lock"
  }

  /// `path` absolute, its folders' links resolved, and the last component resolved too when
  /// it is a link to something that exists: every spelling of one output takes one lock.
  static func canonical(_ path: String) -> String {
    let p = AtomicFile.normalized(path)
    if let real = realpath(p, nil) {
      defer { free(real) }
      return String(cString: real)
    }
    let parent = (p as NSString).deletingLastPathComponent
    guard let real = realpath(parent, nil) else { return p }
    defer { free(real) }
    return (String(cString: real) as NSString).appendingPathComponent((p as NSString).lastPathComponent)
  }

  private static func release(_ key: String) {
    held.withLock { h in
      guard var entry = h[key] else { return }
      entry.count -= 1
      if entry.count > 0 {
        h[key] = entry
        return
      }
      h[key] = nil
      // Removed while still locked: a waiter that then gets the lock sees it is gone.
      AtomicFile.discard(entry.lockFile)
      close(entry.fd)
    }
  }

  private static func sameFile(_ fd: Int32, _ path: String) -> Bool {
    var a = stat()
    var b = stat()
    guard fstat(fd, &a) == 0, lstat(path, &b) == 0 else { return false }
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino
  }

  private static func holderPID(_ fd: Int32) -> Int32? {
    var buffer = [UInt8](repeating: 0, count: 32)
    let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
    guard n > 0 else { return nil }
    return Int32(String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
  }
}
