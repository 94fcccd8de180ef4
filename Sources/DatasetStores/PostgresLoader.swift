import Catalog
import Datasets
import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import PostgresStore
import SQLiteStore
import Synchronization
import Vocabulary

/// Where the PostgreSQL store lives: the command's setting (`CommandSettings.postgresURL`), else
/// the private server of `scripts/postgres`.
public enum PostgresLocation {
  public static let defaultURL = "postgres://postgres@127.0.0.1:55432/fetchbench"

  /// `text`, else the command's setting, else `defaultURL`, parsed. O(length).
  public static func url(_ text: String? = nil) throws -> PostgresURL {
    try PostgresURL(text ?? CommandSettings.current.postgresURL ?? defaultURL)
  }
}

/// Puts a generated dataset into PostgreSQL with the same tables and columns as the SQLite
/// file (dates as double precision seconds), by COPY, then the same optional indexes and
/// ANALYZE. One dataset size is loaded at a time; `fetchbench_meta` records which.
public enum PostgresLoader {
  /// Loads `location`'s SQLite file (generating it when missing) into the server at `url`,
  /// unless `fetchbench_meta` says the same dataset, size, seed, indexes and contents (the
  /// manifest's checksum: a changed generator makes other rows) are there already.
  /// Returns the seconds spent, 0 when nothing was loaded.
  @discardableResult
  public static func load(_ location: DatasetLocation, into url: PostgresURL, force: Bool = false) throws -> Double {
    let admin = try PostgresAdmin(url: url)
    // v2: identity IDs and the change log.
    let indexes = location.indexes.sorted().joined(separator: "+")
    var tag = "v2-\(location.kind.rawValue)-\(location.rows)-s\(location.seed)-\(indexes)"
    // A user's database is its file's contents, and the columns its list's model reads (a
    // Core Data sub-entity's list adds Z_ENT): another file, or another model of it, is
    // another load.
    if let database = location.database {
      let columns = location.kind.tables.map { t in "\(t.name)(\(t.columns.map(\.name).joined(separator: ",")))" }
      let schema = SHA256Hasher.hex(of: Data(columns.joined(separator: ";").utf8))
      tag += "-" + String(try database.sha256().prefix(16)) + "-" + String(schema.prefix(8))
      // Two lists of one database (two entities) load the same tables: the tag names them, so
      // that each list's load knows the other's tables as FetchBench's, and replaces its marker.
      tag += tablesMark + location.kind.tables.map(\.name).sorted().joined(separator: ",")
    }
    // A generated dataset is its manifest entry's contents: rows of an older generator with the
    // same name and size are another load.
    else if let sha = (try? Manifest.load(from: location.directory + "/manifest.json"))?.entry(
      location.kind, rows: location.rows, seed: location.seed)?.sha256
    {
      tag += "-" + String(sha.prefix(16))
    }
    try prepareOwnTables(admin)
    if !force, try loadedTag(admin, location.kind) == tag { return 0 }
    let path = try sourceFile(location)
    let t0 = DispatchTime.now().uptimeNanoseconds
    // Loaded into a staging schema, then moved into place in one transaction: an interrupted
    // or failed load leaves the previous tables as they were. The advisory lock (released
    // when the connection ends, however the process ends) lets one loader at a time remove
    // the staging schemas killed ones left behind, and judge ownership without a race.
    try admin.execute("SELECT pg_advisory_lock(\(stagingLock))")
    defer { try? admin.execute("SELECT pg_advisory_unlock(\(stagingLock))") }
    try checkNotForeign(admin, location.kind)
    try dropAbandonedStaging(admin)
    let staging = try createStaging(admin)
    defer { try? admin.execute("DROP SCHEMA IF EXISTS \(staging) CASCADE") }
    try fill(staging, admin, location, from: path)
    try swapIn(staging, admin, location.kind, tag: tag)
    for table in location.kind.tables {
      // VACUUM too: autovacuum would otherwise visit the fresh tables minutes later, in the
      // middle of measurements, and index-only scans need the visibility map it sets.
      try admin.execute("VACUUM ANALYZE \(table.name.sqlName)")
    }
    return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
  }

