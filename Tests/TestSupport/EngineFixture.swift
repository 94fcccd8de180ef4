import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import PostgresStore
import SQLiteStore
import Testing

/// A small dataset on disk, generated once per test process.
public final class EngineFixture: Sendable {
  public static let rows = 3_000
  public static let shared = EngineFixture()
  public let folder: String

  init() {
    folder = TestSupport.temporaryFolder("engine")
    _ = try! Generation.run(
      GenerationRequest(rows: Self.rows, seed: 5, outDirectory: folder, writeCSV: false))
  }

  public func path(_ kind: DatasetKind) -> String {
    DatasetPaths.sqlite(in: folder, kind, rows: Self.rows, seed: 5)
  }

  public func store(_ kind: DatasetKind, _ type: String) throws -> any Store {
    let model = DatasetModels.model(for: kind)
    switch type {
    case "memory": return try MemoryStore.load(from: SQLiteStore(path: path(kind), model: model, mode: .immutable))
    case "postgres":
      guard let url = postgres.url else { throw PostgresStoreError.badURL("", postgres.problem ?? "no server") }
      return try PostgresStore(url: url, model: model)
    default: return try SQLiteStore(path: path(kind), model: model)
    }
  }

  public var postgres: (url: PostgresURL?, problem: String?) { Self.postgresDatabase }

  /// The fixture's datasets in a database of their own on the PostgreSQL server (the one
  /// `scripts/postgres start` runs, or FETCHBENCH_POSTGRES_URL's), when it is reachable.
  public static let postgresDatabase: (url: PostgresURL?, problem: String?) = {
    do {
      let url = try TestDatabases.create("engine")
      for kind in DatasetKind.allCases {
        try PostgresLoader.load(
          DatasetLocation(
            kind: kind, rows: EngineFixture.rows, seed: 5, directory: EngineFixture.shared.folder, indexes: []),
          into: url)
      }
      return (url, nil)
    } catch {
      return (nil, String(describing: error))
    }
  }()

  /// Returns when the fixture's PostgreSQL database is there; otherwise skips the test (or
  /// this case of it), or fails it when FETCHBENCH_REQUIRE_POSTGRES=1.
  public func requirePostgres() throws {
    try TestSupport.requirePostgres(postgres.url != nil, problem: postgres.problem ?? "")
  }

  /// `stores` and PostgreSQL when its cases can run: with the server, or when it is required
  /// (FETCHBENCH_REQUIRE_POSTGRES=1, where they fail without it). Without, `PostgresCases`
  /// shows them as skipped, with the reason.
  public static func withPostgres(_ stores: [String]) -> [String] {
    let required = ProcessInfo.processInfo.environment["FETCHBENCH_REQUIRE_POSTGRES"] == "1"
    return stores + (shared.postgres.url != nil || required ? ["postgres"] : [])
  }
}

/// Databases of this test process on the PostgreSQL server (`scripts/postgres start`'s, or
/// FETCHBENCH_POSTGRES_URL's), named `fbt_<pid>_<name>`. Databases of test processes that
/// are gone are dropped first, and this process's own at its exit (tests run in parallel, so
/// a database is not dropped while tests may still use it).
public enum TestDatabases {
  public static let prefix = "fbt_\(getpid())_"
  private static let cleaned: Result<PostgresURL, any Error> = Result {
    let server = try PostgresLocation.url(nil)
    let admin = try PostgresAdmin(url: server)
    for name in try admin.column(
      "SELECT datname FROM pg_database WHERE datname LIKE 'fbt\\_%' OR datname LIKE 'fetchbench\\_test\\_%'")
    {
      let pid = name.split(separator: "_").dropFirst(name.hasPrefix("fbt_") ? 1 : 2).first.flatMap { Int32($0) }
      if let pid, pid != getpid(), kill(pid, 0) != 0 { try? admin.execute("DROP DATABASE IF EXISTS \(name)") }
    }
    atexit { TestDatabases.dropAll() }
    return server
  }

  /// A fresh database (from `template` when given), returned as a URL.
  public static func create(_ name: String, template: String? = nil) throws -> PostgresURL {
    var url = try cleaned.get()
    let admin = try PostgresAdmin(url: url)
    try admin.execute("DROP DATABASE IF EXISTS \(prefix + name)")
    try admin.execute("CREATE DATABASE \(prefix + name)\(template.map { " TEMPLATE \(prefix + $0)" } ?? "")")
    url.database = prefix + name
    return url
  }

  /// Drops every database of this process (at exit: connections still open are ended).
  public static func dropAll() {
    guard let url = try? cleaned.get(), let admin = try? PostgresAdmin(url: url) else { return }
    for name
      in (try? admin.column(
        "SELECT datname FROM pg_database WHERE datname LIKE '\(prefix.replacingOccurrences(of: "_", with: "\\_"))%'"))
      ?? []
    {
      try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
  }
}
