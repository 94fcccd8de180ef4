import FetchedResults
import Foundation
import SQLQueries

/// Errors of the PostgreSQL store, each naming the server.
public enum PostgresStoreError: Error, CustomStringConvertible, Equatable {
  case badURL(String, String)
  case unreachable(PostgresURL, String)
  case schemaMismatch(PostgresURL, String)
  case query(PostgresURL, String, String)
  case disconnected(PostgresURL)
  /// This build left PostgreSQL out (the package trait `PostgreSQL` was off).
  case notBuilt

  public var description: String {
    switch self {
    case .badURL(let u, let m): "'\(u)' is not a PostgreSQL URL: \(m)"
    case .unreachable(let u, let m):
      """
      cannot connect to PostgreSQL at \(u.host):\(u.port) (database \(u.database)): \(m). Is the server running? \
      `scripts/postgres start` starts a private one.
      """
    case .schemaMismatch(let u, let m): "\(u) does not have the expected schema: \(m)"
    case .query(let u, let m, let sql): "\(u): query failed: \(m)\(sql.isEmpty ? "" : " (\(sql))")"
    case .disconnected(let u):
      "the connection to PostgreSQL at \(u.host):\(u.port) was closed (server restart or network); reconnect"
    case .notBuilt:
      """
      this fetchbench was built without PostgreSQL (`make build` leaves it out to build in minutes); `make \
      build-postgres` builds it with PostgreSQL
      """
    }
  }
}