  /// Creates FetchBench's own tables where missing, and checks that tables of those names are
  /// FetchBench's: a user's table of such a name is neither read nor written.
  static func prepareOwnTables(_ admin: PostgresAdmin) throws {
    try admin.execute("CREATE TABLE IF NOT EXISTS fetchbench_meta (dataset TEXT PRIMARY KEY, tag TEXT NOT NULL)")
    // Shared by every dataset in the database and never emptied: stores remember the last
    // sequence number they delivered.
    try admin.execute(PostgresStore.changeLogDDL)
    try checkOwnTable(admin, "fetchbench_meta", columns: ["dataset", "tag"])
    try checkOwnTable(admin, PostgresStore.changeLog, columns: ["seq", "committed_at", "payload"])
  }

  /// What `fetchbench_meta` says is loaded of `kind`, if anything.
  static func loadedTag(_ admin: PostgresAdmin, _ kind: DatasetKind) throws -> String? {
    try admin.scalar("SELECT tag FROM fetchbench_meta WHERE dataset = '\(kind.rawValue)'")
  }

  /// The SQLite file the rows come from. Its own indexes do not matter to COPY, so the
  /// unindexed file serves any index set (the index advice loads every candidate at once).
  static func sourceFile(_ location: DatasetLocation) throws -> String {
    // A user's file was read already (its model came from it), as it is, -wal and all.
    if let database = location.database { return database.path }
    var unindexed = location
    unindexed.indexes = []
    guard
      let path = try [location.sqlitePath, unindexed.sqlitePath].first(where: { try DatasetFile.checkReadable($0) })
    else {
      throw HarnessError.missingDataset(
        location.sqlitePath,
        hint:
          """
          fetchbench generate --dataset \(location.kind.rawValue) --rows \(location.rows) --seed \(location.seed) \
          --datasets \(location.directory) --format sqlite --store postgres
          """
      )
    }
    return path
  }

  /// Tables of the user's own are never dropped: a dataset's tables are FetchBench's when
  /// fetchbench_meta names the dataset (the swap writes that row in the transaction that puts
  /// them in place).
  static func checkNotForeign(_ admin: PostgresAdmin, _ kind: DatasetKind) throws {
    guard try loadedTag(admin, kind) == nil, !replaceForeignTables else { return }
    let others = try loadedTables(admin)
    let present = try kind.tables.map(\.name).filter {
      try others[$0] == nil
        && admin.scalar("SELECT to_regclass(\(PostgresAdmin.literal("public." + $0.sqlName)))::text") != nil
    }
    if let foreign = present.first {
      throw HarnessError.foreignTable(
        """
        table \(foreign) in \(admin.url) was not created by FetchBench (fetchbench_meta does not name it); \
        FetchBench will not replace it. 
        """
          + "Use another database (--postgres-url), or pass --postgres-replace-tables to drop and replace it")
    }
  }

  /// Where a user database's tag names its tables: `…|tables:ZFOLDER,ZITEM`.
  static let tablesMark = "|tables:"

  /// The datasets whose tags name their tables, by table. O(datasets × tables).
  static func loadedTables(_ admin: PostgresAdmin) throws -> [String: [String]] {
    var out: [String: [String]] = [:]
    for row in try admin.column("SELECT dataset || ' ' || tag FROM fetchbench_meta") {
      let (dataset, tag) = (row.prefix { $0 != " " }, row.drop { $0 != " " }.dropFirst())
      guard let mark = tag.range(of: tablesMark) else { continue }
      for table in tag[mark.upperBound...].split(separator: ",") {
        out[String(table), default: []].append(String(dataset))
      }
    }
    return out
  }

