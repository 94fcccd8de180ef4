import Foundation
import GRDB
import Synchronization

/// Writing files so that a reader never sees half of one: write a temporary sibling, then
/// rename.
///
/// Each temporary name is new (`NAME.partial-PID-N`) and created exclusively, so that nothing
/// of the user's (a `NAME.partial` of their own) and nothing of another FetchBench process
/// writing the same name is ever opened, replaced or removed. Temporary paths are registered
/// so that an interrupt (SIGINT, SIGTERM, SIGHUP) removes them before the process exits.
public enum AtomicFile {
  private static let pending = Mutex<Set<String>>([])
  private static let counter = Mutex(0)
  /// The folders this process has swept of dead processes' temporaries.
  private static let swept = Mutex<Set<String>>([])

  /// Writes `data` to `path` through a temporary file in the same folder. A symbolic link at
  /// `path` is followed (its target is written, the link stays), a link to nothing is
  /// refused, and a file that is replaced keeps its permissions.
  public static func write(_ data: Data, to path: String) throws {
    let target = try followLink(path)
    var st = stat()
    let mode = stat(target, &st) == 0 ? st.st_mode & 0o7777 : nil
    let tmp = try temporaryFile(holding: data, for: target, shownAs: path)
    defer { discard(tmp) }
    if let mode { chmod(tmp, mode) }
    try commit(tmp, to: target)
  }

  /// Writes `data` to a new file at `path`: something already there (a dangling link too),
  /// or appearing while it is written, is left as it is and refused. O(data).
  public static func writeNew(_ data: Data, to path: String) throws {
    try checkNewFile(path)
    let tmp = try temporaryFile(holding: data, for: path, shownAs: path)
    defer { discard(tmp) }
    try commitNew(tmp, to: path)
  }

  /// A new temporary file for `path` holding `data`; a failure removes it and names `shown`.
  private static func temporaryFile(holding data: Data, for path: String, shownAs shown: String) throws -> String {
    let tmp = try createTemporaryFile(for: path)
    do {
      try data.write(to: URL(fileURLWithPath: tmp))
    } catch {
      discard(tmp)
      throw DatasetError.cannotWrite(path: shown, reason: describe(error))
    }
    return tmp
  }

  /// `path`, or the file a symbolic link at `path` leads to; a link to nothing is refused, so
  /// that writing never replaces a link by a file. O(links).
  public static func followLink(_ path: String) throws -> String {
    guard DatasetFile.isSymbolicLink(path) else { return path }
    guard let real = realpath(path, nil) else {
      throw DatasetError.cannotWrite(
        path: path,
        reason:
          "it is a symbolic link to nothing, and FetchBench does not replace a link; name a file, or create its target")
    }
    defer { free(real) }
    return String(cString: real)
  }

  /// A temporary name for `path` that no other writer uses: `path.partial-PID-N`.
  public static func temporaryPath(for path: String) -> String {
    let n = counter.withLock { n in
      n += 1
      return n
    }
    return "\(path).partial-\(getpid())-\(n)"
  }

