import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

/// A `Store` over a SQLite file, on GRDB's low-level API: SQL compiled once per request
/// shape, cached prepared statements, values read by column index, no Codable.
///
/// A request becomes one statement, with a LEFT JOIN per to-one key path it uses; the batch
/// fault is one `WHERE t0.id IN (?,…)` statement reused for every batch. Not thread-safe:
/// one store per thread, as one managed object context.
public final class SQLiteStore: ChangeLogStore {
  public let model: Model
  public let path: String
  public internal(set) var counters = StoreCounters()
  let queue: DatabaseQueue
  var sequence = 0
  public let observers = TransactionObservers()
  /// With a change log, the last logged sequence number delivered to this store's observers.
  /// Where this connection's observers are in the change log.
  var cursor = ChangeLogCursor(after: 0)
  /// The sequence number of the last logged transaction delivered to the observers.
  public var deliveredSequence: Int { cursor.delivered }
  var changeLogEnabled = false
  var bellGeneration = 0
  let bellLock = NSLock()
  /// Which statements the store issues: its own (`tuned`) or Core Data's.
  public var plan = StatementPlan.tuned
  /// Whether each table has Core Data's `Z_OPT` column, read with the schema at open (a read
  /// later would stand among the statements a plan logs).
  var versionedTables: [String: Bool] = [:]
  /// A Core Data store's save statements (`CoreDataSave`), read once from `Z_PRIMARYKEY`;
  /// `.some(nil)` for any other file.
  var coreDataSaveRead: CoreDataSave??
  /// Whether each save on a Core Data file also writes Core Data's persistent history
  /// (`PersistentHistory`); set by `trackHistory()`.
  public internal(set) var historyTracking = false
  /// The model's delete rules, applied by each delete on a Core Data file
  /// (`ModelFile.deleteRules`); none by default.
  public var deleteRules: [DeleteRule] = []
  /// The rows the commit under way deleted or is deleting (table, primary key): a delete rule
  /// reaches each object once, and a change to a row the save deleted is dropped, as a
  /// managed object context drops a deleted object's changes.
  var deletedInSave: Set<DeletedRow> = []
  /// The last request's Core Data statements: compiled once per request, not per batch
  /// fault, as the tuned plan's `batchCache`.
  var coreDataCache: (request: FetchedResults.FetchRequest, statements: CoreDataStatements)?
  /// `--sql-debug`'s log of every statement on this connection; nil when it is off.
  let statementLog = StatementLog.forStore()

  /// How a store opens its file.
  public enum OpenMode: Sendable {
    /// Read and write, in WAL mode (what an app does).
    case readWrite
    /// Reads only; a WAL file gets `-wal` and `-shm` files that a read-only connection cannot
    /// remove on close.
    case readOnly
    /// Reads a file nothing writes meanwhile (`immutable=1`): no lock, no `-wal` or `-shm`
    /// file beside it, nothing of the file changed. For loading a dataset once.
    case immutable
  }

  /// Opens `path` and checks that every entity's table and columns exist with the model's
  /// types. Throws `SQLiteStoreError` naming the file and the problem.
  public convenience init(path: String, model: Model, readOnly: Bool = false) throws {
    try self.init(path: path, model: model, mode: readOnly ? .readOnly : .readWrite)
  }

  /// The last request's compiled batch-fault SQL: a scroll-through faults thousands of batches
  /// of one request, and compiling its SQL each time cost more than SQLite's own work.
  var batchCache: (request: FetchedResults.FetchRequest, layout: RowLayout, statements: [Int: Statement])?

