import Catalog
import Datasets
import FetchedResults
import Foundation
import GRDB
import SQLiteStore
import TextFormatting
import Vocabulary

/// `generate --like`: a synthetic database of N rows of the user's list entity whose columns
/// follow the user's own: each column's NULL share and tie share (the share of non-NULL rows
/// that repeat a value of an earlier row), values drawn from the column's own, and each to-one
/// relationship's fan-out (the destination tables scaled by the same factor, each destination
/// row as popular as a random one of the user's). The same tables, columns, declared types and
/// indexes; a Core Data store stays one. Deterministic for a seed.
public struct LikeGeneration: Sendable {
  public var source: UserDatabase
  public var entity: String
  public var rows: Int
  public var seed: UInt64
  /// The new file; nothing may be there.
  public var out: String

  public init(source: UserDatabase, entity: String, rows: Int, seed: UInt64, out: String) {
    (self.source, self.entity, self.rows, self.seed, self.out) = (source, entity, rows, seed, out)
  }

  /// The table that records how a synthetic database was drawn; not an entity.
  public static let markerTable = "fetchbench_synthetic"

  /// How the rows were drawn, when `db` holds FetchBench's marker: the table of that name
  /// with a `description` column (and an `origin`) and one row saying "synthetic: …". A
  /// user's own table of that name is an ordinary table, and the database is not called
  /// synthetic. O(1).
  static func marker(_ db: Database) throws -> String? { try drawing(db)?.description }

  /// The marker's row: how the rows were drawn and from what (`origin`; nil in a file
  /// written before it was recorded). O(1).
  static func drawing(_ db: Database) throws -> (description: String, origin: String?)? {
    guard try SQLiteSchema.tableExists(markerTable, db) else { return nil }
    let columns = try SQLiteSchema.columns(in: markerTable, db).map(\.name)
    guard columns == ["description"] || columns == ["description", "origin"] else { return nil }
    let origin = columns.count == 2 ? ", origin" : ""
    let rows = try Row.fetchAll(db, sql: "SELECT description\(origin) FROM \(markerTable) LIMIT 2")
    guard rows.count == 1, let text = String.fromDatabaseValue(rows[0][0]), text.hasPrefix("synthetic: ") else {
      return nil
    }
    return (text, columns.count == 2 ? String.fromDatabaseValue(rows[0][1]) : nil)
  }

  /// What the rows are drawn from: the source's bytes, the entity, the row count and the
  /// seed. O(source's bytes).
  func origin() throws -> String { "\(try source.sha256()) \(entity) \(rows) s\(seed)" }

  /// The marker's row of a database FetchBench drew at `out` earlier; nil when nothing is
  /// there or something FetchBench did not write. Opened immutable: never written. O(1).
  static func earlierDrawing(at out: String) -> (description: String, origin: String?)? {
    guard DatasetFile.entry(at: out) == .file else { return nil }
    var config = Configuration()
    config.readonly = true
    guard let queue = try? DatabaseQueue(path: SQLiteStore.immutableURI(out), configuration: config) else {
      return nil
    }
    defer { try? queue.close() }
    return (try? queue.read { try drawing($0) }) ?? nil
  }

  /// Writes the database under a temporary name and renames it into place, unless a database
  /// FetchBench drew from the same inputs is there (kept, `written` false); one it drew from
  /// others is replaced, and anything else there is refused. Memory and time O(source rows of
  /// the tables involved + rows).
  public func run() throws -> (written: Bool, description: String) {
    let origin = try origin()
    let earlier = Self.earlierDrawing(at: out)
    if let earlier, earlier.origin == origin { return (false, earlier.description) }
    if earlier == nil { try AtomicFile.checkNewFile(out) }
    let schema = try source.schema()
    let (model, e) = try source.listModel(of: schema, entity: entity)
    let involved =
      [e] + e.relationships.compactMap { r in model.entities.first { $0.name == r.destination && $0.table != e.table } }
    // A sub-entity's rows share its root's table: the table keeps the user's mix of entities,
    // with exactly `rows` of this one.
    let mix = try schema.coreDataSubentities[e.name].map { try entityMix(of: $0, in: schema) }
    let sourceRows = max(1, mix?.sourceRows ?? schema.table(e.table)?.rowCount ?? 1)
    let factor = Double(rows) / Double(sourceRows)
    var counts = Dictionary(
      involved.map {
        (
          $0.table,
          $0.table == e.table ? rows : max(1, Int((Double(schema.table($0.table)?.rowCount ?? 1) * factor).rounded()))
        )
      },
      uniquingKeysWith: { a, _ in a })
    if let mix { counts[e.table] = mix.target.values.reduce(0, +) }
    let tmp = try AtomicFile.createTemporaryFile(for: out)
    do {
      try write(
        tmp, schema: schema, model: model, involved: involved, counts: counts, entityMix: mix?.target, origin: origin)
      if earlier == nil { try AtomicFile.commitNew(tmp, to: out) } else { try AtomicFile.commit(tmp, to: out) }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
      AtomicFile.discard(tmp)
      throw DatasetError.cannotWrite(
        path: out,
        reason:
          """
          the drawn rows break a constraint the source declares (\(error.message ?? "\(error)")): each column's \
          values are drawn on their own, so a CHECK or a UNIQUE over several columns may not hold; nothing was \
          written
          """
      )
    } catch {
      AtomicFile.discard(tmp)
      throw error
    }
    return (true, describe(counts: counts, list: e))
  }

