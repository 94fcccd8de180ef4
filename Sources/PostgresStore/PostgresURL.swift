import ChildProcesses
import FetchedResults
import Foundation
import SQLQueries

/// `postgres://user[:password]@host[:port]/database`.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
  public var user: String
  public var password: String?
  public var host: String
  public var port: Int
  public var database: String
  /// Seconds to wait for a connection before reporting the server unreachable.
  public static let connectTimeout = 5

  /// `sslmode` values the store honours: it connects without TLS, which these allow.
  static let plainSSLModes: Set<String> = ["disable", "allow", "prefer"]

  /// Parses a URL; throws a message naming what is wrong, with the password masked.
  public init(_ text: String) throws {
    let shown = Self.masked(text)
    guard let c = URLComponents(string: text), c.scheme == "postgres" || c.scheme == "postgresql", let host = c.host,
      !host.isEmpty
    else {
      throw PostgresStoreError.badURL(shown, "expected postgres://user@host:port/database")
    }
    user = c.user ?? "postgres"
    password = c.password
    self.host = host
    port = c.port ?? 5432
    guard (1...65_535).contains(port) else {
      throw PostgresStoreError.badURL(shown, "invalid port \(port) (1 to 65535)")
    }
    let db = c.path.hasPrefix("/") ? String(c.path.dropFirst()) : c.path
    guard !db.isEmpty else { throw PostgresStoreError.badURL(shown, "the database name is missing") }
    database = db
    // A parameter is honoured or refused, never ignored: a user asking for TLS must not get
    // a plain connection.
    for item in c.queryItems ?? [] {
      switch (item.name, item.value ?? "") {
      case ("sslmode", let mode) where Self.plainSSLModes.contains(mode): continue
      case ("sslmode", let mode):
        throw PostgresStoreError.badURL(
          shown,
          """
          sslmode=\(mode) asks for TLS, which FetchBench's PostgreSQL store does not support; use a server it can \
          reach without TLS
          """
        )
      default:
        throw PostgresStoreError.badURL(
          shown, "unsupported parameter '\(item.name)' (only sslmode=disable, allow or prefer)")
      }
    }
  }

  /// `text` with the password between `user:` and `@` replaced by `***`.
  static func masked(_ text: String) -> String {
    guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else {
      return text
    }
    let credentials = text[scheme.upperBound..<at]
    guard let colon = credentials.firstIndex(of: ":") else { return text }
    return String(text[..<colon]) + ":***" + String(text[at...])
  }

  /// The URL without its password.
  public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}

/// The `psql` client, for COPY and for the floor's timings: one place that finds it and
/// connects it to a server.
public enum Psql {
  /// Debian's psql, or PostgreSQL 15's own.
  public static var executable: String? {
    ChildProcess.executable(["/usr/bin/psql", "/usr/lib/postgresql/15/bin/psql"])
  }

  /// psql's path, `arguments` after the connection options (no psqlrc, quiet, stop on the
  /// first error), and the password in its environment, never on the command line.
  public static func command(_ url: PostgresURL, _ arguments: [String]) throws -> (
    executable: String, arguments: [String], environment: [String: String]
  ) {
    guard let psql = executable else {
      throw PostgresStoreError.query(url, "psql is not installed (Debian: postgresql-client-15)", "")
    }
    let connection = [
      "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", url.host, "-p", String(url.port), "-U", url.user, "-d", url.database,
    ]
    return (psql, connection + arguments, url.password.map { ["PGPASSWORD": $0] } ?? [:])
  }
}
