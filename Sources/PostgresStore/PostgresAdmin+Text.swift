import ChildProcesses
import Foundation

/// SQL text and COPY's text format for PostgreSQL: no connection needed, so they are there with
/// or without the PostgreSQL trait.
extension PostgresAdmin {
  /// `text` as an SQL string literal, its quotes doubled.
  public static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

  /// `name` as a quoted SQL identifier, its double quotes doubled.
  public static func identifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// Streams rows into `table` with `COPY … FROM STDIN` (text format) through `psql`, so that
  /// no Swift concurrency thread is blocked (postgres-nio's COPY is async-only, and waiting
  /// for a task from a thread of the cooperative pool can deadlock it). `rows` is called with
  /// a sink; each call appends rows in COPY text form (tab-separated, `\N` for NULL, one
  /// per line) to the buffer it is given, which is sent once it holds a megabyte.
  /// With `schema`, the table is looked up in that schema first.
  public static func copy(
    _ url: PostgresURL, table: String, columns: [String], schema: String? = nil,
    rows: (_ emit: ((inout [UInt8]) -> Void) -> Void) throws -> Void
  ) throws {
    let psql = try Psql.command(
      url,
      (schema.map { ["-c", "SET search_path TO \($0), public"] } ?? []) + [
        "-c", "\\copy \(table) (\(columns.joined(separator: ","))) FROM STDIN",
      ])
    let child = try ChildProcess(psql.executable, psql.arguments, environment: psql.environment, input: .pipe)
    let input = child.standardInput!
    var buffer: [UInt8] = []
    buffer.reserveCapacity((1 << 20) + (1 << 16))
    var writeFailed = false
    func send() {
      guard !writeFailed, !buffer.isEmpty else { return }
      do { try input.write(contentsOf: buffer) } catch { writeFailed = true }
      buffer.removeAll(keepingCapacity: true)
    }
    try rows { append in
      guard !writeFailed else { return }
      append(&buffer)
      if buffer.count >= 1 << 20 { send() }
    }
    send()
    let output = child.wait()  // closes standard input: the end of the COPY
    guard output.succeeded else {
      let message = output.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
      throw PostgresStoreError.query(
        url, message.isEmpty ? "psql \(output.failure ?? "failed")" : message, "COPY \(table)")
    }
  }

  /// Appends `s` as a COPY text field (backslash, tab, newline and carriage return escaped).
  public static func appendField(_ s: String, to out: inout [UInt8]) {
    for b in s.utf8 {
      switch b {
      case 0x5C: out += [0x5C, 0x5C]
      case 0x09: out += [0x5C, UInt8(ascii: "t")]
      case 0x0A: out += [0x5C, UInt8(ascii: "n")]
      case 0x0D: out += [0x5C, UInt8(ascii: "r")]
      default: out.append(b)
      }
    }
  }

  /// A field in COPY text format.
  public static func field(_ s: String?) -> String {
    guard let s else { return "\\N" }
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s.unicodeScalars {
      switch c {
      case "\\": out += "\\\\"
      case "\t": out += "\\t"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }
}