  /// Creates the tables in `staging`, copies the rows in, then adds constraints, the
  /// location's indexes and each table's identity position.
  static func fill(_ staging: String, _ admin: PostgresAdmin, _ location: DatasetLocation, from path: String) throws {
    let tables = location.kind.tables
    try admin.execute("SET search_path TO \(staging), public")
    // Columns first, constraints after the data: one index build per key instead of an
    // insertion per row, and foreign keys checked in one join instead of a trigger per row.
    for table in tables { try admin.execute(table.postgresCreateSQL) }
    // The tables are copied in parallel, each by its own reader and psql.
    let failures = Mutex<[any Error]>([])
    let url = admin.url
    let source = location.database == nil ? path : try location.readerURI()
    DispatchQueue.concurrentPerform(iterations: tables.count) { i in
      do {
        try copyTable(tables[i], from: source, to: url, schema: staging)
      } catch {
        failures.withLock { $0.append(error) }
      }
    }
    if let error = failures.withLock({ $0.first }) { throw error }
    for table in tables {
      for statement in table.postgresConstraintSQL { try admin.execute(statement) }
    }
    for tag in location.indexes {
      guard let index = IndexSpec(tag: tag, in: location.kind) else {
        throw HarnessError.unknownIndex(kind: location.kind.rawValue, tag: tag)
      }
      try admin.execute(index.postgresCreateStatement)
    }
    for table in tables {
      // Inserts without an ID continue after the loaded ones. The column argument is taken
      // literally, not folded to lower case as the unquoted names are.
      let key = table.primaryKey
      try admin.execute(
        """
        SELECT setval(pg_get_serial_sequence(\(PostgresAdmin.literal(staging + "." + table.name.sqlName)), \
        \(PostgresAdmin.literal(key.postgresStoredName))), (SELECT COALESCE(MAX(\(key.sqlName)), 0) + 1 FROM \
        \(table.name.sqlName)), false)
        """
      )
    }
    try admin.execute("RESET search_path")
  }

  /// The old tables out, the staged ones (with their indexes, constraints and sequences) in,
  /// and the marker, in one transaction.
  static func swapIn(_ staging: String, _ admin: PostgresAdmin, _ kind: DatasetKind, tag: String) throws {
    // Another list's load of these tables is replaced with them: its marker goes too.
    let loaded = try loadedTables(admin)
    let sharing = Set(kind.tables.flatMap { loaded[$0.name] ?? [] }).union([kind.rawValue])
    var swap = ["BEGIN"] + sharing.sorted().map { "DELETE FROM fetchbench_meta WHERE dataset = '\($0)'" }
    swap += kind.tables.reversed().map { "DROP TABLE IF EXISTS public.\($0.name.sqlName) CASCADE" }
    swap += kind.tables.map { "ALTER TABLE \(staging).\($0.name.sqlName) SET SCHEMA public" }
    swap += ["INSERT INTO fetchbench_meta (dataset, tag) VALUES ('\(kind.rawValue)', '\(tag)')", "COMMIT"]
    do {
      for statement in swap { try admin.execute(statement) }
    } catch {
      try? admin.execute("ROLLBACK")
      throw error
    }
  }

  /// Throws, naming the table, when `name` in the public schema does not have FetchBench's
  /// columns: it is the user's table, which FetchBench neither reads nor writes. O(columns).
  static func checkOwnTable(_ admin: PostgresAdmin, _ name: String, columns: [String]) throws {
    let actual = try admin.column(
      """
      SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = '\(name)' \
      ORDER BY ordinal_position
      """
    )
    guard actual == columns else {
      throw HarnessError.foreignTable(
        """
        table \(name) in \(admin.url) is not FetchBench's (its columns are \(actual.joined(separator: ", ")); \
        FetchBench's are \(columns.joined(separator: ", "))), and FetchBench does not change it. Use another \
        database (--postgres-url)
        """
      )
    }
  }

  /// What marks a schema as a load's staging schema: its comment, which only this loader
  /// writes. A schema of the user's, whatever its name, has no such comment and is never
  /// dropped.
  static let stagingComment = "fetchbench staging schema: dropped by the next load"

  /// Creates a staging schema under a new name (`fetchbench_staging_PID_RANDOM`; CREATE
  /// SCHEMA fails rather than reuse one that exists) and marks it. Hold `stagingLock`.
  static func createStaging(_ admin: PostgresAdmin) throws -> String {
    let name = "fetchbench_staging_\(getpid())_\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
    try admin.execute("CREATE SCHEMA \(name)")
    try admin.execute("COMMENT ON SCHEMA \(name) IS '\(stagingComment)'")
    return name
  }

