import Datasets
import Foundation
import Synchronization

/// Schemas of users' files read by this process, kept for its later calls and sent to the
/// processes it starts for cases in their requests (`entries`, `adopt`), each with the
/// identity of the file it was read at: a file that changed is read again.
package enum SchemaCache {
  /// One file's schema, read at the file's identity `key`.
  package struct Entry: Codable, Sendable {
    var path: String
    var key: String
    var schema: DatabaseSchema
  }

  private static let known = Mutex<[String: Entry]>([:])

  /// The schema of `path` read at identity `key` by this process or its parent; nil when none
  /// was. O(1).
  static func schema(of path: String, key: String) -> DatabaseSchema? {
    guard let entry = known.withLock({ $0[path] }), entry.key == key else { return nil }
    return entry.schema
  }

  /// Keeps `schema` for this process and the cases it starts. O(1).
  static func keep(_ schema: DatabaseSchema, of path: String, key: String) {
    known.withLock { $0[path] = Entry(path: path, key: key, schema: schema) }
  }

  /// Every schema this process keeps, for a case's request. O(files).
  package static var entries: [Entry] { known.withLock { $0.values.sorted { $0.path < $1.path } } }

  /// Keeps the schemas a parent sent. O(files).
  package static func adopt(_ entries: [Entry]) {
    known.withLock { known in
      for entry in entries { known[entry.path] = entry }
    }
  }
}
