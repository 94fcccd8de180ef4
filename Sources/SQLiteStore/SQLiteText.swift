import GRDBSQLite

/// SQLite's text, every byte of it: a value holding a NUL byte is read to its length, as SQLite
/// compares and sorts it, not cut at the NUL as a C string would be.
public enum SQLiteText {

  /// The text of column `column` of the row `statement` stands on. O(n) in the value's bytes;
  /// a value without a NUL is decoded once (its length is checked against SQLite's in O(1)).
  @inline(__always)
  public static func string(_ statement: OpaquePointer, _ column: Int32) -> String {
    guard let text = sqlite3_column_text(statement, column) else { return "" }
    let decoded = String(cString: text)
    let length = Int(sqlite3_column_bytes(statement, column))
    guard decoded.utf8.count != length else { return decoded }
    return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
  }
}
