import GRDB

/// A database's tables, columns, keys and indexes, read through SQLite's table-valued pragma
/// functions with each name bound as a parameter. GRDB's own schema queries put a name in
/// double quotes without doubling the quotes it holds, so a table or index named with a `"`
/// (a user's database, a model's fetch index) would break them or be read as SQL.
public enum SQLiteSchema {
  /// One column as `PRAGMA table_info` gives it.
  public struct Column: Sendable, Equatable {
    public var name: String
    /// The declared type as written (`varchar(20)`), or empty.
    public var type: String
    /// Its place in the primary key, from 1; 0 when it is not part of it.
    public var primaryKeyPosition: Int
  }

  /// One index as `PRAGMA index_list` and `index_info` give it; an index on an expression
  /// (a column of no name) is left out.
  public struct Index: Sendable, Equatable {
    public var name: String
    public var columns: [String]
    public var unique: Bool
  }

  /// One foreign key: its columns here and the destination's.
  public struct ForeignKey: Sendable, Equatable {
    public var originColumns: [String]
    public var destinationTable: String
    public var destinationColumns: [String]
  }

  /// Whether a table of this name (in any case) exists. O(tables).
  public static func tableExists(_ name: String, _ db: Database) throws -> Bool {
    try Bool.fetchOne(
      db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE)",
      arguments: [name]) ?? false
  }

  /// The table's columns in their order. O(columns).
  public static func columns(in table: String, _ db: Database) throws -> [Column] {
    try Row.fetchAll(
      db, sql: "SELECT name, type, pk FROM pragma_table_xinfo(?) WHERE hidden <> 1 ORDER BY cid", arguments: [table]
    ).map {
      Column(name: $0[0], type: $0[1] ?? "", primaryKeyPosition: $0[2])
    }
  }

  /// The column that is the table's rowid (`INTEGER PRIMARY KEY`), if one is. O(columns).
  public static func rowIDColumn(of table: String, _ db: Database) throws -> String? {
    let key = try columns(in: table, db).filter { $0.primaryKeyPosition > 0 }
    guard key.count == 1, key[0].type.uppercased() == "INTEGER" else { return nil }
    let withoutRowID = try Bool.fetchOne(
      db, sql: "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ? COLLATE NOCASE",
      arguments: [table])
    return withoutRowID == true ? nil : key[0].name
  }

  /// The table's indexes, in `index_list`'s order. O(indexes × columns).
  public static func indexes(on table: String, _ db: Database) throws -> [Index] {
    try Row.fetchAll(db, sql: #"SELECT name, "unique" FROM pragma_index_list(?) ORDER BY seq"#, arguments: [table])
      .compactMap { row -> Index? in
        let name: String = row[0]
        let columns = try Optional<String>.fetchAll(
          db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [name])
        guard !columns.contains(nil) else { return nil }
        return Index(name: name, columns: columns.compactMap { $0 }, unique: row[1])
      }
  }

  /// The table's foreign keys; a key naming no destination column names the destination's
  /// primary key. O(keys × columns).
  public static func foreignKeys(on table: String, _ db: Database) throws -> [ForeignKey] {
    var keys: [(id: Int, key: ForeignKey)] = []
    let rows = try Row.fetchAll(
      db, sql: #"SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq"#,
      arguments: [table])
    for row in rows {
      let id: Int = row[0]
      let destination: String = row[1]
      var to: String? = row[3]
      if to == nil {
        let key = try columns(in: destination, db).filter { $0.primaryKeyPosition > 0 }
          .sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }
        let position = keys.last?.id == id ? keys.last!.key.originColumns.count : 0
        to = position < key.count ? key[position].name : "rowid"
      }
      if keys.last?.id == id {
        keys[keys.count - 1].key.originColumns.append(row[2])
        keys[keys.count - 1].key.destinationColumns.append(to!)
      } else {
        keys.append((id, ForeignKey(originColumns: [row[2]], destinationTable: destination, destinationColumns: [to!])))
      }
    }
    return keys.map(\.key)
  }
}
