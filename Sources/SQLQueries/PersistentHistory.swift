import FetchedResults

/// Core Data's persistent history tracking (on in every store an app syncs through CloudKit):
/// with each save, one row in `ATRANSACTION` and one per changed object in `ACHANGE`, the
/// transaction's author named once in `ATRANSACTIONSTRING`, in the save's own transaction.
///
/// The table and column names are those published write-ups of such stores show; what Core
/// Data puts in a change's `ZCOLUMNS` (the updated properties) and in tombstones is not
/// published and is not written, and the keys come from SQLite's rowid where Core Data
/// allocates them from `Z_PRIMARYKEY`. The entity numbers 16001–16003 are FetchBench's.
public enum PersistentHistory {
  /// NSPersistentHistoryChangeType's raw values.
  enum ChangeType: Int64 {
    case insert = 0, update = 1, delete = 2
  }

  /// The author every FetchBench save records.
  public static let author = "fetchbench"

  /// The tables, created where missing, and the index a history fetch by transaction reads.
  public static let createTables = [
    """
    CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \
    ZNAME VARCHAR UNIQUE)
    """,
    """
    CREATE TABLE IF NOT EXISTS ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \
    ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, \
    ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB)
    """,
    """
    CREATE TABLE IF NOT EXISTS ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \
    ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB)
    """,
    "CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
  ]

  /// The history statements of a save whose changes are `changes` (as `ChangeRecorder` folds
  /// them: an object inserted and deleted in it is not there), at `timestamp` (seconds since
  /// 1970): the author's string, the transaction row, then a change row per object of an
  /// entity in `entityNumbers`. O(changed objects).
  public static func statements(_ changes: [EntityChanges], entityNumbers: [String: Int64], timestamp: Double)
    -> [WriteSQL.Statement]
  {
    var out = [
      WriteSQL.Statement(
        sql: "INSERT OR IGNORE INTO ATRANSACTIONSTRING (Z_ENT, Z_OPT, ZNAME) VALUES (16003, 1, ?)",
        arguments: [.string(author)]),
      WriteSQL.Statement(
        sql:
          """
          INSERT INTO ATRANSACTION (Z_ENT, Z_OPT, ZAUTHORTS, ZTIMESTAMP) VALUES \
          (16001, 1, (SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?), ?)
          """,
        arguments: [.string(author), .double(timestamp - 978_307_200)]),
    ]
    let change = """
      INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES \
      (16002, 1, ?, ?, ?, (SELECT MAX(Z_PK) FROM ATRANSACTION))
      """
    for c in changes {
      guard let entity = entityNumbers[c.entity] else { continue }
      let rows: [(ChangeType, Int64)] =
        c.inserted.map { (.insert, $0) } + c.updated.keys.sorted().map { (.update, $0) }
        + c.deleted.map { (.delete, $0) }
      for (type, id) in rows {
        out.append(
          WriteSQL.Statement(sql: change, arguments: [.integer(type.rawValue), .integer(entity), .integer(id)]))
      }
    }
    return out
  }

  /// `operations` folded as a save records them, for a writer that records nothing itself:
  /// inserts by the key they name. O(operations).
  public static func changes(_ operations: [WriteOperation]) -> [EntityChanges] {
    var recorder = ChangeRecorder()
    for op in operations {
      switch op {
      case .insert(let entity, let values):
        if case .integer(let id) = values["id"] { recorder.inserted(entity, id) }
      case .update(let entity, let id, let values):
        recorder.updated(entity, id, old: values.mapValues { _ in .null })
      case .delete(let entity, let id):
        recorder.deleted(entity, id, old: [:])
      }
    }
    return recorder.changes
  }
}
