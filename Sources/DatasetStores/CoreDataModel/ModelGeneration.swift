import Catalog
import Datasets
import FetchedResults
import Foundation
import GRDB
import SQLiteStore
import TextFormatting
import Vocabulary

/// A Core Data store of a model's schema (`generate --model`): `rows` rows of one entity (an
/// abstract one's shared out among its concrete sub-entities), the rows its relationships
/// reach, every value stored as Core Data stores it, seeded and byte-deterministic.
public struct ModelGeneration {
  public var model: ModelFile
  public var entity: String
  public var rows: Int
  public var seed: UInt64
  public var out: String
  /// Row counts, NULL shares and fan-outs other than the defaults (`--population`).
  public var population: ModelPopulation

  public init(
    model: ModelFile, entity: String, rows: Int, seed: UInt64, out: String, population: ModelPopulation = .init()
  ) {
    (self.model, self.entity, self.rows, self.seed, self.out) = (model, entity, rows, seed, out)
    self.population = population
  }

  /// `FOLDER/MODEL-ENTITY-ROWS-sSEED[-pPOPULATION].coredata.sqlite`, the model named after
  /// its file, a population by its checksum.
  public static func path(
    _ model: String, entity: String, rows: Int, seed: UInt64, folder: String, population: ModelPopulation = .init()
  ) -> String {
    let name = DatabaseDataset.kindName(URL(fileURLWithPath: model).deletingPathExtension().lastPathComponent)
    let populated = population.checksum.isEmpty ? "" : "-p\(population.checksum)"
    return "\(folder)/\(name)-\(DatabaseDataset.kindName(entity))-\(rows)-s\(seed)\(populated).coredata.sqlite"
  }

  /// Each entity reached by a relationship holds a tenth of the rows of the first entity that
  /// reaches it (at least one): a folder of ten notes, a tag on ten of them.
  public static let fanOut = 10
  /// The share of an optional attribute's or to-one's values left NULL.
  public static let nullShare = 0.1

  /// The tag `Z_METADATA.Z_UUID` carries: the model's checksum and the inputs, so that a file
  /// of the same inputs is kept and one FetchBench did not write is never replaced.
  public var tag: String {
    ModelOrigin(
      checksum: String(model.checksum.prefix(16)), entity: entity, rows: rows, seed: seed,
      population: population.checksum
    ).tag
  }

