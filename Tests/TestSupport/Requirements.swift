import Foundation
import DatasetStores
import PostgresStore
import Testing

/// What a test needs from the machine, said when it is missing: the test (or this case of a
/// parameterized test) ends as skipped with the reason, never as passed.
extension TestSupport {
  /// Returns when the PostgreSQL server answered (`reachable`); otherwise skips the test,
  /// naming what is missing — unless FETCHBENCH_REQUIRE_POSTGRES=1 (the test command's), where
  /// a missing server fails it.
  public static func requirePostgres(_ reachable: Bool, problem: @autoclosure () -> String) throws {
    guard !reachable else { return }
    let reason = "needs the PostgreSQL server (scripts/postgres start, or FETCHBENCH_POSTGRES_URL): \(problem())"
    if ProcessInfo.processInfo.environment["FETCHBENCH_REQUIRE_POSTGRES"] == "1" {
      throw Unavailable(description: "FETCHBENCH_REQUIRE_POSTGRES=1, but the test \(reason)")
    }
    try Test.cancel(Comment(rawValue: reason))
  }

  /// Whether the PostgreSQL server (`scripts/postgres start`'s, or FETCHBENCH_POSTGRES_URL's)
  /// answers: each test process asks once.
  static let postgresServer: Result<Void, any Error> = Result {
    _ = try PostgresAdmin(url: try PostgresLocation.url(nil))
  }

  /// Returns when the server answers; otherwise skips the test (fails it when required).
  public static func requirePostgresServer() throws {
    if case .failure(let error) = postgresServer { try requirePostgres(false, problem: String(describing: error)) }
  }

  /// Whether a test's PostgreSQL part runs: with the server; without it, a failure when
  /// FETCHBENCH_REQUIRE_POSTGRES=1.
  public static var postgresServerUp: Bool {
    if case .success = postgresServer { return true }
    if ProcessInfo.processInfo.environment["FETCHBENCH_REQUIRE_POSTGRES"] == "1" {
      Issue.record("PostgreSQL is required (FETCHBENCH_REQUIRE_POSTGRES=1) but unavailable")
    }
    return false
  }

  /// Skips the test when this process cannot mount a file system (it is not root), naming
  /// why — unless CI=true (CI machines of this kind run as root), where it fails.
  public static func requireRoot(for purpose: String) throws {
    guard geteuid() != 0 else { return }
    let reason = "needs root to \(purpose)"
    if ProcessInfo.processInfo.environment["CI"] == "true" {
      throw Unavailable(description: "CI runs as root, but the test \(reason)")
    }
    try Test.cancel(Comment(rawValue: reason))
  }

  /// What the test needed and did not find, as its failure.
  public struct Unavailable: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
  }
}
