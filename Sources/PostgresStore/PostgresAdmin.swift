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

  public init(url: PostgresURL) throws {
    self.url = url
    let configuration = PostgresConnection.Configuration(
      host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: .disable)
    do {
      connection = try PostgresConnection.connect(
        on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 2, logger: logger
      ).wait()
    } catch {
      throw PostgresStoreError.unreachable(url, PostgresStore.describe(error))
    }
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

  /// Streams rows into `table` with COPY (text format). `rows` is called with a sink that takes
  /// one row's fields already in COPY text form (`\N` for NULL); it runs on this thread while
  /// the data goes out in 1 MiB chunks. Blocks until the server has committed the COPY.
  public func copy(table: String, columns: [String], rows: @escaping @Sendable (_ emit: (String) -> Void) throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = UncheckedBox<(any Error)?>(nil)
    let connection = self.connection
    let logger = self.logger
    Task.detached {
      do {
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
          var buffer = ByteBuffer()
          buffer.reserveCapacity(1 << 20)
          var pending: [ByteBuffer] = []
          try rows { line in
            buffer.writeString(line)
            buffer.writeInteger(UInt8(ascii: "\n"))
            if buffer.readableBytes >= 1 << 20 {
              pending.append(buffer)
              buffer = ByteBuffer()
              buffer.reserveCapacity(1 << 20)
            }
          }
          pending.append(buffer)
          for chunk in pending { try await writer.write(chunk) }
        }
      } catch {
        failure.value = error
      }
      done.signal()
    }
    done.wait()
    if let error = failure.value {
      throw PostgresStoreError.query(url, PostgresStore.describe(error), "COPY \(table)")
    }
  }

  /// A field in COPY text format.
  public static func field(_ s: String?) -> String {
    guard let s else { return "\\N" }
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s.unicodeScalars {
      switch c {
      case "\\": out += "\\\\"
      case "\t": out += "\\t"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }
}
