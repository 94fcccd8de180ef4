import Catalog
import Datasets
import FetchedResults
import Foundation
import GRDB
import SQLiteStore
import Vocabulary

/// A generated dataset in Core Data's physical schema (`generate --schema coredata`): the same
/// rows as Core Data's SQLite store would hold them. A table per entity, `Z` + the entity's
/// name in capitals (`ZFAILEDBANKINFO`), with `Z_PK` (the same IDs), `Z_ENT` and `Z_OPT`; an
/// attribute's column is `Z` + its name in capitals (`ZCLOSEDATE`), a date as seconds since
/// 2001-01-01 (declared `TIMESTAMP`); every to-one relationship is a column on its own side
/// holding the destination's `Z_PK` (a one-to-one on both sides: `ZFAILEDBANKINFO.ZDETAILS`
/// and `ZFAILEDBANKDETAILS.ZINFO`), each with Core Data's index; `Z_PRIMARYKEY` and
/// `Z_METADATA` name the entities. An attribute that only restates a relationship's key
/// (`infoID`) is the relationship's column. Read like any Core Data store (`UserDatabase`).
public enum CoreDataFile {
  /// Seconds from 1970-01-01 to 2001-01-01, Core Data's reference date.
  public static let referenceDate = 978_307_200.0

  /// `DIR/banks-244292-s1.coredata.sqlite`, beside the dataset's own file.
  public static func path(for location: DatasetLocation) -> String {
    var plain = location
    plain.indexes = []
    plain.database = nil
    return String(plain.sqlitePath.dropLast(".sqlite".count)) + ".coredata.sqlite"
  }

  /// Core Data's table of `entity`.
  public static func table(_ entity: Entity) -> String { "Z" + entity.name.uppercased() }

  /// Core Data's column of an attribute or a relationship named `name`.
  public static func column(_ name: String) -> String { "Z" + name.uppercased() }

  /// The to-one relationships of `kind`'s model by name, for the Core Data reader (their
  /// columns are named after the relationship, not the destination entity).
  public static func relationships(_ kind: DatasetKind) -> [String: String] {
    var out: [String: String] = [:]
    for e in kind.definition.model.entities { for r in e.relationships { out[r.name] = r.destination } }
    return out
  }

  /// Writes the Core Data file of `location`'s dataset from its SQLite file (which must
  /// exist), under a temporary name renamed into place. Deterministic: the same dataset gives
  /// the same bytes. O(rows × relationships) with an index on each relationship's key.
  public static func write(from location: DatasetLocation) throws -> String {
    let target = path(for: location)
    let tmp = try AtomicFile.createTemporaryFile(for: target)
    do {
      let queue = try DatabaseQueue(path: tmp)
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = DELETE")
        try db.execute(sql: "ATTACH DATABASE ? AS src", arguments: [SQLiteStore.immutableURI(location.sqlitePath)])
        try db.inTransaction {
          try fill(
            db, model: location.kind.definition.model,
            tag: "\(location.kind.rawValue)-\(location.rows)-s\(location.seed)")
          return .commit
        }
        try db.execute(sql: "DETACH DATABASE src")
      }
      try queue.close()
      try AtomicFile.commit(tmp, to: target)
    } catch {
      AtomicFile.discard(tmp)
      throw error
    }
    return target
  }

  /// Every entity's table and rows, Core Data's indexes and its bookkeeping tables.
  static func fill(_ db: Database, model: Model, tag: String) throws {
    try db.execute(
      sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
    try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
    try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, ?, NULL)", arguments: ["FETCHBENCH-" + tag.uppercased()])
    for (n, entity) in model.entities.enumerated() {
      let links = entity.relationships.map(\.sourceColumn).filter { $0 != entity.primaryKey }
      let attributes = entity.attributes.filter { !links.contains($0.column) }
      let declared =
        ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
        + entity.relationships.map { "\(column($0.name).sqlName) INTEGER" }
        + attributes.map { "\(column($0.name).sqlName) \(declaredType($0.type))" }
      try db.makeStatement(sql: "CREATE TABLE \(table(entity).sqlName) (\(declared.joined(separator: ", ")))").execute()
      // A relationship's value is the destination's primary key, whichever side holds the key.
      let keys = entity.relationships.map { r -> String in
        let destination = model.entities.first { $0.name == r.destination }!
        return
          """
          (SELECT d.\(destination.primaryKey.sqlName) FROM src.\(destination.table.sqlName) d WHERE \
          d.\(r.destinationColumn.sqlName) = t.\(r.sourceColumn.sqlName))
          """
      }
      let values = attributes.map { a in
        a.type == .date ? "t.\(a.column.sqlName) - \(referenceDate)" : "t.\(a.column.sqlName)"
      }
      let select = (["t.\(entity.primaryKey.sqlName)", "\(n + 1)", "1"] + keys + values).joined(separator: ", ")
      try db.makeStatement(
        sql: """
          INSERT INTO \(table(entity).sqlName) SELECT \(select) FROM src.\(entity.table.sqlName) t \
          ORDER BY t.\(entity.primaryKey.sqlName)
          """
      ).execute()
      for r in entity.relationships {
        let name = "\(table(entity))_\(column(r.name))_INDEX"
        try db.makeStatement(
          sql: "CREATE INDEX \(name.sqlName) ON \(table(entity).sqlName) (\(column(r.name).sqlName))"
        )
        .execute()
      }
      try db.makeStatement(
        sql: "INSERT INTO Z_PRIMARYKEY SELECT ?, ?, 0, COALESCE(MAX(Z_PK), 0) FROM \(table(entity).sqlName)"
      ).execute(arguments: [n + 1, entity.name])
    }
  }

  /// The type Core Data declares for an attribute of `type`.
  static func declaredType(_ type: AttributeType) -> String {
    switch type {
    case .string: "VARCHAR"
    case .integer, .bool: "INTEGER"
    case .double: "FLOAT"
    case .date: "TIMESTAMP"
    }
  }
}

