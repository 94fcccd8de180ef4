#if PostgreSQL
  import ChildProcesses
  import Foundation
  import Logging
  import NIOCore
  import NIOPosix
  import PostgresNIO

  /// Schema and bulk loading on a PostgreSQL server: DDL, and `COPY … FROM STDIN` in text format.
  /// Used by `fetchbench generate --store postgres`; the store itself never writes schema.
  public final class PostgresAdmin {
    public let url: PostgresURL
    let connection: PostgresConnection
    let logger = Logger(label: "fetchbench.postgres.admin")

    /// Connects, giving up after `PostgresURL.connectTimeout` seconds.
    public init(url: PostgresURL) throws {
      self.url = url
      connection = try PostgresStore.connect(url, logger: logger)
    }

    deinit { try? connection.close().wait() }

    /// Runs one statement without results.
    public func execute(_ sql: String) throws {
      do {
        _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
      } catch {
        throw PostgresStoreError.query(url, PostgresStore.describe(error), sql)
      }
    }

    /// The first column of the first row of `sql` as text, nil when there is no row.
    public func scalar(_ sql: String) throws -> String? {
      do {
        let result = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
        guard let row = result.rows.first else { return nil }
        return try row.makeRandomAccess()[0].decode(String?.self)
      } catch {
        throw PostgresStoreError.query(url, PostgresStore.describe(error), sql)
      }
    }

    /// Every row of `sql`, each column as text (NULL as nil): a query casts what is not text.
    /// O(rows × columns).
    public func rows(_ sql: String) throws -> [[String?]] {
      do {
        let result = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
        return try result.rows.map { row in try row.makeRandomAccess().map { try $0.decode(String?.self) } }
      } catch {
        throw PostgresStoreError.query(url, PostgresStore.describe(error), sql)
      }
    }

    /// Makes every later transaction of this session read-only: the server refuses any write.
    public func readOnly() throws { try execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY") }

    /// The first column of every row of `sql`, as text.
    public func column(_ sql: String) throws -> [String] {
      do {
        let result = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
        return try result.rows.map { try $0.makeRandomAccess()[0].decode(String.self) }
      } catch {
        throw PostgresStoreError.query(url, PostgresStore.describe(error), sql)
      }
    }

  }

#endif