  /// The rows of each entity number (`Z_ENT`) in the sub-entity's table: the user's (as the
  /// schema counted them), and the drawing's, where the sub-entity's numbers hold `rows` rows
  /// in the user's proportions and every other number is scaled alike. O(entity numbers).
  func entityMix(of sub: DatabaseSchema.Subentity, in schema: DatabaseSchema) throws -> (
    sourceRows: Int, target: [Int64: Int]
  ) {
    let user = (schema.coreDataRowsByNumber[sub.table] ?? [:]).map { (Int64($0.key), $0.value) }
    let own = Set(sub.numbers.map(Int64.init))
    let listRows = user.filter { own.contains($0.0) }.reduce(0) { $0 + $1.1 }
    guard listRows > 0 else {
      throw DatasetError.cannotWrite(
        path: out, reason: "\(entity) has no rows in \(source.path) to draw like; nothing was written")
    }
    let factor = Double(rows) / Double(listRows)
    var target: [Int64: Int] = [:]
    var given = 0
    let ownNumbers = user.filter { own.contains($0.0) }.sorted { $0.0 < $1.0 }
    for (i, (number, n)) in ownNumbers.enumerated() {
      // The last of the list's numbers takes what rounding left, so that they sum to `rows`.
      let share = i == ownNumbers.count - 1 ? rows - given : Int((Double(n) * factor).rounded())
      target[number] = share
      given += share
    }
    for (number, n) in user where !own.contains(number) { target[number] = Int((Double(n) * factor).rounded()) }
    return (listRows, target.filter { $0.value > 0 })
  }

  /// How the rows were drawn, for the marker table and the command's output.
  func describe(counts: [String: Int], list: Entity) -> String {
    let others = counts.filter { $0.key != list.table }.sorted { $0.key < $1.key }.map {
      "\($0.key) \($0.value.grouped)"
    }
    let table =
      list.name == list.table
      ? list.table : "\(list.name) in \(list.table) (\(counts[list.table]?.grouped ?? "?") rows)"
    return "synthetic: \(rows.grouped) rows of \(table) drawn like \(source.path) (seed \(seed))"
      + (others.isEmpty ? "" : "; related tables scaled alike: \(others.joined(separator: ", "))")
      + "; each column keeps its NULL share and tie share, values drawn from its own, each relationship its fan-out"
  }

  func write(
    _ path: String, schema: DatabaseSchema, model: Model, involved: [Entity], counts: [String: Int],
    entityMix: [Int64: Int]?, origin: String
  ) throws {
    var sourceConfig = Configuration()
    sourceConfig.readonly = true
    let sourceQueue = try DatabaseQueue(
      path: try source.readableURI(), configuration: sourceConfig)
    var config = Configuration()
    config.foreignKeysEnabled = false
    let target = try DatabaseQueue(path: path, configuration: config)
    let names = involved.map(\.table) + (schema.flavour == .coreData ? ["Z_PRIMARYKEY", "Z_METADATA"] : [])
    let (ddl, bookkeeping) = try sourceQueue.read { db in
      (
        try String.fetchAll(
          db,
          sql:
            """
            SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name IN \
            (\(names.map { _ in "?" }.joined(separator: ","))) ORDER BY type = 'index'
            """, arguments: StatementArguments(names)
        ),
        schema.flavour == .coreData ? try Row.fetchAll(db, sql: "SELECT * FROM Z_PRIMARYKEY") : []
      )
    }
    try target.write { db in
      for statement in ddl { try db.makeStatement(sql: statement).execute() }
      if schema.flavour == .coreData {
        for row in bookkeeping {
          try db.makeStatement(
            sql: "INSERT INTO Z_PRIMARYKEY VALUES (\(row.columnNames.map { _ in "?" }.joined(separator: ",")))"
          ).execute(arguments: StatementArguments(row.databaseValues))
        }
        try db.execute(sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID) VALUES (1, 'fetchbench-synthetic')")
      }
      try db.makeStatement(sql: "CREATE TABLE \(Self.markerTable) (description TEXT NOT NULL, origin TEXT)").execute()
    }
    for (i, entity) in involved.enumerated() {
      var table = try sourceQueue.read { db in
        try TableProfile(entity, model: model, involved: involved, schema: schema, db)
      }
      if i == 0, let entityMix { table.entityMix = entityMix }
      var random = SeededRandom(seed: seed, stream: 700 + UInt64(i), index: 0)
      try table.fill(target, rows: counts[entity.table] ?? 1, counts: counts, random: &random)
    }
    try target.write { db in
      try db.makeStatement(sql: "INSERT INTO \(Self.markerTable) VALUES (?, ?)").execute(arguments: [
        describe(counts: counts, list: involved[0]), origin,
      ])
      // The next primary key Core Data allocates follows the rows written.
      for entity in involved where schema.flavour == .coreData {
        guard let name = schema.coreDataEntities[entity.table] else { continue }
        try db.execute(
          sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = ?", arguments: [counts[entity.table] ?? 0, name])
      }
    }
    try target.close()
  }
}

/// What one table's rows look like: each column's values, NULL share and tie share, and for a
/// foreign key into another table written, how many rows point at each destination row.
struct TableProfile {
  struct Column {
    var name: String
    var values: [DatabaseValue]
    var nullShare: Double
    var tieShare: Double
    var unique: Bool
    /// The destination table of a to-one relationship written alongside (this table itself
    /// for a self-reference), and its rows' child counts in the user's data (zeros included).
    var destination: (table: String, childCounts: [Int])?
    /// Core Data's bookkeeping: `Z_ENT` keeps the user's entity numbers, `Z_OPT` is 1, as for
    /// rows saved once.
    var bookkeeping: Bookkeeping?
  }

