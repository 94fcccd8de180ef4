import FetchedResults
import PostgresStore

extension DatabaseSchema {
  /// Reads `schema` on the server at `url` in read-only transactions: tables, single-column
  /// integer primary keys, columns with their types, foreign keys and indexes from the
  /// catalogs, then one scan per table for its row count and each column's NULLs.
  /// O(rows × columns).
  static func read(_ url: PostgresURL, schema: String, shownAs path: String) throws -> DatabaseSchema {
    let admin = try PostgresAdmin(url: url)
    try admin.readOnly()
    let ns = PostgresAdmin.literal(schema)
    let names = try admin.column(
      """
      SELECT table_name::text FROM information_schema.tables WHERE table_schema = \(ns) AND table_type = 'BASE \
      TABLE' ORDER BY 1
      """
    )
    guard !names.isEmpty else {
      let schemas = try admin.column(
        """
        SELECT nspname::text FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' \
        ORDER BY 1
        """
      )
      throw UserDatabaseError.unreadable(
        path, "schema \(schema) has no tables; the schemas are: \(schemas.joined(separator: ", "))")
    }
    let catalog = try PostgresCatalog(admin, ns)
    var out = DatabaseSchema(path: path, flavour: .app, tables: [])
    out.onServer = true
    for name in names {
      var table = Table(
        name: name, primaryKey: catalog.primaryKeys[name], columns: catalog.columns[name] ?? [],
        foreignKeys: catalog.foreignKeys[name] ?? [], indexes: catalog.indexes[name] ?? [], rowCount: 0)
      if !PostgresCatalog.isNamed(name) {
        table.unlistable = PostgresCatalog.capitalsOnly
      }
      table.rowCount = try countNulls(of: &table, schema: schema, admin)
      out.tables.append(table)
    }
    return out
  }

  /// One scan of the table: its row count, and each attribute column's NULLs.
  static func countNulls(of table: inout Table, schema: String, _ admin: PostgresAdmin) throws -> Int {
    let counted = table.columns.indices.filter { table.columns[$0].attributeType != nil }
    let sums = counted.map { ", count(\(PostgresAdmin.identifier(table.columns[$0].name)))::text" }.joined()
    let from = PostgresAdmin.identifier(schema) + "." + PostgresAdmin.identifier(table.name)
    guard let row = try admin.rows("SELECT count(*)::text\(sums) FROM \(from)").first, let total = Int(row[0] ?? "")
    else { return 0 }
    for (k, i) in counted.enumerated() { table.columns[i].nulls = total - (Int(row[k + 1] ?? "") ?? total) }
    return total
  }
}

/// What the catalogs say of one schema's tables, by table name.
struct PostgresCatalog {
  var columns: [String: [DatabaseSchema.Column]] = [:]
  var primaryKeys: [String: String] = [:]
  var foreignKeys: [String: [DatabaseSchema.ForeignKey]] = [:]
  var indexes: [String: [DatabaseSchema.Index]] = [:]

  /// Four catalog queries. `ns`: the schema as an SQL literal.
  init(_ admin: PostgresAdmin, _ ns: String) throws {
    for r in try admin.rows(
      """
      SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns WHERE table_schema \
      = \(ns) ORDER BY table_name, ordinal_position
      """
    ) {
      guard let table = r[0], let name = r[1], let type = r[2] else { continue }
      var column = DatabaseSchema.Column(name: name, declaredType: type)
      column.serverType = Self.isNamed(name) ? Self.serverType(type) : .unread(Self.capitalsOnly)
      columns[table, default: []].append(column)
    }
    let keys = try admin.rows(
      """
      SELECT c.relname::text, a.attname::text, format_type(a.atttypid, NULL) FROM pg_index i
      JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
      WHERE n.nspname = \(ns) AND i.indisprimary AND i.indnatts = 1
      """)
    for r in keys where ["smallint", "integer", "bigint"].contains(r[2] ?? "") {
      if let table = r[0], let column = r[1] { primaryKeys[table] = column }
    }
    try readIndexes(admin, ns)
    try readForeignKeys(admin, ns)
  }

  mutating func readIndexes(_ admin: PostgresAdmin, _ ns: String) throws {
    let rows = try admin.rows(
      """
      SELECT c.relname::text, ic.relname::text, i.indisunique::text,
        array_to_string(ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(n, o)
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.n ORDER BY k.o), ',')
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = \(ns) ORDER BY 1, 2
      """)
    for r in rows {
      guard let table = r[0], let name = r[1] else { continue }
      let columns = (r[3] ?? "").split(separator: ",").map(String.init)
      indexes[table, default: []].append(DatabaseSchema.Index(name: name, columns: columns, unique: r[2] == "true"))
    }
  }

  mutating func readForeignKeys(_ admin: PostgresAdmin, _ ns: String) throws {
    let rows = try admin.rows(
      """
      SELECT c.relname::text, a.attname::text, fc.relname::text, fa.attname::text FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_class fc ON fc.oid = k.confrelid JOIN pg_namespace fn ON fn.oid = fc.relnamespace
      JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
      JOIN pg_attribute fa ON fa.attrelid = k.confrelid AND fa.attnum = k.confkey[1]
      WHERE k.contype = 'f' AND n.nspname = \(ns) AND fn.nspname = \(ns) AND array_length(k.conkey, 1) = 1
      ORDER BY 1, 2
      """)
    for r in rows {
      guard let table = r[0], let column = r[1], let destination = r[2], let destinationColumn = r[3] else { continue }
      let unique = (indexes[table] ?? []).contains { $0.unique && $0.columns == [column] }
      foreignKeys[table, default: []].append(
        DatabaseSchema.ForeignKey(
          column: column, destinationTable: destination, destinationColumn: destinationColumn, unique: unique))
    }
  }

  /// The attribute type of a column of `type` (information_schema's `data_type`).
  static func serverType(_ type: String) -> DatabaseSchema.ServerType {
    switch type {
    case "smallint", "integer", "bigint": .attribute(.integer)
    case "real", "double precision", "numeric": .attribute(.double)
    case "text", "character varying", "character", "name", "citext": .attribute(.string)
    case "boolean": .attribute(.bool)
    case "timestamp without time zone", "timestamp with time zone", "date": .attribute(.date)
    default: .unread("type \(type)")
    }
  }

  /// A name FetchBench's statements reach as it is: one PostgreSQL folds to itself unquoted
  /// (lower case), or one they quote (`sqlName`: mixed case, keywords, other characters).
  static func isNamed(_ name: String) -> Bool { name.postgresStoredName == name }

  /// Why a name in capitals alone is not read: statements name it unquoted, as Core Data's
  /// `ZFLIGHT` is named, and PostgreSQL folds it to lower case.
  static let capitalsOnly =
    """
    its name is in capitals, which PostgreSQL keeps only in double quotes; FetchBench names such a name unquoted, as \
    Core Data's tables are named, so PostgreSQL reads it in lower case
    """

}
