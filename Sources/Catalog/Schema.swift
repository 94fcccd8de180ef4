import FetchedResults

/// The storage type of a dataset column, as SQLite and the CSV files see it.
public enum ColumnType: String, Sendable, Codable, CaseIterable {
  case integer
  case real
  case text
  /// Seconds since 1970-01-01 UTC: REAL in SQLite, ISO 8601 in CSV.
  case date

  /// The SQLite declared type. Dates are REAL, as Core Data stores them (as seconds).
  public var sqlType: String {
    switch self {
    case .integer: "INTEGER"
    case .real, .date: "REAL"
    case .text: "TEXT"
    }
  }
}

/// One column of a dataset table. The names are a public contract: users' scripts read them.
public struct ColumnSchema: Sendable, Equatable {
  public var name: String
  public var type: ColumnType
  public var nullable: Bool
  public var unique: Bool
  /// `table(column)` this column references, if it is a foreign key.
  public var references: String?

  /// `references` with each name as it stands in a statement (`String.sqlName`). O(length).
  public var referenceSQL: String? {
    guard let r = references, r.hasSuffix(")"), let open = r.lastIndex(of: "(") else { return references?.sqlName }
    return String(r[..<open]).sqlName + "(" + String(r[r.index(after: open)..<r.index(before: r.endIndex)]).sqlName
      + ")"
  }

  public init(
    _ name: String, _ type: ColumnType, nullable: Bool = false, unique: Bool = false,
    references: String? = nil
  ) {
    self.name = name
    self.type = type
    self.nullable = nullable
    self.unique = unique
    self.references = references
  }
}

/// One table of a dataset; its first column is always `id INTEGER PRIMARY KEY`.
public struct TableSchema: Sendable, Equatable {
  public var name: String
  public var columns: [ColumnSchema]

  public init(name: String, columns: [ColumnSchema]) {
    self.name = name
    self.columns = columns
  }

  /// The `CREATE TABLE` statement that the SQLite writer issues.
  public var createSQL: String {
    let defs = columns.map { c -> String in
      if c.name == "id" { return "id INTEGER PRIMARY KEY" }
      var d = "\(c.name.sqlName) \(c.type.sqlType)"
      if !c.nullable { d += " NOT NULL" }
      if c.unique { d += " UNIQUE" }
      if let r = c.referenceSQL { d += " REFERENCES \(r)" }
      return d
    }
    return "CREATE TABLE \(name.sqlName) (\(defs.joined(separator: ", ")))"
  }

  /// The primary key: the first column (`id` in the generated datasets, `Z_PK` in a Core Data
  /// store).
  public var primaryKey: String { columns.first?.name ?? "id" }

  /// The column named `name`, if any. O(columns).
  public func column(_ name: String) -> ColumnSchema? { columns.first { $0.name == name } }
}

/// The fixed schemas of the datasets.
public enum Schemas {
  public static let failedBankInfo = TableSchema(
    name: "failed_bank_info",
    columns: [
      ColumnSchema("id", .integer),
      ColumnSchema("name", .text),
      ColumnSchema("city", .text),
      ColumnSchema("state", .text),
    ])

  public static let failedBankDetails = TableSchema(
    name: "failed_bank_details",
    columns: [
      ColumnSchema("id", .integer),
      ColumnSchema("info_id", .integer, unique: true, references: "failed_bank_info(id)"),
      ColumnSchema("close_date", .date),
      ColumnSchema("updated_date", .date),
      ColumnSchema("zip", .text),
      ColumnSchema("cert", .integer),
      ColumnSchema("acquiring_institution", .text),
      ColumnSchema("fund", .integer),
    ])

  public static let wells = TableSchema(
    name: "wells",
    columns: [
      ColumnSchema("id", .integer),
      ColumnSchema("api_number", .text, unique: true),
      ColumnSchema("well_name", .text),
      ColumnSchema("operator", .text),
      ColumnSchema("field", .text, nullable: true),
      ColumnSchema("county", .text),
      ColumnSchema("state", .text),
      ColumnSchema("latitude", .real, nullable: true),
      ColumnSchema("longitude", .real, nullable: true),
      ColumnSchema("spud_date", .date, nullable: true),
      ColumnSchema("status", .text),
      ColumnSchema("well_type", .text),
      ColumnSchema("total_depth", .integer, nullable: true),
    ])
}