  enum Bookkeeping { case entity, version }

  let table: String
  let primaryKey: String
  var columns: [Column] = []
  /// The rows of each `Z_ENT` to write, in place of numbers drawn from the user's: a
  /// sub-entity's list holds exactly the rows asked for.
  var entityMix: [Int64: Int]? = nil

  init(_ entity: Entity, model: Model, involved: [Entity], schema: DatabaseSchema, _ db: Database) throws {
    table = entity.table
    primaryKey = entity.primaryKey
    let read = schema.table(entity.table)
    let uniqueColumns = Set((read?.indexes ?? []).filter { $0.unique && $0.columns.count == 1 }.map { $0.columns[0] })
    // A generated column is computed by SQLite from the columns drawn, as in the user's file.
    for c in read?.columns ?? [] where c.name != entity.primaryKey && !c.generated {
      let all = try DatabaseValue.fetchAll(db, sql: "SELECT \(c.name.sqlName) FROM \(table.sqlName)")
      let values = all.filter { !$0.isNull }
      let distinct = Set(values).count
      var column = Column(
        name: c.name, values: values, nullShare: all.isEmpty ? 0 : Double(all.count - values.count) / Double(all.count),
        tieShare: values.isEmpty ? 0 : 1 - Double(distinct) / Double(values.count),
        unique: uniqueColumns.contains(c.name))
      if schema.flavour == .coreData { column.bookkeeping = ["Z_ENT": .entity, "Z_OPT": .version][c.name] }
      if let r = entity.relationships.first(where: { $0.sourceColumn == c.name }),
        let destination = involved.first(where: { $0.name == r.destination }),
        r.destinationColumn == destination.primaryKey
      {
        let counts = try Int.fetchAll(
          db,
          sql: """
            SELECT (SELECT count(*) FROM \(table.sqlName) s WHERE s.\(c.name.sqlName) = \
            d.\(destination.primaryKey.sqlName))
            FROM \(destination.table.sqlName) d
            """)
        column.destination = (destination.table, counts)
      }
      columns.append(column)
    }
  }

  func fill(_ target: DatabaseQueue, rows: Int, counts: [String: Int], random: inout SeededRandom) throws {
    var generated = try columns.map { c in try values(of: c, rows: rows, counts: counts, random: &random) }
    let names = [primaryKey] + columns.map(\.name)
    try target.write { db in
      let insert = try db.makeStatement(
        sql:
          """
          INSERT INTO \(table.sqlName) (\(names.map(\.sqlName).joined(separator: ","))) VALUES \
          (\(names.map { _ in "?" }.joined(separator: ",")))
          """
      )
      for row in 0..<rows {
        var arguments: [DatabaseValue] = [Int64(row + 1).databaseValue]
        for i in generated.indices { arguments.append(generated[i][row]) }
        try insert.execute(arguments: StatementArguments(arguments))
      }
    }
    generated.removeAll()
  }