  /// Writes the store (under a temporary name, renamed into place) unless a file of the same
  /// inputs is there; returns what it holds. O(rows × properties).
  public func run() throws -> (written: Bool, description: String) {
    guard let list = model.entity(entity) else {
      throw ModelFileError(
        path: model.path, problem: "declares no entity \(entity)",
        fix: "name one of: \(model.entities.map(\.name).joined(separator: ", "))"
      )
    }
    if FileManager.default.fileExists(atPath: out) {
      let existing = Self.tag(of: out)
      if existing == tag { return (false, "already generated from this model with these inputs") }
      guard existing?.hasPrefix(ModelOrigin.prefix) == true else {
        throw DatasetError.cannotWrite(
          path: out, reason: "something FetchBench did not write is there, and it is not replaced; name a new folder")
      }
    }
    let schema = CoreDataSchema(model)
    let counts = plan(list)
    guard counts[list.name] != nil || model.subentities(of: list).contains(where: { counts[$0.name] != nil }) else {
      throw ModelFileError(
        path: model.path, problem: "makes \(entity) abstract with no concrete sub-entity, so it can hold no row",
        fix: "name a concrete entity with --entity, or give \(entity) a concrete sub-entity")
    }
    let tmp = try AtomicFile.createTemporaryFile(for: out)
    do {
      let queue = try DatabaseQueue(path: tmp)
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = DELETE")
        try db.inTransaction {
          try fill(db, schema: schema, counts: counts)
          return .commit
        }
      }
      try queue.close()
      try AtomicFile.commit(tmp, to: out)
    } catch {
      AtomicFile.discard(tmp)
      throw error
    }
    let summary = schema.entities.compactMap { e in counts[e.name].map { "\(e.name) \($0.grouped)" } }
    return (true, ([summary.joined(separator: ", ") + " rows"] + schema.skipped).joined(separator: "; "))
  }

  /// How many rows each entity gets: the list's entity `rows`, shared out over it and its
  /// concrete sub-entities; each entity a relationship reaches, a `fanOut`th of its source's.
  func plan(_ list: EntityDeclaration) -> [String: Int] {
    var counts: [String: Int] = [:]
    // An entity counted once keeps its count: a relationship back to the list's parent
    // shares its rows among the parent's other sub-entities, not the list's.
    func share(_ e: EntityDeclaration, _ n: Int) {
      let concrete = ([e] + model.subentities(of: e)).filter { !$0.isAbstract && counts[$0.name] == nil }
      for (i, c) in concrete.enumerated() {
        counts[c.name, default: 0] += n / concrete.count + (i < n % concrete.count ? 1 : 0)
      }
    }
    share(list, rows)
    var queue = [(list, rows)]
    var reached: Set<String> = [list.name]
    while !queue.isEmpty {
      let (e, n) = queue.removeFirst()
      for member in [e] + model.subentities(of: e) {
        for r in model.properties(of: member).relationships where reached.insert(r.destination).inserted {
          guard let destination = model.entity(r.destination) else { continue }
          let m = population.entities[destination.name]?.rows ?? max(1, n / population.fanOut(r.name, of: member.name))
          share(destination, m)
          queue.append((destination, m))
        }
      }
    }
    return counts
  }

  func fill(_ db: Database, schema: CoreDataSchema, counts: [String: Int]) throws {
    for statement in schema.statements { try db.makeStatement(sql: statement).execute() }
    // Primary keys run 1… through each table, its entities in number order.
    var keys: [String: ClosedRange<Int>] = [:]
    for table in schema.tables where !table.entities.isEmpty {
      var next = 1
      for name in table.entities {
        let n = counts[name] ?? 0
        if n > 0 { keys[name] = next...(next + n - 1) }
        next += n
      }
    }
    func allKeys(_ name: String) -> [Int] {
      guard let e = model.entity(name) else { return [] }
      return ([e] + model.subentities(of: e)).flatMap { keys[$0.name].map(Array.init) ?? [] }
    }
    for table in schema.tables where !table.entities.isEmpty {
      for name in table.entities {
        guard let range = keys[name], let number = schema.entities.first(where: { $0.name == name })?.number else {
          continue
        }
        try insert(db, table: table, entity: name, number: number, keys: range, destinations: allKeys)
      }
    }
    for (table, owner, relationship) in joinTables(schema) {
      var random = SeededRandom(
        seed: seed, stream: 0x7A, index: UInt64(table.name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }))
      let (sources, targets) = (allKeys(owner), allKeys(relationship.destination))
      guard !targets.isEmpty else { continue }
      // A many-to-many that is its own inverse holds each pair both ways: A's friends include
      // B exactly when B's include A, read from either column.
      let reflexive = table.columns[1].name == CoreDataSchema.reflexive
      let statement = try db.makeStatement(
        sql:
          """
          INSERT\(reflexive ? " OR IGNORE" : "") INTO \(table.name.sqlName) VALUES \
          (\(Array(repeating: "?", count: table.columns.count).joined(separator: ", ")))
          """
      )
      for source in sources {
        var chosen = Set<Int>()
        for _ in 0..<random.below(4) { chosen.insert(targets[Int(random.below(UInt64(targets.count)))]) }
        for (position, target) in chosen.sorted().enumerated() {
          let order: [DatabaseValueConvertible] = table.columns.count > 2 ? [position + 1] : []
          try statement.execute(arguments: StatementArguments([source, target] + order))
          if reflexive { try statement.execute(arguments: StatementArguments([target, source] + order)) }
        }
      }
    }
    for e in schema.entities {
      let root = model.root(of: model.entity(e.name)!)
      // Z_MAX: the highest Z_PK of the table, on its root's row (sub-entities draw from it).
      let max =
        root.name == e.name
        ? ([root] + model.subentities(of: root)).compactMap { keys[$0.name]?.upperBound }.max() ?? 0 : 0
      try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (?, ?, ?, ?)", arguments: [e.number, e.name, e.parent, max])
    }
    try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, ?, NULL)", arguments: [tag])
  }

  /// The rows of one entity: its own and inherited properties' columns, the rest NULL.
  func insert(
    _ db: Database, table: CoreDataSchema.Table, entity name: String, number: Int, keys: ClosedRange<Int>,
    destinations: (String) -> [Int]
  ) throws {
    let entity = model.entity(name)!
    let properties = model.properties(of: entity)
    let ancestry = [name] + model.ancestors(of: entity)
    let lineage = Set(ancestry)
    let statement = try db.makeStatement(
      sql:
        """
        INSERT INTO \(table.name.sqlName) (\(table.columns.map(\.name.sqlName).joined(separator: ", "))) VALUES \
        (\(Array(repeating: "?", count: table.columns.count).joined(separator: ", ")))
        """
    )
    let shapes = Dictionary(
      uniqueKeysWithValues: properties.attributes.map { ($0.name, population.shape($0.name, of: ancestry)) })
    let ranks = shapes.compactMapValues(\.ranks)
    let targets = Dictionary(
      uniqueKeysWithValues: properties.relationships.filter { !$0.toMany }.map {
        ($0.name, destinations($0.destination))
      })
    for key in keys {
      var random = SeededRandom(seed: seed, stream: UInt64(number), index: UInt64(key))
      var values: [DatabaseValueConvertible?] = []
      for column in table.columns {
        switch column.name {
        case "Z_PK": values.append(key)
        case "Z_ENT": values.append(number)
        case "Z_OPT": values.append(1)
        default:
          guard let property = column.property, let dot = property.firstIndex(of: "."),
            lineage.contains(String(property[..<dot]))
          else {
            // An order key, or a sibling's column.
            values.append(column.name.hasPrefix("Z_FOK_") ? key * 1024 : nil)
            continue
          }
          let propertyName = String(property[property.index(after: dot)...])
          if let a = properties.attributes.first(where: { $0.name == propertyName }) {
            values.append(
              a.optional && random.unit() < population.nullShare(a.name, of: ancestry)
                ? nil : ModelValues.value(a, shape: shapes[a.name]!, ranks: ranks[a.name], key: key, random: &random))
          } else if let r = properties.relationships.first(where: { $0.name == propertyName }),
            let pool = targets[r.name], !pool.isEmpty
          {
            let optional = (r.minCount ?? 0) == 0
            values.append(
              optional && random.unit() < population.nullShare(r.name, of: ancestry)
                ? nil : pool[Int(random.below(UInt64(pool.count)))])
          } else {
            values.append(nil)
          }
        }
      }
      try statement.execute(arguments: StatementArguments(values))
    }
  }

  /// Each join table with the entity owning it and its relationship.
  func joinTables(_ schema: CoreDataSchema) -> [(CoreDataSchema.Table, String, RelationshipDeclaration)] {
    schema.tables.filter(\.entities.isEmpty).compactMap { table in
      guard let property = table.columns[1].property, let dot = property.firstIndex(of: ".") else { return nil }
      let owner = String(property[..<dot])
      let name = String(property[property.index(after: dot)...])
      return model.entity(owner).flatMap { e in e.relationships.first { $0.name == name } }.map { (table, owner, $0) }
    }
  }

  /// The tag in a file's `Z_METADATA`; nil when it has none (or is no SQLite file). Read
  /// immutable: a file FetchBench did not write gets no `-shm` or `-wal` beside it.
  public static func tag(of path: String) -> String? {
    guard
      let queue = try? DatabaseQueue(
        path: SQLiteStore.immutableURI(path),
        configuration: {
          var c = Configuration()
          c.readonly = true
          return c
        }())
    else { return nil }
    defer { try? queue.close() }
    return try? queue.read { db in try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1") }
  }
}
