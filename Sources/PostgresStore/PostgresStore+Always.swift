import SQLQueries

extension PostgresStore {
  /// Whether this build has PostgreSQL (the package trait `PostgreSQL`).
  #if PostgreSQL
    public static let isBuilt = true
  #else
    public static let isBuilt = false
  #endif

  /// The change log's table and notification channel.
  public static let changeLog = ChangeLogSQL.table
  /// Creates the change log (the loader runs it with the dataset's tables).
  public static let changeLogDDL =
    """
    CREATE TABLE IF NOT EXISTS \(changeLog) (seq BIGINT PRIMARY KEY, committed_at DOUBLE PRECISION NOT NULL, payload \
    TEXT NOT NULL)
    """
}
