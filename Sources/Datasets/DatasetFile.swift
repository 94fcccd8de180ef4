import Catalog
import Foundation
import GRDB
import GRDBSQLite
import TextFormatting

/// A dataset file read back: whether it is one, how many rows it holds, and its checksum
/// measured from its contents, so that a file cut short or edited is never taken for the one
/// the manifest describes.
public enum DatasetFile {
  /// What is at a dataset's path, without opening it (a FIFO would block the reader).
  public enum Entry: Equatable, Sendable {
    case missing
    /// A regular file, or a symbolic link to one.
    case file
    /// Anything else, in words: "a folder", "a FIFO", "a symbolic link loop".
    case other(String)
  }

  /// What is at `path`. O(1).
  public static func entry(at path: String) -> Entry {
    var st = stat()
    if stat(path, &st) != 0 {
      if errno == ELOOP { return .other("a symbolic link loop") }
      var link = stat()
      return lstat(path, &link) == 0 ? .other("a symbolic link to nothing") : .missing
    }
    switch st.st_mode & S_IFMT {
    case S_IFREG: return .file
    case S_IFDIR: return .other("a folder")
    case S_IFIFO: return .other("a FIFO")
    case S_IFSOCK: return .other("a socket")
    default: return .other("a device")
    }
  }

  /// Whether `path` is a symbolic link (to anything, or to nothing). O(1).
  public static func isSymbolicLink(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
  }

  /// Checks, before a dataset file is opened, that it is a regular file and that no writer
  /// left a write-ahead log beside it: SQLite would read the log's rows (which the manifest's
  /// checksum does not describe) and, on closing, merge them into the file. Returns false
  /// when nothing is there. O(1).
  public static func checkReadable(_ path: String) throws -> Bool {
    switch entry(at: path) {
    case .missing: return false
    case .other(let what):
      throw DatasetError.notADataset(path: path, reason: "it is \(what), not a file; move it away and run again")
    case .file:
      var wal = stat()
      if stat(path + "-wal", &wal) == 0 && wal.st_size > 0 {
        throw DatasetError.notADataset(
          path: path,
          reason:
            """
            a writer left a write-ahead log beside it (\(path)-wal, \(Int(wal.st_size).grouped) bytes), whose rows \
            the manifest does not describe; delete both files and run again to generate the dataset anew
            """
        )
      }
      return true
    }
  }

  /// Whether `path` is a regular file that begins with SQLite's 16-byte header (an empty or
  /// foreign file does not).
  public static func isSQLite(_ path: String) -> Bool {
    guard entry(at: path) == .file, let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 16)).map { Array($0) == Array("SQLite format 3\u{0}".utf8) } ?? false
  }

  /// Each table's row count, in table order. One `count(*)` per table: milliseconds at
  /// 244,292 rows, cheap enough for every open.
  public static func rowCounts(_ path: String, _ kind: DatasetKind) throws -> [Int] {
    try read(path) { db in try kind.tables.map { try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0.name)") ?? 0 } }
  }

  /// The manifest entry the file's contents give: each table read in ID order and hashed in
  /// the CSV form the generator hashed, so it equals the manifest's entry exactly when the
  /// rows do. O(rows).
  public static func entry(_ path: String, _ kind: DatasetKind, rows: Int, seed: UInt64) throws -> Manifest.Entry {
    let tables = try read(path) { db in
      try kind.tables.map { table -> Manifest.Table in
        let writer = try CSVWriter(table: table, path: nil)
        let statement = try db.makeStatement(
          sql: "SELECT \(table.columns.map(\.name).joined(separator: ",")) FROM \(table.name) ORDER BY id")
        let raw = statement.sqliteStatement
        var row: [FieldValue] = []
        var count = 0
        while sqlite3_step(raw) == SQLITE_ROW {
          row.removeAll(keepingCapacity: true)
          for i in 0..<Int32(table.columns.count) {
            switch sqlite3_column_type(raw, i) {
            case SQLITE_NULL: row.append(.null)
            case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(raw, i)))
            case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(raw, i)))
            default: row.append(.text(String(cString: sqlite3_column_text(raw, i))))
            }
          }
          try writer.write(row)
          count += 1
        }
        return Manifest.Table(
          table: table.name, rows: count,
          csv: "\(DatasetPaths.baseName(kind, rows: rows, seed: seed))/\(table.name).csv",
          sha256: try writer.finish())
      }
    }
    return Manifest.Entry(dataset: kind, rows: rows, seed: seed, sha256: Manifest.combined(tables), tables: tables)
  }

  /// What differs between the file's `actual` entry (or row counts) and the manifest's, in
  /// words; nil when nothing does.
  public static func difference(_ actual: [Manifest.Table], _ expected: Manifest.Entry, checksums: Bool) -> String? {
    for (a, e) in zip(actual, expected.tables) {
      if a.rows != e.rows { return "table \(a.table) has \(a.rows.grouped) rows, the manifest says \(e.rows.grouped)" }
      if checksums && a.sha256 != e.sha256 {
        return
          """
          table \(a.table) has SHA-256 \(a.sha256.prefix(12))…, the manifest says \(e.sha256.prefix(12))… (its \
          values were changed)
          """
      }
    }
    return nil
  }

  /// Reads the file without writing anything beside it or in it: `immutable=1` (a URI
  /// filename; Debian's SQLite is built with SQLITE_USE_URI), no lock, no `-wal`/`-shm`.
  static func read<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
    guard isSQLite(path) else { throw DatasetError.notADataset(path: path, reason: "it is not a SQLite database") }
    var config = Configuration()
    config.readonly = true
    let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "?#%")
    do {
      let queue = try DatabaseQueue(
        path: "file:\(absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute)?immutable=1",
        configuration: config)
      return try queue.inDatabase(body)
    } catch let error as DatabaseError {
      throw DatasetError.notADataset(path: path, reason: error.message ?? "\(error)")
    }
  }
}