  /// Creates an empty file at a new temporary name for `path` (O_EXCL: never one that exists)
  /// and registers it. O(1).
  public static func createTemporaryFile(for path: String) throws -> String {
    try createTemporary(for: path) { tmp in
      let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0o644)
      guard fd >= 0 else { return errno }
      close(fd)
      return 0
    }
  }

  /// Creates an empty folder at a new temporary name for `path` and registers it. O(1).
  public static func createTemporaryFolder(for path: String) throws -> String {
    try createTemporary(for: path) { mkdir($0, 0o755) == 0 ? 0 : errno }
  }

  private static func createTemporary(for path: String, _ create: (String) -> Int32) throws -> String {
    sweepLeftovers(in: URL(fileURLWithPath: normalized(path)).deletingLastPathComponent().path)
    for _ in 0..<100 {
      let tmp = temporaryPath(for: path)
      register(tmp)
      let error = create(tmp)
      if error == 0 { return tmp }
      _ = pending.withLock { $0.remove(tmp) }
      guard error == EEXIST else {
        throw DatasetError.cannotWrite(path: path, reason: String(cString: strerror(error)))
      }
    }
    throw DatasetError.cannotWrite(path: path, reason: "no free temporary name beside it")
  }

  /// Checks, before any work, that a new file can be written at `path`: nothing is there (not
  /// even a dangling symbolic link), and its folder exists and is writable. O(1).
  public static func checkNewFile(_ path: String) throws {
    var st = stat()
    if lstat(path, &st) == 0 {
      throw DatasetError.cannotWrite(
        path: path, reason: "something is already there, and FetchBench does not replace it; name a new file")
    }
    let parent = (normalized(path) as NSString).deletingLastPathComponent
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDir), isDir.boolValue else {
      throw DatasetError.cannotWrite(path: path, reason: "its folder \(parent) does not exist")
    }
    guard access(parent, W_OK) == 0 else {
      throw DatasetError.cannotWrite(
        path: path, reason: "\(parent) is not writable (\(String(cString: strerror(errno))))")
    }
  }

  /// Removes, once per folder a process, what FetchBench processes that no longer run left in
  /// `folder`: temporaries (`NAME.partial-PID-N`, with SQLite's `-journal`, `-wal` and `-shm`
  /// beside one) of a process killed before it could remove them. A temporary of a running
  /// process, of another user's (`kill` is not permitted) and any other name are left alone.
  /// O(entries).
  public static func sweepLeftovers(in folder: String) {
    guard swept.withLock({ $0.insert(folder).inserted }),
      let names = try? FileManager.default.contentsOfDirectory(atPath: folder)
    else { return }
    for name in names {
      guard let pid = leftoverPID(name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
      let path = folder + "/" + name
      if !DatasetFile.isSymbolicLink(path) { try? FileManager.default.removeItem(atPath: path) }
    }
  }

  /// The process ID in a temporary's name (`temporaryPath(for:)`, or SQLite's file beside
  /// one); nil for any other name. O(length of `name`).
  static func leftoverPID(_ name: String) -> Int32? {
    guard let marker = name.range(of: ".partial-", options: .backwards) else { return nil }
    var rest = name[marker.upperBound...]
    if let suffix = ["-journal", "-wal", "-shm"].first(where: { rest.hasSuffix($0) }) {
      rest = rest.dropLast(suffix.count)
    }
    let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, let pid = Int32(parts[0]), pid > 0, UInt64(parts[1]) != nil else { return nil }
    return pid
  }

  /// Remembers `tmp` for removal on interrupt.
  public static func register(_ tmp: String) { _ = pending.withLock { $0.insert(tmp) } }

  /// Removes `tmp` (file or folder) if it still exists and forgets it, with the journal, log
  /// and shared-memory files SQLite keeps beside a temporary database (the name is
  /// FetchBench's own, so they are too).
  public static func discard(_ tmp: String) {
    _ = pending.withLock { $0.remove(tmp) }
    remove(tmp)
  }

  private static func remove(_ tmp: String) {
    try? FileManager.default.removeItem(atPath: tmp)
    for suffix in sqliteSiblings { unlink(tmp + suffix) }
  }

  private static let sqliteSiblings = ["-journal", "-wal", "-shm"]

  /// `path` as an absolute path without a trailing slash, so that `path + ".partial"` is a
  /// sibling of it (`--out dir/` and `--out .` would otherwise put it inside or name `..`).
  public static func normalized(_ path: String) -> String {
    var p = URL(fileURLWithPath: path).standardizedFileURL.path
    while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
    return p
  }

  /// Entries of the folder at `path` that are not among `names`, sorted.
  static func foreignEntries(in path: String, names: Set<String>) -> [String] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return entries.filter { !names.contains($0) }.sorted()
  }

  static func foreignError(_ path: String, _ foreign: [String]) -> DatasetError {
    let shown = foreign.prefix(3).joined(separator: ", ") + (foreign.count > 3 ? ", …" : "")
    return .cannotWrite(
      path: path,
      reason:
        """
        the folder holds files FetchBench did not write (\(shown)); name a new or empty folder, or an earlier output \
        of this command
        """
    )
  }

  /// Moves the finished `tmp` into place. A file at `path` is replaced (rename(2) is atomic).
  /// A folder at `path` is replaced only when every entry it holds is also an entry of `tmp`
  /// (an earlier output of the same kind): it is renamed aside, `tmp` renamed in, and the old
  /// one removed; a folder with anything else is left untouched and the commit fails.
  public static func commit(_ tmp: String, to path: String) throws {
    let fm = FileManager.default
    var isDir: ObjCBool = false
    var aside: String?
    if fm.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
      let names = Set((try? fm.contentsOfDirectory(atPath: tmp)) ?? [])
      let foreign = foreignEntries(in: path, names: names)
      guard foreign.isEmpty else { throw foreignError(path, foreign) }
      // rename(2) cannot replace a non-empty folder.
      let old = path + ".replaced-\(getpid())"
      guard rename(path, old) == 0 else {
        throw DatasetError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
      }
      aside = old
    }
    guard rename(tmp, path) == 0 else {
      let reason = String(cString: strerror(errno))
      if let aside { _ = rename(aside, path) }
      throw DatasetError.cannotWrite(path: path, reason: reason)
    }
    if let aside { try? fm.removeItem(atPath: aside) }
    _ = pending.withLock { $0.remove(tmp) }
  }

  /// Moves the finished file `tmp` to `path` only if nothing is there: a file that appeared
  /// at `path` since the command checked it is the user's and is left as it is. O(1).
  public static func commitNew(_ tmp: String, to path: String) throws {
    guard link(tmp, path) == 0 else {
      let reason =
        errno == EEXIST
        ? "something appeared there while FetchBench ran; it was left as it is" : String(cString: strerror(errno))
      discard(tmp)
      throw DatasetError.cannotWrite(path: path, reason: reason)
    }
    discard(tmp)
  }

  /// Removes what a FetchBench process that no longer runs left in `folder` (the temporary
  /// directory): entries named `fetchbench-….partial-PID-N` whose PID is not alive, as a
  /// SIGKILL leaves them. An entry of a live process, or one named otherwise, is left.
  /// O(entries).
  public static func sweepAbandoned(in folder: String = NSTemporaryDirectory()) {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix("fetchbench-")
    {
      guard let range = name.range(of: ".partial-", options: .backwards),
        let pid = Int32(name[range.upperBound...].prefix { $0.isNumber }), pid > 0, pid != getpid()
      else { continue }
      guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
      remove((folder.hasSuffix("/") ? folder : folder + "/") + name)
    }
  }

  /// Removes every registered temporary path; called on SIGINT, SIGTERM and SIGHUP.
  public static func discardAll() {
    let paths = pending.withLock { p in
      defer { p.removeAll() }
      return p
    }
    for p in paths { remove(p) }
  }

  /// A file error in a few words (`No space left on device`), not Foundation's dump.
  public static func describe(_ error: any Error) -> String {
    let e = error as NSError
    if let code = posixCode(error) ?? e.userInfo[NSUnderlyingErrorKey].flatMap(posixCode) {
      return String(cString: strerror(code))
    }
    if let e = error as? CocoaError, e.code == .fileWriteOutOfSpace { return String(cString: strerror(ENOSPC)) }
    if let e = error as? DatabaseError, e.resultCode == .SQLITE_FULL { return String(cString: strerror(ENOSPC)) }
    // FetchBench's own errors say what is wrong in their description; Foundation's bridged
    // text for them would be "HarnessError error 1".
    return e.domain == NSCocoaErrorDomain ? e.localizedDescription : String(describing: error)
  }

  /// Whether `error` is a full disk, whichever layer reports it: errno `ENOSPC`, Foundation's
  /// `NSFileWriteOutOfSpaceError` (640) or SQLite's `SQLITE_FULL` (13). O(1).
  public static func isOutOfSpace(_ error: any Error) -> Bool {
    let e = error as NSError
    if (posixCode(error) ?? e.userInfo[NSUnderlyingErrorKey].flatMap(posixCode)) == ENOSPC { return true }
    if let c = error as? CocoaError, c.code == .fileWriteOutOfSpace { return true }
    if e.domain == NSCocoaErrorDomain && e.code == CocoaError.fileWriteOutOfSpace.rawValue { return true }
    if let d = error as? DatabaseError, d.resultCode == .SQLITE_FULL { return true }
    return false
  }

  /// What a command prints for `error`: a full disk in the same words wherever it was met,
  /// with what to do; any other error as it describes itself.
  public static func commandMessage(_ error: any Error) -> any Error {
    guard isOutOfSpace(error) else { return error }
    return DiskFull()
  }

  struct DiskFull: Error, CustomStringConvertible {
    var description: String {
      """
      \(String(cString: strerror(ENOSPC))): free space on the disk that holds the datasets, the output folder or the \
      temporary directory (TMPDIR), then run the command again; nothing half-written was kept
      """
    }
  }

  /// The errno an error carries, as a `POSIXError` or an `NSError` of the POSIX domain.
  private static func posixCode(_ error: Any) -> Int32? {
    if let p = error as? POSIXError { return p.code.rawValue }
    if let n = error as? NSError, n.domain == NSPOSIXErrorDomain { return Int32(n.code) }
    return nil
  }
}

enum SHA256Hex {
  static func of(_ text: String) -> String {
    SHA256Hasher.hex(of: Data(text.utf8))
  }
}
