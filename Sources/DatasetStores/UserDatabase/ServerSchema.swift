import Foundation
import PostgresStore
import Vocabulary

/// A schema on a PostgreSQL server, as `--db` names it:
/// `postgres://user[:password]@host[:port]/database[?schema=NAME]` (schema `public` when
/// not named).
public struct ServerSchema: Sendable, Equatable, CustomStringConvertible {
  public var url: PostgresURL
  public var schema: String

  /// Parses the URL; `schema` is taken out before the rest is parsed as the store's URL.
  /// Throws `PostgresStoreError.badURL` naming what is wrong.
  public init(_ text: String) throws {
    var rest = text
    var schema = "public"
    if let q = text.firstIndex(of: "?") {
      var kept: [Substring] = []
      for item in text[text.index(after: q)...].split(separator: "&") {
        if item.hasPrefix("schema=") { schema = String(item.dropFirst("schema=".count)) } else { kept.append(item) }
      }
      rest = String(text[..<q]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
    url = try PostgresURL(rest)
    guard !schema.isEmpty else { throw PostgresStoreError.badURL(url.description, "schema= names no schema") }
    self.schema = schema.removingPercentEncoding ?? schema
  }

  /// The URL without its password, with its schema.
  public var description: String { "\(url)?schema=\(schema)" }
}