/// Which physical schema a generated dataset is read in: FetchBench's own tables, or Core
/// Data's (`CoreDataFile`).
public enum PhysicalSchema: String, Sendable, CaseIterable, Codable {
  case fetchbench
  case coreData = "coredata"
}

extension CoreDataFile {
  /// The Core Data file of `location`'s dataset as a user's Core Data store, and the kind of
  /// its list, registered as `KIND-coredata` sorted and sectioned as the dataset's default
  /// list. Throws, with the command that writes it, when the file is missing.
  public static func open(_ location: DatasetLocation) throws -> (database: UserDatabase, kind: DatasetKind) {
    let path = path(for: location)
    guard FileManager.default.fileExists(atPath: path) else {
      throw HarnessError.missingDataset(
        path,
        hint:
          """
          fetchbench generate --dataset \(location.kind.rawValue) --rows \(location.rows) --seed \(location.seed) \
          --datasets \(location.directory) --schema coredata
          """
      )
    }
    let list = self.list(location)
    return (list.database, try list.register(sort: nil, section: nil).kind)
  }

  /// Writes the Core Data file of `location`'s dataset unless it is there, generating the
  /// dataset's own file first when that is missing too. Checked against the manifest as any
  /// dataset is.
  public static func generateIfMissing(_ location: DatasetLocation) throws {
    guard !FileManager.default.fileExists(atPath: path(for: location)) else { return }
    var request = GenerationRequest(
      datasets: [location.kind], rows: location.rows, seed: location.seed, outDirectory: location.directory,
      writeCSV: false,
      ifMissing: true)
    request.verification = .contents
    _ = try Generation.run(request, progress: ProgressLine())
    _ = try write(from: location)
  }

  /// The dataset's list over its Core Data file, as a run's cases carry it to their processes.
  public static func list(_ location: DatasetLocation) -> UserList {
    let request = location.kind.definition.defaultRequest(batchSize: 0)
    var list = UserList(
      database: UserDatabase(path: path(for: location), relationships: relationships(location.kind)),
      entity: request.entityName)
    list.kindName = location.kind.rawValue + CoreDataNames.kindSuffix
    list.defaultSort = request.sortDescriptors
    list.defaultSection = location.kind.definition.sectionKeyPath
    list.prefetch = request.relationshipKeyPathsForPrefetching
    list.cells = location.kind.definition.cellKeyPaths
    return list
  }
}
