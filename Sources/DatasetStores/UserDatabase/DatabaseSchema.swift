import FetchedResults
import Foundation
import GRDB
import SQLiteStore
import Vocabulary

/// What FetchBench reads of a SQLite database's schema and contents, before any model is made
/// of it: tables, their integer primary keys, columns with their declared types, the storage
/// classes their values really have and their NULL counts, foreign keys and indexes.
public struct DatabaseSchema: Sendable, Codable {
  /// An app's own schema, or a Core Data store (recognised by `Z_PRIMARYKEY` and `Z_METADATA`).
  public enum Flavour: String, Sendable, Codable {
    case app
    case coreData = "Core Data"
  }

  public struct Column: Sendable, Codable {
    public var name: String
    public var declaredType: String
    /// Rows of each storage class: what the values are, whatever the column declares.
    public var integers = 0
    public var reals = 0
    public var texts = 0
    public var blobs = 0
    public var nulls = 0
    /// Text values holding a NUL byte: read whole (`SQLiteText`), though SQLite's `length()`
    /// and C strings stop at the first one; describe names them.
    public var textsWithNUL = 0
    /// A generated column (`GENERATED ALWAYS AS`): SQLite computes it, a write cannot set it.
    public var generated = false
    /// On a PostgreSQL server the declared type is the values' type: the attribute type it
    /// maps to (`Unread`: none FetchBench reads), in place of counting storage classes.
    public var serverType: ServerType? = nil
  }

  /// A PostgreSQL column's attribute type, or why it is not an attribute.
  public enum ServerType: Sendable, Codable, Equatable {
    case attribute(AttributeType)
    case unread(String)
  }

  public struct ForeignKey: Sendable, Codable {
    public var column: String
    public var destinationTable: String
    public var destinationColumn: String
    /// A UNIQUE foreign key makes a one-to-one link.
    public var unique: Bool
  }

  public struct Index: Sendable, Codable {
    public var name: String
    public var columns: [String]
    public var unique: Bool
  }

  public struct Table: Sendable, Codable {
    public var name: String
    /// The `INTEGER PRIMARY KEY` column (the rowid), if the table has one.
    public var primaryKey: String?
    public var columns: [Column]
    public var foreignKeys: [ForeignKey]
    public var indexes: [Index]
    public var rowCount: Int
    /// The triggers on the table, by name.
    public var triggers: [String] = []
    /// Why the table cannot be listed although it has an integer primary key.
    public var unlistable: String? = nil
  }

  public var path: String
  public var flavour: Flavour
  public var tables: [Table]
  /// Core Data's entity names by table (`ZFLIGHT` → `Flight`); empty for an app's schema.
  public var coreDataEntities: [String: String] = [:]
  /// Core Data's sub-entities by name: the table of their inheritance tree's root and the
  /// entity numbers (`Z_ENT`) of their rows, theirs and their own sub-entities'.
  public var coreDataSubentities: [String: Subentity] = [:]
  /// The rows of each entity number (`Z_ENT`) in each table that sub-entities share with their
  /// root, counted once when the schema is read.
  public var coreDataRowsByNumber: [String: [Int: Int]] = [:]

  /// A Core Data entity whose rows live in its root's table.
  public struct Subentity: Sendable, Equatable, Codable {
    public var table: String
    public var numbers: [Int]
    /// Its own number and its ancestors' below the root: a column Core Data named with one
    /// of them (`ZBODY4`) holds the property that entity declares under a name another entity
    /// of the table declared first (`ZBODY`). nil in a schema cached before it was read.
    public var lineage: [Int]?
    /// Its rows (those of its numbers): its list's row count, not its table's. nil in a schema
    /// cached before it was read.
    public var rowCount: Int?
  }
  /// Core Data's entities by number (`Z_ENT`): each one's name and its root's table, so that a
  /// join table's columns (`Z_2TAGS.Z_5TAGS`) name the entities they hold. nil for an app's
  /// schema, and in a schema cached before it was read.
  public var coreDataNumbers: [Int: NumberedEntity]? = nil

  /// An entity of Z_PRIMARYKEY: its name and the table its rows are in.
  public struct NumberedEntity: Sendable, Equatable, Codable {
    public var name: String
    public var table: String
  }
  /// How the rows were drawn, for a database `generate --like` wrote; nil for a user's own.
  public var synthetic: String? = nil
  /// Read from a PostgreSQL server's schema rather than a SQLite file.
  public var onServer = false

  /// The table named `name`, whatever its case.
  public func table(_ name: String) -> Table? { tables.first { $0.name.lowercased() == name.lowercased() } }

