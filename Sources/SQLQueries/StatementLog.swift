import Foundation
import Synchronization

/// `--sql-debug`: every statement a SQL store issues, in order, with its binds, the rows it
/// returned and its time, in the shape of Core Data's `-com.apple.CoreData.SQLDebug 1` log so
/// that it can be held against an app's own:
///
///     FetchBench: sql: SELECT t0.id FROM failed_bank_info t0 … ORDER BY …
///     FetchBench: annotation: sql connection fetch time: 0.0412s for 244292 rows, 0 binds.
///
/// Written to standard error, in every process `enable` was called in (the command calls it;
/// a case process when its parent's settings say so). Tracing costs time of its own: figures
/// measured with it on are not comparable. Not thread-safe: one log per store, as one store per
/// thread.
public final class StatementLog: @unchecked Sendable {
  private static let enabled = Atomic(false)

  /// Whether this process logs statements. O(1).
  public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

  /// Turns the log on for this process. O(1).
  public static func enable() { enabled.store(true, ordering: .relaxed) }

  /// A log for a new store, nil when the log is off.
  public static func forStore() -> StatementLog? { isEnabled ? StatementLog() : nil }

  /// Rows stepped so far by each statement not yet finished, by statement.
  private var rows: [Int: Int] = [:]
  private let write: (String) -> Void

  public init(write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
    self.write = write
  }

  /// A row returned by the statement `key` (any value that identifies it until it finishes).
  public func row(_ key: Int) { rows[key, default: 0] += 1 }

  /// The statement `key` finished: its text, its bind parameters and its time.
  public func finished(_ key: Int, sql: String, binds: Int, seconds: Double) {
    record(sql: sql, binds: binds, rows: rows.removeValue(forKey: key) ?? 0, seconds: seconds)
  }

  /// A line of its own before the next statement: `FetchBench: annotation: <text>`.
  public func annotate(_ text: String) { write("FetchBench: annotation: \(text)\n") }

  /// One statement whose rows the caller counted.
  public func record(sql: String, binds: Int, rows: Int, seconds: Double) {
    write(Self.lines(sql: sql, binds: binds, rows: rows, seconds: seconds))
  }

  /// The two lines of one statement. O(sql length).
  public static func lines(sql: String, binds: Int, rows: Int, seconds: Double) -> String {
    let flat = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
      separator: " ")
    return "FetchBench: sql: \(flat)\n"
      + """
      FetchBench: annotation: sql connection fetch time: \(String(format: "%.4f", seconds))s for \(rows) rows, \
      \(binds) binds.\n
      """
  }
}
