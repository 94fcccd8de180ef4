import FetchedResults

/// An index on one table of a dataset, over one or more of its columns, each ascending or
/// descending. Options and file names spell it by its columns joined with `+`, a descending
/// one with `:desc` (`close_date`, `info_id+close_date`, `spud_date:desc+id`): the generator,
/// the PostgreSQL loader and the index advice all read it here, so the index a report advises
/// is the one its file was measured with.
public struct IndexSpec: Sendable, Hashable, Codable, CustomStringConvertible {
  public struct Column: Sendable, Hashable, Codable {
    public var name: String
    public var descending: Bool

    public init(_ name: String, descending: Bool = false) {
      self.name = name
      self.descending = descending
    }
  }

  public var table: String
  public var columns: [Column]

  public init(table: String, columns: [Column]) {
    self.table = table
    self.columns = columns
  }

  /// The index `tag` names in `kind`'s tables: every column in one table (for a
  /// `RecordedDataset`, among the indexes its results recorded); nil when no table has them all
  /// or the spelling is not `name` or `name:desc`. O(tables × columns).
  public init?(tag: String, in kind: DatasetKind) {
    // A kind known only by its results: the indexes they recorded.
    if let recorded = kind.definition as? RecordedDataset {
      guard let spec = recorded.indexes.first(where: { $0.tag == tag }) else { return nil }
      self = spec
      return
    }
    var columns: [Column] = []
    for part in tag.split(separator: "+", omittingEmptySubsequences: false) {
      let pieces = part.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
      guard let name = pieces.first, !name.isEmpty, pieces.count == 1 || (pieces.count == 2 && pieces[1] == "desc")
      else { return nil }
      columns.append(Column(name, descending: pieces.count == 2))
    }
    guard let table = kind.tables.first(where: { t in columns.allSatisfy { t.column($0.name) != nil } }) else {
      return nil
    }
    self.init(table: table.name, columns: columns)
  }

  /// `info_id+close_date`, `spud_date:desc+id`: the option's and the file name's spelling.
  public var tag: String { columns.map { $0.name + ($0.descending ? ":desc" : "") }.joined(separator: "+") }
  /// `idx_failed_bank_details_info_id_close_date`; in lower case, so that a Core Data table's
  /// index (`idx_zitem_ztitle`) needs no quotes.
  public var name: String {
    ("idx_\(table)_" + columns.map { $0.name + ($0.descending ? "_desc" : "") }.joined(separator: "_")).lowercased()
  }
  /// The statement to copy into an app's SQLite migration.
  public var createStatement: String {
    """
    CREATE INDEX \(name.sqlName) ON \
    \(table.sqlName)(\(columns.map { $0.name.sqlName + ($0.descending ? " DESC" : "") }.joined(separator: ", ")))
    """
  }
  /// The same index in PostgreSQL, where NULLs sort last ascending: each column states
  /// SQLite's NULL order (first ascending, last descending), as the stores' ORDER BY does, or
  /// the index could not give that order.
  public var postgresCreateStatement: String {
    let keys = columns.map { $0.name.sqlName + ($0.descending ? " DESC NULLS LAST" : " NULLS FIRST") }
    return "CREATE INDEX \(name.sqlName) ON \(table.sqlName)(\(keys.joined(separator: ", ")))"
  }

  /// The statement for a store: PostgreSQL's when `postgres`, SQLite's otherwise.
  public func createStatement(postgres: Bool) -> String { postgres ? postgresCreateStatement : createStatement }
  /// `failed_bank_details(info_id, close_date)`, `wells(spud_date DESC, id)`.
  public var description: String {
    "\(table)(\(columns.map { $0.name + ($0.descending ? " DESC" : "") }.joined(separator: ", ")))"
  }
}
