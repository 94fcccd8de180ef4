import Catalog
import FetchedResults
import Foundation
import PostgresStore
import Synchronization

/// Where index candidates are tried on a user's server, with `--allow-index-trials`: a schema
/// of FetchBench's own in the user's database (`fetchbench_trials_PID_RANDOM`; CREATE SCHEMA
/// fails rather than reuse one that exists), holding a copy of the list's tables (`LIKE …
/// INCLUDING ALL`: columns, keys and the user's own indexes) and every candidate, analyzed.
/// The user's schema is only read. The copy is dropped by `drop()`, when released, on an
/// interrupt (`dropAll`), or, left behind by a killed process, by the next trial on this host:
/// a comment marks the schema and names its process.
public final class PostgresTrials: Sendable {
  public let url: PostgresURL
  public let schema: String

  /// Copies the tables `kind`'s list reaches from `server`'s schema and builds `indexes` on
  /// the copies. O(rows of those tables + index builds).
  public init(_ server: ServerSchema, kind: DatasetKind, indexes: [IndexSpec]) throws {
    url = server.url
    let admin = try PostgresAdmin(url: url)
    Self.dropAbandoned(admin)
    schema = "fetchbench_trials_\(getpid())_\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
    try admin.execute("CREATE SCHEMA \(schema)")
    Self.live.withLock { $0[schema] = url }
    do {
      try admin.execute(
        "COMMENT ON SCHEMA \(schema) IS \(PostgresAdmin.literal(PostgresScratch.marker(pid: getpid())))")
      let source = PostgresAdmin.identifier(server.schema)
      // Every table of the model, since the store checks each; only those the list reaches
      // get their rows.
      let reached = kind.listTables
      let tables = Set(kind.definition.model.entities.map(\.table)).sorted()
      let filled = tables.filter { reached.contains($0.lowercased()) }.map(PostgresAdmin.identifier)
      for table in tables.map(PostgresAdmin.identifier) {
        try admin.execute("CREATE TABLE \(schema).\(table) (LIKE \(source).\(table) INCLUDING ALL)")
      }
      for table in filled { try admin.execute("INSERT INTO \(schema).\(table) SELECT * FROM \(source).\(table)") }
      try admin.execute("SET search_path TO \(schema)")
      for index in indexes { try admin.execute(index.createStatement) }
      for table in filled { try admin.execute("VACUUM ANALYZE \(schema).\(table)") }
    } catch {
      drop()
      throw error
    }
  }

  /// Drops the schema and its copies. Idempotent.
  public func drop() {
    guard Self.live.withLock({ $0.removeValue(forKey: schema) }) != nil else { return }
    if let admin = try? PostgresAdmin(url: url) { try? admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
  }

  deinit { drop() }

  /// Drops every trial schema this process made and has not dropped; called on SIGINT,
  /// SIGTERM and SIGHUP. O(schemas).
  public static func dropAll() {
    let schemas = live.withLock { l in
      defer { l.removeAll() }
      return l
    }
    for (schema, url) in schemas {
      if let admin = try? PostgresAdmin(url: url) { try? admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
    }
  }

  private static let live = Mutex<[String: PostgresURL]>([:])

  /// Drops the trial schemas whose process on this host has ended. O(schemas).
  static func dropAbandoned(_ admin: PostgresAdmin) {
    let prefix = PostgresScratch.marker(pid: 0).dropLast(1)
    guard
      let rows = try? admin.rows(
        """
        SELECT nspname::text, obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname LIKE \
        'fetchbench\\_trials\\_%'
        """
      )
    else { return }
    for row in rows {
      guard let name = row[0], let comment = row[1], comment.hasPrefix(prefix),
        let pid = Int32(comment.dropFirst(prefix.count))
      else {
        continue
      }
      if kill(pid, 0) != 0 && errno == ESRCH { try? admin.execute("DROP SCHEMA IF EXISTS \(name) CASCADE") }
    }
  }
}

extension DatasetKind {
  /// The list entity's table and every table its to-one relationships reach, lowercased:
  /// what a copy for index trials needs. O(entities × relationships).
  public var listTables: Set<String> {
    let model = definition.model
    var seen: Set<String> = []
    var queue = [definition.listEntity]
    while let name = queue.popLast() {
      guard let entity = model.entities.first(where: { $0.name == name }),
        seen.insert(entity.table.lowercased()).inserted
      else { continue }
      queue += entity.relationships.map(\.destination)
    }
    return seen
  }
}
