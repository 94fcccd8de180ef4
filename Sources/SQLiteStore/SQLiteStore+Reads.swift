import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

// Reads: the ID list, rows by ID, full fetch, counts and sections.
extension SQLiteStore {

  public func fetchIDs(_ request: ResolvedRequest) throws -> [Int64] {
    if plan == .coreData { return try coreDataIDs(request) }
    let sql = SQLBuilder(request)
    var ids: [Int64] = []
    try stepRows(sql.idQuery, sql.arguments) { ids.append(sqlite3_column_int64($0, 0)) }
    return ids
  }

  /// One query: the ID query with the section key beside each ID, counted by its runs. A text
  /// key is compared as bytes with the run's first, so only a new section allocates a string.
  public func fetchIDsAndSections(_ request: ResolvedRequest) throws -> (ids: [Int64], sections: [SectionCount]) {
    // Core Data: the ID query, then the grouped count.
    if plan == .coreData { return (try coreDataIDs(request), try coreDataSectionCounts(request)) }
    guard let section = request.section else {
      throw FetchError.invalidRequest("section counts need a section key path")
    }
    let sql = SQLBuilder(request)
    let type = section.attribute.type
    var ids: [Int64] = []
    var sections: [SectionCount] = []
    var runType: Int32 = -1
    var runText: [UInt8] = []
    try stepRows(sql.idAndSectionQuery, sql.arguments) { raw in
      ids.append(sqlite3_column_int64(raw, 0))
      let columnType = sqlite3_column_type(raw, 1)
      if columnType == SQLITE_TEXT {
        let n = Int(sqlite3_column_bytes(raw, 1))
        let text = UnsafeRawBufferPointer(start: sqlite3_column_text(raw, 1), count: n)
        if runType == SQLITE_TEXT, runText.elementsEqual(text) {
          sections[sections.count - 1].count += 1
          return
        }
        runText = Array(text)
      } else if columnType == runType, sections.last?.value == Self.rawValue(raw, 1, type) {
        sections[sections.count - 1].count += 1
        return
      }
      runType = columnType
      sections.append(SectionCount(value: Self.rawValue(raw, 1, type), count: 1))
    }
    return (ids, sections)
  }

