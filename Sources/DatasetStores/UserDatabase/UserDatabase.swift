import Catalog
import Datasets
import FetchedResults
import Foundation
import GRDB
import PostgresStore
import SQLQueries
import SQLiteStore
import Vocabulary

extension UserDatabase {
  /// The database `--db` names: a file, or a server's URL whose password is kept in the
  /// command's settings (`CommandSettings.databasePassword`), never in results. Throws the
  /// URL's errors.
  public static func named(_ text: String, relationships: [String: String] = [:]) throws -> UserDatabase {
    guard Self.isServerURL(text) else { return UserDatabase(path: text, relationships: relationships) }
    var server = try ServerSchema(text)
    if let password = server.url.password { CommandSettings.update { $0.databasePassword = password } }
    server.url.password = nil
    return UserDatabase(path: server.description, relationships: relationships)
  }

  /// The PostgreSQL schema `path` names, nil for a file.
  public var server: ServerSchema? {
    get throws {
      guard isOnServer else { return nil }
      var server = try ServerSchema(path)
      if server.url.password == nil {
        server.url.password = CommandSettings.current.databasePassword
      }
      return server
    }
  }

  /// How the file is read, in words, for the user.
  public var openModeDescription: String {
    if let server = try? server {
      return "read in read-only transactions (schema \(server.schema)): the server refuses any write"
    }
    return needsSnapshot
      ? """
      read from a private copy taken with its -wal or -journal (a writer may be using it; nothing is created beside \
      it)
      """
      : "opened read-only and immutable (no -wal or -journal file, not in WAL mode: nothing is writing it)"
  }

  /// Reads the schema. Errors name the file and what would make it readable. O(rows × columns)
  /// the first time; O(tables × columns) again while the file (and its `-wal`) is unchanged,
  /// in this process and its children (`SchemaCache`): checking the options, running them and
  /// every case's process scan it once.
  public func schema() throws -> DatabaseSchema {
    if let server = try server { return try DatabaseSchema.read(server.url, schema: server.schema, shownAs: path) }
    try checkIsSQLite()
    let key = Self.fileIdentity(path) + "|" + Self.fileIdentity(path + "-wal")
    if let known = SchemaCache.schema(of: path, key: key) { return known }
    let schema = try readSchema()
    SchemaCache.keep(schema, of: path, key: key)
    return schema
  }

  /// `device:inode:size:modified` of the file at `path`, or "-" when there is none. O(1).
  static func fileIdentity(_ path: String) -> String {
    var st = stat()
    guard stat(path, &st) == 0 else { return "-" }
    return "\(st.st_dev):\(st.st_ino):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
  }

  private func readSchema() throws -> DatabaseSchema {
    do {
      var config = Configuration()
      config.readonly = true
      config.busyMode = .timeout(2)
      let queue = try DatabaseQueue(path: try readableURI(), configuration: config)
      return try DatabaseSchema.read(queue, path: path)
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
      throw UserDatabaseError.locked(path)
    } catch let error as DatabaseError {
      throw UserDatabaseError.unreadable(path, error.message ?? "\(error)")
    }
  }

  /// How the rows were drawn when `generate --like` wrote the file; nil for a user's own. O(1).
  public func syntheticDescription() -> String? {
    guard (try? server) == nil else { return nil }
    var config = Configuration()
    config.readonly = true
    guard let uri = try? readableURI(), let queue = try? DatabaseQueue(path: uri, configuration: config)
    else { return nil }
    return try? queue.read { db in
      try LikeGeneration.marker(db)
    }
  }

  /// What the store was generated from, for one `generate --model` wrote; nil otherwise.
  public func modelOrigin() -> ModelOrigin? {
    guard (try? server) == nil else { return nil }
    return ModelGeneration.tag(of: path).flatMap(ModelOrigin.init(tag:))
  }

  func checkIsSQLite() throws {
    // A FIFO or a device would block the read below, or never end.
    switch DatasetFile.entry(at: path) {
    case .missing: throw UserDatabaseError.missing(path)
    case .other(let what): throw UserDatabaseError.unreadable(path, "it is \(what), not a file; name the database file")
    case .file: break
    }
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw UserDatabaseError.unreadable(path, "permission denied")
    }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: SQLiteStore.magic.count)) ?? Data()
    guard Array(head) == SQLiteStore.magic else { throw UserDatabaseError.notSQLite(path) }
  }

  /// The kind of a list of `entity` in this database, registered so that the harness reaches
  /// its definition as any dataset's. The kind is named after the entity (`flight`).
  /// `name`: the kind's name, when not the entity's; `prefetch`: the relationships its
  /// default request prefetches; `cells`: what its cell shows.
  public func register(
    entity: String, sort: [FetchedResults.SortDescriptor] = [], section: String? = nil, name: String? = nil,
    prefetch: [String] = [], cells: [String] = []
  ) throws -> (kind: DatasetKind, schema: DatabaseSchema) {
    let schema = try schema()
    let (model, e) = try listModel(of: schema, entity: entity)
    let sectionKeyPath =
      section ?? e.attributes.first { $0.type == .string }?.name ?? e.attributes.first?.name ?? e.primaryKey
    var definition = DatabaseDataset(
      name: name ?? DatabaseDataset.kindName(e.name), model: model, listEntity: e.name, sortDescriptors: sort,
      sectionKeyPath: sectionKeyPath)
    definition.dateOffsets = schema.coreDataDateOffsets
    definition.isCoreData = schema.flavour == .coreData
    definition.prefetch = prefetch
    definition.cells = cells
    return (DatasetKind.register(definition), schema)
  }

  /// The list's rows loaded into the memory store from the file or the server's schema,
  /// read-only. O(rows).
  public func openMemory(_ model: Model) throws -> MemoryStore {
    if let store = try openServer(model) {
      defer { store.close() }
      return try MemoryStore.load(from: store)
    }
    return try MemoryStore.load(from: openSQLite(model))
  }

  /// The server's schema in the PostgreSQL store, read in place in read-only transactions;
  /// nil for a file. O(1).
  public func openServer(_ model: Model) throws -> PostgresStore? {
    guard let server = try server else { return nil }
    return try PostgresStore(url: server.url, model: model, userSchema: server.schema)
  }

  /// The file in the SQLite store, read-only; a server's schema is refused. O(1).
  public func openSQLite(_ model: Model) throws -> SQLiteStore {
    guard try server == nil else { throw UserDatabaseError.serverNotSQLite(path) }
    return try SQLiteStore(path: try readablePath(), model: model, mode: .immutable)
  }
}