  /// The indexes Core Data created for the model's fetch indexes on the table of `entity`
  /// (its own, or its tree's root's), in the file's order; empty for an app's schema.
  /// O(tables + indexes).
  public func fetchIndexes(on entity: String) -> [String] {
    guard flavour == .coreData else { return [] }
    let name = coreDataSubentities[entity]?.table ?? coreDataEntities.first { $0.value == entity }?.key
    return name.flatMap(table)?.indexes.map(\.name).filter(CoreDataNames.isFetchIndex) ?? []
  }

  /// Reads the schema through `queue`. O(rows × columns): one scan per table counts each
  /// column's storage classes and NULLs.
  static func read(_ queue: DatabaseQueue, path: String) throws -> DatabaseSchema {
    try queue.read { db in
      let names = try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      let isCoreData = names.contains("Z_PRIMARYKEY") && names.contains("Z_METADATA")
      var schema = DatabaseSchema(path: path, flavour: isCoreData ? .coreData : .app, tables: [])
      let synthetic = try LikeGeneration.marker(db)
      // A full-text index's virtual table and the shadow tables SQLite keeps for it.
      let kinds = try Dictionary(
        Row.fetchAll(
          db, sql: "SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND type IN ('virtual', 'shadow')"
        )
        .map { (row: Row) -> (String, String) in (row[0], row[1]) }, uniquingKeysWith: { a, _ in a })
      // Core Data's bookkeeping (Z_PRIMARYKEY, Z_METADATA, Z_MODELCACHE) is not read; its
      // many-to-many join tables (`Z_2TAGS`) are, as relationships.
      for name in names
      where !(isCoreData && name.hasPrefix("Z_") && name.dropFirst(2).first?.isNumber != true)
        && !(synthetic != nil && name == LikeGeneration.markerTable)
      {
        if let kind = kinds[name] {
          let why =
            kind == "virtual"
            ? "a virtual table (CREATE VIRTUAL TABLE, such as a full-text index): FetchBench lists stored tables"
            : "a shadow table SQLite keeps for a virtual table (a full-text index's storage), not a list of the app's"
          schema.tables.append(
            Table(name: name, primaryKey: "", columns: [], foreignKeys: [], indexes: [], rowCount: 0, unlistable: why))
          continue
        }
        // GRDB's schema queries put a name in quotes without doubling the quotes it holds.
        guard !name.contains("\"") else {
          schema.tables.append(
            Table(
              name: name, primaryKey: "", columns: [], foreignKeys: [], indexes: [], rowCount: 0,
              unlistable:
                """
                its name holds a double quote, which the SQLite library FetchBench reads schemas through cannot \
                name; rename the table to list it
                """
            ))
          continue
        }
        schema.tables.append(try table(name, db))
      }
      schema.synthetic = synthetic
      if isCoreData { try schema.readEntities(db) }
      return schema
    }
  }