  /// Drops the staging schemas that interrupted loads left behind: those marked as staging.
  /// Hold `stagingLock`: no other load is using one then. O(schemas).
  static func dropAbandonedStaging(_ admin: PostgresAdmin) throws {
    let names = try admin.column(
      "SELECT nspname FROM pg_namespace WHERE obj_description(oid, 'pg_namespace') = '\(stagingComment)'")
    for name in names { try admin.execute("DROP SCHEMA IF EXISTS \"\(name)\" CASCADE") }
  }
  /// The advisory lock key that serializes loads into one database.
  static let stagingLock = 0x4642_4C44  // "FBLD"

  /// `--postgres-replace-tables`: the user allowed dropping dataset tables FetchBench did not
  /// create.
  public static var replaceForeignTables: Bool { CommandSettings.current.replacePostgresTables }
}

extension PostgresLoader {
  /// Streams one table from the SQLite file into COPY text, bytes appended directly.
  static func copyTable(_ table: TableSchema, from path: String, to url: PostgresURL, schema: String) throws {
    var config = Configuration()
    config.readonly = true
    config.busyMode = .timeout(10)
    let source = try DatabaseQueue(path: path, configuration: config)
    let columns = table.columns.map(\.name)
    try source.read { db in
      let statement = try db.makeStatement(
        sql:
          """
          SELECT \(columns.map(\.sqlName).joined(separator: ",")) FROM \(table.name.sqlName) ORDER BY \
          \(table.primaryKey.sqlName)
          """
      )
      let raw = statement.sqliteStatement
      try PostgresAdmin.copy(url, table: table.name.sqlName, columns: columns.map(\.sqlName), schema: schema) { emit in
        var done = false
        while !done {
          // Rows go out in runs of 256 per call, read through the C API.
          emit { out in
            for _ in 0..<256 {
              guard sqlite3_step(raw) == SQLITE_ROW else {
                done = true
                return
              }
              for i in 0..<Int32(columns.count) {
                if i > 0 { out.append(0x09) }
                switch sqlite3_column_type(raw, i) {
                case SQLITE_NULL: out += [0x5C, UInt8(ascii: "N")]
                case SQLITE_INTEGER: out += String(sqlite3_column_int64(raw, i)).utf8
                // Swift's shortest round-trip form: PostgreSQL reads back the same double.
                case SQLITE_FLOAT: out += sqlite3_column_double(raw, i).description.utf8
                default: PostgresAdmin.appendField(String(cString: sqlite3_column_text(raw, i)), to: &out)
                }
              }
              out.append(0x0A)
            }
          }
        }
      }
    }
  }
}

extension TableSchema {
  /// The `CREATE TABLE` statement for PostgreSQL: the same columns, BIGINT and DOUBLE
  /// PRECISION, without keys (`postgresConstraintSQL` adds them after the data).
  public var postgresCreateSQL: String {
    let defs = columns.map { c -> String in
      if c.name == primaryKey { return "\(c.name.sqlName) BIGINT GENERATED BY DEFAULT AS IDENTITY" }
      let type = c.type == .text ? "TEXT" : (c.type == .integer ? "BIGINT" : "DOUBLE PRECISION")
      return "\(c.name.sqlName) \(type)\(c.nullable ? "" : " NOT NULL")"
    }
    return "CREATE TABLE \(name.sqlName) (\(defs.joined(separator: ", ")))"
  }

  /// The primary key, unique and foreign-key constraints, to run once the data is in.
  public var postgresConstraintSQL: [String] {
    ["ALTER TABLE \(name.sqlName) ADD PRIMARY KEY (\(primaryKey.sqlName))"]
      + columns.filter(\.unique).map { "ALTER TABLE \(name.sqlName) ADD UNIQUE (\($0.name.sqlName))" }
      + columns.compactMap { c in
        c.referenceSQL.map { "ALTER TABLE \(name.sqlName) ADD FOREIGN KEY (\(c.name.sqlName)) REFERENCES \($0)" }
      }
  }
}