  /// Runs a read statement, stepping it through the C API: converting each of 244k IDs
  /// through DatabaseValue cost 1.6× the floor on a join-free query. One query.
  func stepRows(_ query: String, _ arguments: [Value], _ row: (OpaquePointer) -> Void) throws {
    try read { db in
      let statement = try db.cachedStatement(sql: query)
      statement.setUncheckedArguments(StatementArguments(arguments.map(Self.databaseValue)))
      counters.queries += 1
      let raw = statement.sqliteStatement
      defer { sqlite3_reset(raw) }
      while true {
        let rc = sqlite3_step(raw)
        if rc == SQLITE_DONE { break }
        guard rc == SQLITE_ROW else {
          throw DatabaseError(
            resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        row(raw)
      }
    }
  }

  public func fetchDestination(of relationship: Relationship, key: Int64) throws -> [Value]? {
    if plan == .coreData { return try coreDataDestination(of: relationship, key: key) }
    let destination = try model.entity(relationship.destination)
    var out: [Value]?
    try stepRows(SQLBuilder.faultQuery(destination, matching: relationship.destinationColumn), [.integer(key)]) { raw in
      out = destination.attributes.enumerated().map { i, a in Self.rawValue(raw, Int32(i + 1), a.type) }
    }
    if out != nil { counters.rowsMaterialized += 1 }
    return out
  }

  public func fetchElements(of relationship: ToManyRelationship, keys: [Int64]) throws -> [Int64: [FetchedObject]] {
    guard !keys.isEmpty else { return [:] }
    let destination = try model.entity(relationship.destination)
    let layout = try FetchRequest(entityName: destination.name).resolve(in: model).rowLayout
    // Up to 999 keys bound one by one, more as one JSON array.
    let many = keys.count > 999
    let arguments: [Value] =
      many ? [.string("[" + keys.map(String.init).joined(separator: ",") + "]")] : keys.map { .integer($0) }
    let count = many ? nil : keys.count
    // Where the owner's key, the element's ID and its first attribute sit in a row.
    let sql: String
    let (ownerColumn, idColumn, first): (Int32, Int32, Int32)
    if plan == .coreData {
      let versioned = isVersioned(destination.table)
      sql = CoreDataStatements.elementsQuery(relationship, destination, count: count, versioned: versioned)
      (idColumn, first) = (1, versioned ? 3 : 2)
      ownerColumn = first + Int32(destination.attributes.count)
    } else {
      sql = SQLBuilder.elementsQuery(relationship, destination, count: count)
      (ownerColumn, idColumn, first) = (0, 1, 2)
    }
    var out: [Int64: [FetchedObject]] = [:]
    var rows = 0
    try stepRows(sql, arguments) { raw in
      let values = destination.attributes.enumerated().map { i, a in Self.rawValue(raw, first + Int32(i), a.type) }
      out[sqlite3_column_int64(raw, ownerColumn), default: []].append(
        FetchedObject(id: sqlite3_column_int64(raw, idColumn), values: values, layout: layout))
      rows += 1
    }
    counters.rowsMaterialized += rows
    return out
  }

  public func fetchJoinRows(_ table: JoinTable) throws -> [(source: Int64, destination: Int64)] {
    var out: [(source: Int64, destination: Int64)] = []
    try stepRows(SQLBuilder.joinRowsQuery(table), []) { raw in
      guard sqlite3_column_type(raw, 0) != SQLITE_NULL, sqlite3_column_type(raw, 1) != SQLITE_NULL else { return }
      out.append((sqlite3_column_int64(raw, 0), sqlite3_column_int64(raw, 1)))
    }
    return out
  }

  public func fetchObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
    guard !ids.isEmpty else { return [] }
    if plan == .coreData { return try coreDataObjects(request, ids: ids) }
    if batchCache?.request != request.request {
      batchCache = (request.request, request.rowLayout, [:])
    }
    let layout = batchCache!.layout
    return try read { db in
      let statement: Statement
      if let cached = batchCache!.statements[ids.count] {
        statement = cached
      } else {
        statement = try db.makeStatement(sql: SQLBuilder(request).rowsByIDQuery(count: ids.count))
        batchCache!.statements[ids.count] = statement
      }
      let raw = statement.sqliteStatement
      sqlite3_reset(raw)
      for (k, id) in ids.enumerated() { sqlite3_bind_int64(raw, Int32(k + 1), id) }
      counters.queries += 1
      let out = try Self.rawObjects(raw, layout: layout, db: db)
      counters.rowsMaterialized += out.count
      return out
    }
  }

  /// One column of the current row, as the model's type.
  @inline(__always)
  static func rawValue(_ stmt: OpaquePointer, _ c: Int32, _ t: AttributeType) -> Value {
    switch sqlite3_column_type(stmt, c) {
    case SQLITE_NULL: return .null
    case SQLITE_INTEGER:
      let v = sqlite3_column_int64(stmt, c)
      switch t {
      case .bool: return .bool(v != 0)
      case .double: return .double(Double(v))
      case .date: return .date(Double(v))
      default: return .integer(v)
      }
    case SQLITE_FLOAT:
      let v = sqlite3_column_double(stmt, c)
      return t == .date ? .date(v) : .double(v)
    case SQLITE_TEXT: return .string(SQLiteText.string(stmt, c))
    default: return .null
    }
  }

  /// Reads rows (the id, then the layout's values) straight from a bound statement.
  static func rawObjects(_ stmt: OpaquePointer, layout: RowLayout, db: Database) throws -> [FetchedObject] {
    var out: [FetchedObject] = []
    let types = layout.types
    while true {
      let rc = sqlite3_step(stmt)
      if rc == SQLITE_DONE { break }
      guard rc == SQLITE_ROW else {
        throw DatabaseError(
          resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
      }
      var values: [Value] = []
      values.reserveCapacity(types.count)
      for (i, t) in types.enumerated() {
        let c = Int32(i + 1)
        switch sqlite3_column_type(stmt, c) {
        case SQLITE_NULL: values.append(.null)
        case SQLITE_INTEGER:
          let v = sqlite3_column_int64(stmt, c)
          switch t {
          case .bool: values.append(.bool(v != 0))
          case .double: values.append(.double(Double(v)))
          case .date: values.append(.date(Double(v)))
          default: values.append(.integer(v))
          }
        case SQLITE_FLOAT:
          let v = sqlite3_column_double(stmt, c)
          values.append(t == .date ? .date(v) : .double(v))
        case SQLITE_TEXT: values.append(.string(SQLiteText.string(stmt, c)))
        default: values.append(.null)
        }
      }
      out.append(FetchedObject(id: sqlite3_column_int64(stmt, 0), values: values, layout: layout))
    }
    sqlite3_reset(stmt)
    return out
  }

  public func fetchObjects(_ request: ResolvedRequest) throws -> [FetchedObject] {
    if plan == .coreData { return try coreDataObjects(request) }
    let sql = SQLBuilder(request)
    let layout = request.rowLayout
    return try read { db in
      let statement = try db.cachedStatement(sql: sql.fullQuery)
      statement.setUncheckedArguments(StatementArguments(sql.arguments.map(Self.databaseValue)))
      counters.queries += 1
      let out = try Self.rawObjects(statement.sqliteStatement, layout: layout, db: db)
      counters.rowsMaterialized += out.count
      return out
    }
  }

  public func count(_ request: ResolvedRequest) throws -> Int {
    if plan == .coreData { return try coreDataCount(request) }
    let sql = SQLBuilder(request)
    return try read { db in
      counters.queries += 1
      return try Int.fetchOne(
        db, sql: sql.countQuery, arguments: StatementArguments(sql.arguments.map(Self.databaseValue))) ?? 0
    }
  }

  public func sectionCounts(_ request: ResolvedRequest) throws -> [SectionCount] {
    if plan == .coreData { return try coreDataSectionCounts(request) }
    guard let section = request.section else {
      throw FetchError.invalidRequest("section counts need a section key path")
    }
    let sql = SQLBuilder(request)
    var out: [SectionCount] = []
    try stepRows(sql.sectionQuery, sql.arguments) { raw in
      out.append(
        SectionCount(value: Self.rawValue(raw, 0, section.attribute.type), count: Int(sqlite3_column_int64(raw, 1))))
    }
    return out
  }
}
