import Datasets
import Foundation
import Synchronization

/// Schemas of users' files read by this process, kept for its later calls and handed to its
/// children (a run's cases) through a private folder that `FETCHBENCH_SCHEMA_CACHE` names,
/// each with the identity of the file it was read at: a file that changed is read again.
/// The folder is removed when the process that made it exits.
enum SchemaCache {
  static let variable = "FETCHBENCH_SCHEMA_CACHE"

  private struct Shared: Codable {
    var path: String
    var key: String
    var schema: DatabaseSchema
  }

  private static let known = Mutex<[String: Shared]>([:])
  private static let folder = Mutex<String?>(nil)

  /// The schema of `path` read at identity `key`, by this process or its parent; nil when
  /// none was. O(tables × columns) to decode a parent's.
  static func schema(of path: String, key: String) -> DatabaseSchema? {
    if let mine = known.withLock({ $0[path] }), mine.key == key { return mine.schema }
    guard let dir = ProcessInfo.processInfo.environment[variable],
      let data = FileManager.default.contents(atPath: file(for: path, in: dir)),
      let shared = try? JSONDecoder().decode(Shared.self, from: data), shared.path == path, shared.key == key
    else { return nil }
    known.withLock { $0[path] = shared }
    return shared.schema
  }

  /// Keeps `schema` for this process and writes it for its children. Best effort: a child
  /// that finds no schema reads the file itself.
  static func keep(_ schema: DatabaseSchema, of path: String, key: String) {
    let shared = Shared(path: path, key: key, schema: schema)
    known.withLock { $0[path] = shared }
    guard let dir = sharedFolder(), let data = try? JSONEncoder().encode(shared) else { return }
    try? data.write(to: URL(fileURLWithPath: file(for: path, in: dir)), options: .atomic)
  }

  /// One file per database path, named by its hash.
  private static func file(for path: String, in dir: String) -> String {
    dir + "/" + SHA256Hasher.hex(of: Data(path.utf8)) + ".json"
  }

  /// The folder children read: the parent's when this process is a child, else a new one of
  /// this process's, registered with `AtomicFile` and removed at exit.
  private static func sharedFolder() -> String? {
    folder.withLock { folder in
      if folder == nil {
        if let inherited = ProcessInfo.processInfo.environment[variable] {
          folder = inherited
        } else if let made = try? AtomicFile.createTemporaryFolder(for: NSTemporaryDirectory() + "fetchbench-schemas") {
          // A schema names the user's tables and their row counts: for this user alone.
          chmod(made, 0o700)
          setenv(variable, made, 1)
          atexit { AtomicFile.discardAll() }
          folder = made
        }
      }
      return folder
    }
  }
}