  /// Opens `path` in `mode` and checks its schema. A file that is not a SQLite database (an
  /// empty one included) is refused before SQLite opens it, so it is never turned into one.
  public init(path: String, model: Model, mode: OpenMode) throws {
    self.model = model
    self.path = path
    guard FileManager.default.fileExists(atPath: path) else { throw SQLiteStoreError.missingFile(path) }
    try Self.checkHeader(path)
    var config = Configuration()
    config.readonly = mode != .readWrite
    config.label = "fetchbench"
    // WAL recovery on open and the last connection's checkpoint on close hold the file's
    // locks for a moment; other connections (tests, the load test's writers) wait for them.
    config.busyMode = .timeout(10)
    let readOnly = mode != .readWrite
    do {
      // A URI filename (Debian's SQLite is built with SQLITE_USE_URI) carries `immutable`.
      let target = mode == .immutable ? Self.immutableURI(path) : path
      queue = try DatabaseQueue(path: target, configuration: config)
      try queue.inDatabase { db in
        if !readOnly { try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try db.makeStatement(sql: Self.connectionSettings).execute()
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
      }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
      throw SQLiteStoreError.locked(path, error.message ?? "\(error)")
    } catch let error as DatabaseError {
      throw SQLiteStoreError.notADatabase(path, error.message ?? "\(error)")
    }
    versionedTables = try queue.inDatabase { db in try Self.checkSchema(db, model: model, path: path) }
    if let collation = model.collation { queue.inDatabase { db in Self.addCollations(db, collation) } }
    if let statementLog { queue.inDatabase { db in Self.trace(db.sqliteConnection, into: statementLog) } }
  }

  /// The file's size and modification time (a checkpoint writes it) and the WAL index's
  /// header, which SQLite rewrites on every commit (its transaction counter, last frame, that
  /// frame's checksum and the WAL's salts). File times alone tick in jiffies: two commits a
  /// few milliseconds apart could leave the same stamp. Without a WAL index (no connection
  /// open since the last checkpoint) the WAL's own size and time stand in. O(1): a `stat` and
  /// a 96-byte read.
  ///
  /// The main file is also known by its identity (device and inode) and a checksum of its
  /// first pages (the header's change counter and schema cookie, the schema's page): another
  /// file of the same size and time, or one copied over this one, is another version.
  public var dataVersion: String? {
    Self.identity(path) + stamp(path) + "+" + (Self.walIndexHeader(path + "-shm") ?? stamp(path + "-wal"))
  }

  /// `device:inode#checksum ` of the file at `p`: FNV-1a of its first 16 KiB, stable across
  /// processes. O(1).
  static func identity(_ p: String) -> String {
    var st = stat()
    guard stat(p, &st) == 0, let handle = FileHandle(forReadingAtPath: p) else { return "" }
    defer { try? handle.close() }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in (try? handle.read(upToCount: 16_384)) ?? Data() {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return "\(st.st_dev):\(st.st_ino)#\(String(hash, radix: 16)) "
  }

  private func stamp(_ p: String) -> String {
    guard let a = try? FileManager.default.attributesOfItem(atPath: p), let size = a[.size] as? Int, size > 0 else {
      return "-"
    }
    let modified = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
    return "\(size)@\(modified)"
  }

  /// Bytes 8..<48 of the WAL index's header (after its version field), when both copies that
  /// SQLite keeps agree; nil when there is no index, or a writer is between the two copies.
  static func walIndexHeader(_ shm: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: shm) else { return nil }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: 96), data.count == 96 else { return nil }
    let bytes = [UInt8](data)
    guard bytes[8..<48] == bytes[56..<96], bytes[12] == 1 else { return nil }
    return bytes[8..<48].map { String(format: "%02x", $0) }.joined()
  }

  /// Reports every statement of `connection` to `log` as SQLite finishes it (its rows counted
  /// as they are stepped): the statements the store's own code runs and GRDB's alike.
  static func trace(_ connection: OpaquePointer?, into log: StatementLog) {
    let mask = UInt32(SQLITE_TRACE_PROFILE | SQLITE_TRACE_ROW)
    sqlite3_trace_v2(
      connection, mask,
      { event, context, p, x in
        guard let context, let p else { return 0 }
        let log = Unmanaged<StatementLog>.fromOpaque(context).takeUnretainedValue()
        let key = Int(bitPattern: p)
        if event == UInt32(SQLITE_TRACE_ROW) {
          log.row(key)
        } else if event == UInt32(SQLITE_TRACE_PROFILE), let x {
          let statement = OpaquePointer(p)
          let sql = sqlite3_sql(statement).map { String(cString: $0) } ?? ""
          let nanos = x.load(as: Int64.self)
          log.finished(key, sql: sql, binds: Int(sqlite3_bind_parameter_count(statement)), seconds: Double(nanos) / 1e9)
        }
        return 0
      }, Unmanaged.passUnretained(log).toOpaque())
  }