  /// A column's values for `rows` rows.
  func values(of c: Column, rows: Int, counts: [String: Int], random: inout SeededRandom) throws -> [DatabaseValue] {
    if let destination = c.destination {
      return keys(of: c, into: destination, rows: rows, count: counts[destination.table] ?? 1, random: &random)
    }
    if c.bookkeeping == .entity, let entityMix {
      var numbers = entityMix.sorted { $0.key < $1.key }.flatMap {
        Array(repeating: $0.key.databaseValue, count: $0.value)
      }
      for i in stride(from: numbers.count - 1, to: 0, by: -1) { numbers.swapAt(i, Int(random.below(UInt64(i + 1)))) }
      return numbers
    }
    if let kept = c.bookkeeping {
      return (0..<rows).map { _ in kept == .entity ? random.pick(c.values) : Int64(1).databaseValue }
    }
    var out: [DatabaseValue] = []
    out.reserveCapacity(rows)
    var emitted: [DatabaseValue] = []
    var fresh = FreshValues()
    for _ in 0..<rows {
      if c.values.isEmpty || random.chance(c.nullShare) {
        out.append(.null)
      } else if !emitted.isEmpty && !c.unique && random.chance(c.tieShare) {
        out.append(emitted[Int(random.below(UInt64(emitted.count)))])
      } else {
        let v = fresh.next(random.pick(c.values))
        emitted.append(v)
        out.append(v)
      }
    }
    return out
  }

  /// Foreign keys: each destination row as popular as a random one of the user's (its child
  /// count), each row pointing at one drawn by popularity; a UNIQUE key (one-to-one) points at
  /// distinct rows.
  func keys(
    of c: Column, into destination: (table: String, childCounts: [Int]), rows: Int, count: Int,
    random: inout SeededRandom
  ) -> [DatabaseValue] {
    if c.unique {
      var ids = Array(1...count)
      for i in stride(from: ids.count - 1, to: 0, by: -1) { ids.swapAt(i, Int(random.below(UInt64(i + 1)))) }
      var next = 0
      return (0..<rows).map { _ in
        guard !random.chance(c.nullShare), next < ids.count else { return .null }
        defer { next += 1 }
        return Int64(ids[next]).databaseValue
      }
    }
    let weights = (0..<count).map { _ in
      Double(destination.childCounts.isEmpty ? 1 : random.pick(destination.childCounts))
    }
    var cumulative: [Double] = []
    var total = 0.0
    for w in weights {
      total += w
      cumulative.append(total)
    }
    return (0..<rows).map { _ in
      guard !random.chance(c.nullShare) else { return .null }
      guard total > 0 else { return Int64(1 + random.below(UInt64(count))).databaseValue }
      let u = random.unit() * total
      var lo = 0
      var hi = cumulative.count - 1
      while lo < hi {
        let mid = (lo + hi) / 2
        if cumulative[mid] > u { hi = mid } else { lo = mid + 1 }
      }
      return Int64(lo + 1).databaseValue
    }
  }
}

/// Values drawn from a column's own that no earlier draw took: the value itself the first
/// time, then its k-th neighbour (an integer stepped by k either way, a real moved by k
/// millionths, a text with k appended). Each value remembers how far its neighbours went, so
/// a million draws from a hundred values stay linear; infinities and NaN are kept as they are
/// (no neighbour of them is finite), and no step can overflow.
package struct FreshValues {
  private var seen = Set<DatabaseValue>()
  private var steps: [DatabaseValue: Int] = [:]

  package init() {}

  /// Amortized O(1) per draw.
  package mutating func next(_ v: DatabaseValue) -> DatabaseValue {
    if seen.insert(v).inserted { return v }
    var k = steps[v, default: 0]
    defer { steps[v] = k }
    while true {
      k += 1
      let candidate = Self.neighbour(v, k)
      guard let candidate else { return v }
      if seen.insert(candidate).inserted { return candidate }
    }
  }

  /// The k-th neighbour of `v`, nil when it has none (NULL, a blob, a non-finite real).
  package static func neighbour(_ v: DatabaseValue, _ k: Int) -> DatabaseValue? {
    let offset = Int64((k + 1) / 2)
    switch v.storage {
    case .int64(let n):
      // Wrapping: a neighbour of Int64.max is found below it, never past it.
      let (up, over) = n.addingReportingOverflow(offset)
      let (down, under) = n.subtractingReportingOverflow(offset)
      if k % 2 == 1 { return (over ? down : up).databaseValue }
      return (under ? up : down).databaseValue
    case .double(let d) where d.isFinite:
      let step = Double(offset) * 1e-6 * max(1, abs(d))
      let x = k % 2 == 1 ? d + step : d - step
      return (x.isFinite ? x : (k % 2 == 1 ? d - step : d + step)).databaseValue
    case .string(let s):
      return "\(s) \(k + 1)".databaseValue
    default:
      return nil
    }
  }
}
