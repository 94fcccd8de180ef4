import Catalog
import Datasets
import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import PostgresStore
import SQLiteStore
import Synchronization

/// A database of its own for a case that writes (`diff`, `load`), loaded from the dataset by
/// COPY and dropped afterwards, so that writes never touch the loaded dataset other cases
/// read. Its name is new (`fetchbench_PURPOSE_PID_RANDOM`; CREATE DATABASE fails rather than
/// reuse a database that exists), and a comment marks it as a scratch database and names
/// its process, so that one an interrupt or a kill left behind is dropped by the next run on
/// this host, and nothing else ever is.
public final class PostgresScratch {
  public let url: PostgresURL
  private let server: PostgresURL
  private var dropped = false

  public init(_ location: DatasetLocation, purpose: String) throws {
    server = try PostgresLocation.url(nil)
    let admin = try PostgresAdmin(url: server)
    Self.dropAbandoned(admin)
    let name = "fetchbench_\(purpose)_\(getpid())_\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
    try admin.execute("CREATE DATABASE \(name)")
    try admin.execute("COMMENT ON DATABASE \(name) IS '\(Self.marker(pid: getpid()))'")
    var url = server
    url.database = name
    self.url = url
    Self.live.withLock { $0[name] = server }
    do {
      try PostgresLoader.load(location, into: url)
    } catch {
      drop()
      throw error
    }
  }

  /// Drops the database; every store on it must be closed first. Idempotent.
  public func drop() {
    guard !dropped else { return }
    dropped = true
    _ = Self.live.withLock { $0.removeValue(forKey: url.database) }
    if let admin = try? PostgresAdmin(url: server) { Self.drop(url.database, admin) }
  }

  deinit { drop() }

  /// Drops every scratch database this process made and has not dropped yet, closing their
  /// connections first; called on SIGINT, SIGTERM and SIGHUP. O(databases).
  public static func dropAll() {
    let databases = live.withLock { l in
      defer { l.removeAll() }
      return l
    }
    for (name, server) in databases {
      if let admin = try? PostgresAdmin(url: server) { drop(name, admin) }
    }
  }

  private static let live = Mutex<[String: PostgresURL]>([:])

  private static func drop(_ name: String, _ admin: PostgresAdmin) {
    // DROP DATABASE refuses while a session lasts, and an interrupted load's observers
    // reconnect: close the door first, then end the sessions and wait (at most 10 s) for them
    // to be gone, since pg_terminate_backend only signals them.
    try? admin.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
    let sessions = "SELECT pid FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()"
    try? admin.execute("SELECT pg_terminate_backend(pid) FROM (\(sessions)) s")
    for _ in 0..<200 where (try? admin.column(sessions).isEmpty) == false { usleep(50_000) }
    try? admin.execute("DROP DATABASE IF EXISTS \(name)")
  }

  /// The comment that marks a scratch database: the host and process that made it.
  public static func marker(pid: Int32) -> String { "\(markerPrefix) \(host) \(pid)" }
  static let markerPrefix = "fetchbench scratch database, dropped when its process ends; host and pid:"
  static let host = ProcessInfo.processInfo.hostName.filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }

  /// Drops the scratch databases whose process on this host has ended. O(databases).
  static func dropAbandoned(_ admin: PostgresAdmin) {
    let prefix = "\(markerPrefix) \(host) "
    guard
      let names = try? admin.column(
        """
        SELECT datname || ' ' || shobj_description(oid, 'pg_database') FROM pg_database WHERE shobj_description(oid, \
        'pg_database') LIKE 'fetchbench scratch database%'
        """
      )
    else { return }
    for line in names {
      guard let space = line.firstIndex(of: " ") else { continue }
      let name = String(line[..<space])
      let comment = line[line.index(after: space)...]
      guard comment.hasPrefix(prefix), let pid = Int32(comment.dropFirst(prefix.count)) else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH { drop(name, admin) }
    }
  }
}