/// What is wrong with a user's database, and what to do about it.
public enum UserDatabaseError: Error, CustomStringConvertible, Equatable {
  case missing(String)
  case notSQLite(String)
  case unreadable(String, String)
  case locked(String)
  case unknownEntity(String, known: [String])
  case notAnEntity(String, String)
  case serverNotSQLite(String)
  case serverReadOnly(String, String)

  public var description: String {
    switch self {
    case .missing(let p):
      """
      \(p): no such file; name a SQLite database (an app's, or a Core Data store's .sqlite file) or a PostgreSQL \
      schema (postgres://user@host:port/database?schema=NAME)
      """
    case .notSQLite(let p):
      """
      \(p) is not a SQLite database (it does not start with SQLite's header; an encrypted one, such as SQLCipher's, \
      looks like this too). FetchBench reads unencrypted SQLite files: export a decrypted copy
      """
    case .unreadable(let p, let m):
      UserDatabase.isServerURL(p) ? "\(p) cannot be read: \(m)" : "\(p) cannot be read as a SQLite database: \(m)"
    case .locked(let p):
      """
      \(p) is locked by another process; close the app that holds it, or copy the file (with its -wal) and name the \
      copy
      """
    case .unknownEntity(let e, let known):
      "no entity '\(e)' in the database; its entities are: \(known.isEmpty ? "none" : known.joined(separator: ", "))"
    case .notAnEntity(let t, let reason): "table \(t) cannot be listed: \(reason)"
    case .serverNotSQLite(let p):
      """
      \(p) is a PostgreSQL schema: it is measured where it is, with --store postgres or memory (the memory store \
      loads it); the SQLite store needs a SQLite file
      """
    case .serverReadOnly(let p, let what):
      """
      \(p) is a PostgreSQL schema, which FetchBench only reads: \(what) needs a SQLite file (FetchBench writes only \
      to a private copy of one)
      """
    }
  }
}

extension UserList {
  /// Registers the list's kind, sorted by `sort` (nil: the default sort, else by primary key)
  /// and sectioned by `section`. Throws the reader's errors.
  public func register(
    sort: [FetchedResults.SortDescriptor]?, section: String?
  ) throws -> (kind: DatasetKind, schema: DatabaseSchema) {
    try database.register(
      entity: entity, sort: sort ?? defaultSort ?? [],
      section: section ?? defaultSection,
      name: kindName, prefetch: prefetch ?? [], cells: cells ?? [])
  }
}

extension UserDatabase {
  /// The entities of `schema` (this database's), with the relationships this database
  /// declares beside those its keys say (`DatabaseSchema.model`). O(tables × columns).
  public func model(of schema: DatabaseSchema) throws -> (model: Model, skipped: [DatabaseSchema.Skipped]) {
    try schema.model(relationships: relationships, toMany: toMany)
  }

  /// The model of `schema` with `entity` (whatever its case) among its entities, a Core Data
  /// sub-entity added as an entity of its own (`DatabaseSchema.addingSubentity`), and that
  /// entity; an error naming why a table is no entity, or the entities there are.
  /// O(tables × columns).
  func listModel(of schema: DatabaseSchema, entity: String) throws -> (model: Model, entity: Entity) {
    var (model, skipped) = try model(of: schema)
    let named = { (e: Entity) in e.name.lowercased() == entity.lowercased() }
    if !model.entities.contains(where: named), let withSubentity = schema.addingSubentity(entity, to: model) {
      model = withSubentity
    }
    guard let e = model.entities.first(where: named) else {
      if let s = skipped.first(where: { $0.table.lowercased() == entity.lowercased() }) {
        throw UserDatabaseError.notAnEntity(s.table, s.reason)
      }
      throw UserDatabaseError.unknownEntity(entity, known: model.entities.map(\.name))
    }
    return (model, e)
  }

  /// The file's SHA-256, hex: what a run's results name it by. O(file size). On a server,
  /// where there is no file, the SHA-256 of what `describe` prints of its schema (tables,
  /// columns, row and NULL counts, relationships, indexes): O(rows × columns).
  public func sha256() throws -> String {
    if try server != nil {
      let schema = try schema()
      let (model, skipped) = try model(of: schema)
      let text = schema.describe(model, skipped: skipped, opened: "")
      return SHA256Hasher.hex(of: Data(text.utf8))
    }
    // A missing file, a FIFO (whose read would never end) or a folder is named as such.
    try checkIsSQLite()
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw UserDatabaseError.unreadable(path, "permission denied")
    }
    defer { try? handle.close() }
    let hasher = SHA256Hasher()
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
    return hasher.hex()
  }
}
