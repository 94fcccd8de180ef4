#if PostgreSQL
  import FetchedResults
  import Foundation
  import Logging
  import NIOPosix
  import PostgresNIO
  import SQLQueries

  // Reads: the ID list as one array value, rows by ID, full fetch, counts and sections.
  extension PostgresStore {
    /// The request's SQL; a sort by a selector other than `compare:` is refused, naming the
    /// stores that measure it: PostgreSQL's ICU collations do not order as Foundation does.
    static func builder(_ request: ResolvedRequest) throws -> SQLBuilder {
      if let sort = request.sorts.first(where: { $0.selector != .compare && $0.selector != .localizedCompare }) {
        throw FetchError.store(
          """
          a sort by \(sort.keyPath.keyPath) with \(sort.selector.rawValue) is measured on the memory store and \
          SQLite; PostgreSQL's predefined ICU collations order as Foundation's localizedCompare: alone (the \
          case-insensitive and numeric ones need a collation created in the database): use --store memory,sqlite
          """)
      }
      if request.predicate?.folds.contains(.diacriticInsensitive) == true {
        throw FetchError.store(
          """
          a [d] string operator (diacritic-insensitive) is measured on the memory store and SQLite; PostgreSQL \
          folds no diacritics without the unaccent extension: use --store memory,sqlite
          """)
      }
      return SQLBuilder(request, dialect: .postgres)
    }

    /// The sorted IDs as one bigint[] value, `SELECT ARRAY(<the ID query>)`: the array keeps
    /// the subquery's ORDER BY order, and one row of n elements costs the client a fraction of
    /// n one-column rows, whose per-row protocol handling dominates fetching the IDs as rows
    /// (`fetchbench run --store postgres` times both: the floor's `floor_ids_ms` and
    /// `floor_ids_array_ms`).
    public func fetchIDs(_ request: ResolvedRequest) throws -> [Int64] {
      let sql = try Self.builder(request)
      let out = UncheckedBox([Int64]())
      counters.queries += 1
      try run("SELECT ARRAY(\(sql.idQuery))", sql.arguments) { row in
        try row.forEach { _, cell in out.value = try Self.int64Array(cell, url: self.url) }
      }
      return out.value
    }

    /// A one-dimensional bigint[] in binary form: ndim, has-null flag, element type, then per
    /// dimension its length and lower bound, then each element as length + 8 bytes. O(n).
    static func int64Array(_ cell: PostgresCell, url: PostgresURL) throws -> [Int64] {
      guard cell.format == .binary, cell.dataType == .int8Array, var b = cell.bytes else {
        return try cell.decode([Int64].self)
      }
      guard let ndim = b.readInteger(as: Int32.self), b.readInteger(as: Int32.self) != nil,
        b.readInteger(as: UInt32.self) != nil
      else { throw PostgresStoreError.query(url, "malformed bigint[]", "") }
      if ndim == 0 { return [] }
      guard ndim == 1, let count = b.readInteger(as: Int32.self), b.readInteger(as: Int32.self) != nil, count >= 0,
        b.readableBytes == Int(count) * 12
      else { throw PostgresStoreError.query(url, "unexpected bigint[] shape", "") }
      return b.withUnsafeReadableBytes { raw in
        [Int64](unsafeUninitializedCapacity: Int(count)) { out, n in
          for i in 0..<Int(count) {
            // Skip the element's length (always 8: the subquery's IDs are never NULL).
            out[i] = Int64(bigEndian: raw.loadUnaligned(fromByteOffset: i * 12 + 4, as: Int64.self))
          }
          n = Int(count)
        }
      }
    }

    public func fetchObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
      guard !ids.isEmpty else { return [] }
      let sql = try Self.builder(request)
      let layout = request.rowLayout
      counters.queries += 1
      // The batch fault has no predicate: the IDs are its only parameter.
      let out = try objects(sql.rowsByIDArrayQuery(parameter: 1), [], layout: layout, ids: Array(ids))
      counters.rowsMaterialized += out.count
      return out
    }

    public func fetchObjects(_ request: ResolvedRequest) throws -> [FetchedObject] {
      let sql = try Self.builder(request)
      counters.queries += 1
      let out = try objects(sql.fullQuery, sql.arguments, layout: request.rowLayout)
      counters.rowsMaterialized += out.count
      return out
    }

    public func fetchDestination(of relationship: Relationship, key: Int64) throws -> [Value]? {
      let destination = try FetchRequest(entityName: relationship.destination).resolve(in: model)
      let sql = SQLBuilder.faultQuery(destination.entity, matching: relationship.destinationColumn, dialect: .postgres)
      counters.queries += 1
      let row = try objects(sql, [.integer(key)], layout: destination.rowLayout).first
      if row != nil { counters.rowsMaterialized += 1 }
      return row?.values
    }

    public func fetchElements(of relationship: ToManyRelationship, keys: [Int64]) throws -> [Int64: [FetchedObject]] {
      guard !keys.isEmpty else { return [:] }
      let destination = try FetchRequest(entityName: relationship.destination).resolve(in: model)
      let sql = SQLBuilder.elementsQuery(relationship, destination.entity, count: nil, dialect: .postgres)
      // The owner's key reads as the row's ID, the element's ID as its first value.
      let layout = destination.rowLayout
      let rows = try objects(
        sql, [], layout: RowLayout(keys: ["id"] + layout.keys, types: [.integer] + layout.types), ids: keys)
      counters.queries += 1
      counters.rowsMaterialized += rows.count
      var out: [Int64: [FetchedObject]] = [:]
      for row in rows {
        guard case .integer(let id) = row.values[0] else { continue }
        out[row.id, default: []].append(FetchedObject(id: id, values: Array(row.values.dropFirst()), layout: layout))
      }
      return out
    }

    public func fetchJoinRows(_ table: JoinTable) throws -> [(source: Int64, destination: Int64)] {
      counters.queries += 1
      let rows = try objects(
        SQLBuilder.joinRowsQuery(table), [], layout: RowLayout(keys: ["destination"], types: [.integer]))
      return rows.compactMap { row in
        guard case .integer(let d) = row.values[0] else { return nil }
        return (row.id, d)
      }
    }

    func objects(_ text: String, _ arguments: [Value], layout: RowLayout, ids: [Int64]? = nil) throws
      -> [FetchedObject]
    {
      let out = UncheckedBox([FetchedObject]())
      let types = layout.types
      try run(text, arguments, ids: ids) { row in
        var values: [Value] = []
        values.reserveCapacity(types.count)
        var id: Int64 = 0
        try row.forEach { i, cell in
          if i == 0 { id = try Self.int64(cell) } else { values.append(try Self.value(cell, types[i - 1])) }
        }
        out.value.append(FetchedObject(id: id, values: values, layout: layout))
      }
      return out.value
    }

    public func count(_ request: ResolvedRequest) throws -> Int {
      let sql = try Self.builder(request)
      let out = UncheckedBox(0)
      counters.queries += 1
      try run(sql.countQuery, sql.arguments) { row in out.value = Int(try row[0].decode(Int64.self)) }
      return out.value
    }

    /// One statement (`SQLBuilder.idArraysBySectionQuery`): each section's count and IDs, the
    /// IDs concatenated in section order. One sort on the server, O(n) here.
    public func fetchIDsAndSections(_ request: ResolvedRequest) throws -> (ids: [Int64], sections: [SectionCount]) {
      guard let section = request.section else {
        throw FetchError.invalidRequest("section counts need a section key path")
      }
      let sql = try Self.builder(request)
      let type = section.attribute.type
      let out = UncheckedBox(([Int64](), [SectionCount]()))
      counters.queries += 1
      try run(sql.idArraysBySectionQuery, sql.arguments) { row in
        let ids = try Self.int64Array(row[2], url: self.url)
        out.value.1.append(SectionCount(value: try Self.value(row[0], type), count: Int(try Self.int64(row[1]))))
        out.value.0 += ids
      }
      return out.value
    }

    public func sectionCounts(_ request: ResolvedRequest) throws -> [SectionCount] {
      guard let section = request.section else {
        throw FetchError.invalidRequest("section counts need a section key path")
      }
      let sql = try Self.builder(request)
      let out = UncheckedBox([SectionCount]())
      counters.queries += 1
      try run(sql.sectionQuery, sql.arguments) { row in
        out.value.append(
          SectionCount(value: try Self.value(row[0], section.attribute.type), count: Int(try row[1].decode(Int64.self)))
        )
      }
      return out.value
    }
  }
#endif
