import FetchedResults

/// The change log both SQL stores keep: every commit appends its transaction
/// (`TransactionCodec` text) under a gapless sequence number, and every connection's
/// observers read it in order. The statements are here; the stores run them.
public enum ChangeLogSQL {
  /// The log's table.
  public static let table = "fetchbench_changes"

  /// The transactions after a sequence number (the one parameter), in order: `seq, payload`.
  public static func poll(_ dialect: SQLDialect) -> String {
    "SELECT seq, payload FROM \(table) WHERE seq > \(dialect.parameter(1)) ORDER BY seq"
  }

  /// The last sequence number, 0 for an empty log.
  public static let head = "SELECT COALESCE(MAX(seq), 0) FROM \(table)"
}

/// The reader's side of the change log, as a pure state machine: what has been delivered,
/// whether the next row follows it, and the row decoded. No I/O: a store reads the rows
/// `ChangeLogSQL.poll` returns and feeds them in order.
public struct ChangeLogCursor: Sendable, Equatable {
  /// A row that does not follow the last one delivered: a row was removed behind the stores'
  /// backs (numbers are assigned under the log's lock, so gapless), or read twice.
  public struct Gap: Error, Equatable, CustomStringConvertible {
    public var delivered: Int
    public var found: Int
    public init(delivered: Int, found: Int) { (self.delivered, self.found) = (delivered, found) }
    public var description: String { "change log sequence jumps from \(delivered) to \(found)" }
  }

  /// The sequence number of the last transaction delivered.
  public private(set) var delivered: Int

  /// A cursor whose next transaction is `delivered + 1`.
  public init(after delivered: Int) { self.delivered = delivered }

  /// The transaction of the log row `(sequence, payload)`, which must be the next one;
  /// advances past it. Throws `Gap` (and stays) when it is not next, or the codec's error
  /// when the payload does not decode. O(payload).
  public mutating func next(sequence: Int, payload: String) throws -> StoreTransaction {
    guard sequence == delivered + 1 else { throw Gap(delivered: delivered, found: sequence) }
    let transaction = StoreTransaction(sequence: sequence, changes: try TransactionCodec.decode(payload))
    delivered = sequence
    return transaction
  }
}

extension SQLBuilder {
  /// The IDs of `request`'s entity whose to-one `relationship` points at one of `count`
  /// destination IDs (SQLite: `count` parameters; PostgreSQL: one array parameter), as
  /// `Store.relatedIDs` defines them. Change tracking asks it when destination rows change.
  public static func relatedIDsQuery(
    _ request: ResolvedRequest, through relationship: Relationship, destination: Entity, count: Int, dialect: SQLDialect
  ) -> String {
    let match =
      switch dialect {
      case .sqlite: "IN (\(Array(repeating: "?", count: count).joined(separator: ",")))"
      case .postgres: "= ANY($1)"
      }
    // By the destination's primary key the list's own column names the rows: no join, and a
    // key left pointing at a deleted row is found too.
    if relationship.destinationColumn == destination.primaryKey {
      return
        """
        SELECT t0.\(request.entity.primaryKey.sqlName) FROM \(request.entity.table.sqlName) t0 WHERE \
        t0.\(relationship.sourceColumn.sqlName) \(match)
        """
    }
    return
      """
      SELECT DISTINCT t0.\(request.entity.primaryKey.sqlName) FROM \(request.entity.table.sqlName) t0 JOIN \
      \(destination.table.sqlName) t1 ON t1.\(relationship.destinationColumn.sqlName) = \
      t0.\(relationship.sourceColumn.sqlName) WHERE t1.\(destination.primaryKey.sqlName) \(match)
      """
  }
}