  /// What every connection to a dataset sets, the store's and the floors' alike, so that both
  /// read the file the same way. Memory-mapped reads: with SQLite's default `read()` into a
  /// 2 MiB page cache, a sort over millions of rows spends much of its time in the kernel
  /// copying pages in (the floor cases of `fetchbench run` at several sizes show it). SQLite
  /// caps the size at its compile-time maximum (2 GiB by default); a larger file maps its
  /// first part and reads the rest through `read()`.
  public static let connectionSettings = "PRAGMA mmap_size = 2147418112"

  /// The first 16 bytes of every SQLite database file.
  public static let magic = Array("SQLite format 3\u{0}".utf8)

  static func checkHeader(_ path: String) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw SQLiteStoreError.notADatabase(path, "it cannot be read (\(String(cString: strerror(errno))))")
    }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: magic.count)) ?? Data()
    guard Array(head) == magic else {
      throw SQLiteStoreError.notADatabase(
        path,
        head.isEmpty
          ? "the file is empty" : "it does not start with SQLite's header; regenerate it with `fetchbench generate`")
    }
  }

  /// `path` as a URI filename that opens it without locks or a journal: nothing may be writing it.
  public static func immutableURI(_ path: String) -> String { fileURI(path, query: "immutable=1") }

  /// `path` as a URI filename (absolute, escaped) with `query`, e.g. `mode=ro`.
  public static func fileURI(_ path: String, query: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "?#%")
    let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
    return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?" + query
  }

  /// Checks every entity's table and columns; returns whether each table has `Z_OPT`.
  static func checkSchema(_ db: Database, model: Model, path: String) throws -> [String: Bool] {
    var versioned: [String: Bool] = [:]
    for entity in model.entities {
      guard try SQLiteSchema.tableExists(entity.table, db) else {
        throw SQLiteStoreError.schemaMismatch(path, "table \(entity.table) (entity \(entity.name)) is missing")
      }
      let columns = Dictionary(
        uniqueKeysWithValues: try SQLiteSchema.columns(in: entity.table, db).map { ($0.name, $0.type.uppercased()) })
      versioned[entity.table] = columns["Z_OPT"] != nil
      for a in entity.attributes {
        guard let type = columns[a.column] else {
          throw SQLiteStoreError.schemaMismatch(
            path, "column \(entity.table).\(a.column) (attribute \(entity.name).\(a.name)) is missing")
        }
        let expected = a.type == .string ? "TEXT" : (a.type == .integer || a.type == .bool ? "INTEGER" : "REAL")
        guard type == expected || Affinity(declaredType: type).holds(a.type) else {
          throw SQLiteStoreError.schemaMismatch(
            path, "column \(entity.table).\(a.column) is \(type), the model expects \(expected)")
        }
      }
    }
    return versioned
  }

  public func resetCounters() { counters = StoreCounters() }

  /// The SQL this store issues for a request, for floor measurements that run the same
  /// statements through the raw C API.
  public struct Statements: Sendable {
    public var ids: String
    public var full: String
    public var arguments: [Value]
    public var rowsByID: @Sendable (Int) -> String
  }

  /// The statements for `request`. O(request size).
  public static func statements(for request: ResolvedRequest) -> Statements {
    let sql = SQLBuilder(request)
    return Statements(
      ids: sql.idQuery, full: sql.fullQuery, arguments: sql.arguments, rowsByID: { sql.rowsByIDQuery(count: $0) })
  }

  func read<T>(_ body: (Database) throws -> T) throws -> T {
    do {
      return try queue.inDatabase(body)
    } catch let error as DatabaseError {
      throw SQLiteStoreError.query(path, error.message ?? "\(error)", error.sql ?? "")
    }
  }
}

/// A row a commit deletes, by table and primary key (sub-entities share their root's table).
struct DeletedRow: Hashable {
  var table: String
  var id: Int64
}