  /// Z_PRIMARYKEY's entities: a root's table named after it (`ZFLIGHT` → `Flight`), each
  /// sub-entity in its root's table with the numbers of its rows. O(entities × depth).
  mutating func readEntities(_ db: Database) throws {
    var entities: [Int: (name: String, parent: Int)] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") {
      // A NULL or non-text name (a damaged or hand-made store) names no entity.
      guard let number = Int.fromDatabaseValue(row[0]), let name = String.fromDatabaseValue(row[1]) else { continue }
      entities[number] = (name, Int.fromDatabaseValue(row[2]) ?? 0)
    }
    func ancestors(_ number: Int) -> [Int] {
      var out: [Int] = []
      var next = entities[number]?.parent ?? 0
      while next != 0, let e = entities[next], !out.contains(next) {
        out.append(next)
        next = e.parent
      }
      return out
    }
    var numbered: [Int: NumberedEntity] = [:]
    // Each shared table's rows by entity number, read once: one query per table.
    var rowsByNumber: [String: [Int: Int]] = [:]
    for (number, entity) in entities.sorted(by: { $0.key < $1.key }) {
      let lineage = ancestors(number)
      guard let root = lineage.last.flatMap({ entities[$0] }) else {
        if let t = table("Z" + entity.name.uppercased()) {
          coreDataEntities[t.name] = entity.name
          numbered[number] = NumberedEntity(name: entity.name, table: t.name)
        }
        continue
      }
      guard let t = table("Z" + root.name.uppercased()) else { continue }
      let numbers = entities.keys.filter { $0 == number || ancestors($0).contains(number) }.sorted()
      if rowsByNumber[t.name] == nil {
        rowsByNumber[t.name] = Dictionary(
          try Row.fetchAll(db, sql: "SELECT Z_ENT, count(*) FROM \(t.name.sqlName) GROUP BY Z_ENT").compactMap { row in
            Int.fromDatabaseValue(row[0]).map { ($0, Int.fromDatabaseValue(row[1]) ?? 0) }
          }, uniquingKeysWith: +)
      }
      coreDataSubentities[entity.name] = Subentity(
        table: t.name, numbers: numbers, lineage: [number] + lineage.dropLast(),
        rowCount: numbers.reduce(0) { $0 + (rowsByNumber[t.name]?[$1] ?? 0) })
      numbered[number] = NumberedEntity(name: entity.name, table: t.name)
    }
    coreDataNumbers = numbered
    coreDataRowsByNumber = rowsByNumber
  }

  static func table(_ name: String, _ db: Database) throws -> Table {
    let indexes = try SQLiteSchema.indexes(on: name, db).map {
      Index(name: $0.name, columns: $0.columns, unique: $0.unique)
    }
    let uniqueColumns = Set(indexes.filter { $0.unique && $0.columns.count == 1 }.map { $0.columns[0] })
    var seen = Set<String>()
    // A key declared twice (on the column and for the table) is one relationship.
    let foreignKeys = try SQLiteSchema.foreignKeys(on: name, db).compactMap { fk -> ForeignKey? in
      guard fk.originColumns.count == 1, seen.insert(fk.originColumns[0]).inserted else { return nil }
      return ForeignKey(
        column: fk.originColumns[0], destinationTable: fk.destinationTable, destinationColumn: fk.destinationColumns[0],
        unique: uniqueColumns.contains(fk.originColumns[0]))
    }
    // table_xinfo's `hidden` is 2 or 3 for a generated column (GRDB's column list does not say).
    let generated = try Set(
      String.fetchAll(db, sql: "SELECT name FROM pragma_table_xinfo(?) WHERE hidden IN (2, 3)", arguments: [name]))
    var columns = try SQLiteSchema.columns(in: name, db).map {
      Column(name: $0.name, declaredType: $0.type, generated: generated.contains($0.name))
    }
    let rowCount = try countStorage(of: &columns, in: name, db)
    var table = Table(
      name: name, primaryKey: try SQLiteSchema.rowIDColumn(of: name, db), columns: columns, foreignKeys: foreignKeys,
      indexes: indexes,
      rowCount: rowCount)
    table.triggers = try String.fetchAll(
      db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name", arguments: [name]
    )
    return table
  }

  /// One scan of `table` per 300 columns (SQLite returns at most 2,000 columns a row): its
  /// row count, and each column's storage classes, NULLs and texts holding a NUL byte.
  static func countStorage(of columns: inout [Column], in table: String, _ db: Database) throws -> Int {
    let classes = ["integer", "real", "text", "blob", "null"]
    var count = 0
    for chunk in stride(from: 0, to: max(columns.count, 1), by: 300) {
      let indices = chunk..<min(chunk + 300, columns.count)
      let sums = indices.flatMap { i in
        let name = columns[i].name.sqlName
        return classes.map { "COALESCE(SUM(typeof(\(name)) = '\($0)'), 0)" }
          + ["COALESCE(SUM(typeof(\(name)) = 'text' AND instr(\(name), char(0)) > 0), 0)"]
      }
      guard
        let row = try Row.fetchOne(db, sql: "SELECT count(*)\(sums.map { ", " + $0 }.joined()) FROM \(table.sqlName)")
      else { return 0 }
      for (k, i) in indices.enumerated() {
        let base = 1 + k * (classes.count + 1)
        columns[i].integers = row[base]
        columns[i].reals = row[base + 1]
        columns[i].texts = row[base + 2]
        columns[i].blobs = row[base + 3]
        columns[i].nulls = row[base + 4]
        columns[i].textsWithNUL = row[base + 5]
      }
      count = row[0]
    }
    return count
  }
}

extension DatabaseSchema.Column {
  /// The attribute type its values call for: text when any value is text, a double when any
  /// is real, an integer when all are; a column of NULLs only goes by its declared type. Nil
  /// for a column holding blobs, which no list sorts or shows.
  public var attributeType: AttributeType? {
    switch serverType {
    case .attribute(let t): return t
    case .unread: return nil
    case nil: break
    }
    guard blobs == 0 else { return nil }
    if texts > 0 { return .string }
    if reals > 0 { return .double }
    if integers > 0 { return .integer }
    switch Affinity(declaredType: declaredType) {
    case .integer: return .integer
    case .real, .numeric: return .double
    case .text: return .string
    case .blob: return nil
    }
  }
}
