import Catalog
import FetchedResults
import Foundation

/// Streams one table as RFC 4180 CSV, hashing the bytes as they go.
///
/// With no path it only hashes: the checksum of a dataset is the checksum of its CSV form, so
/// it is known even when only the SQLite file is written. Memory is one 1 MiB buffer.
public final class CSVWriter {
  private let table: TableSchema
  private let handle: FileHandle?
  private let hasher = SHA256Hasher()
  private var buffer: [UInt8] = []
  /// Bytes flushed so far, the header included; all of them once `finish()` has returned.
  public private(set) var bytes = 0
  private static let flushAt = 1 << 20

  /// Starts the file at `path` (or a hash-only writer when `path` is nil) with the header line.
  public init(table: TableSchema, path: String?) throws {
    self.table = table
    if let path {
      guard FileManager.default.createFile(atPath: path, contents: nil) else {
        throw DatasetError.cannotWrite(path: path, reason: "cannot create the file")
      }
      handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    } else {
      handle = nil
    }
    buffer.reserveCapacity(Self.flushAt + 4096)
    buffer.append(contentsOf: table.columns.map(\.name).joined(separator: ",").utf8)
    buffer.append(10)
  }

  /// Appends one row; `row` follows the table's column order. O(row bytes).
  public func write(_ row: [FieldValue]) throws {
    for (i, value) in row.enumerated() {
      if i > 0 { buffer.append(UInt8(ascii: ",")) }
      switch value {
      case .null: break
      case .integer(let v):
        if v < 0 { buffer.append(UInt8(ascii: "-")) }
        CivilDate.appendPadded(Int(v.magnitude), width: 1, to: &buffer)
      case .real(let v):
        if table.columns[i].type == .date {
          CivilDate.appendISO8601(seconds: Int64(v), to: &buffer)
        } else {
          // Swift's shortest round-trip formatting is its own algorithm, not the C library's:
          // the same bytes on every platform.
          buffer.append(contentsOf: v.description.utf8)
        }
      case .text(let s): Self.appendQuoted(s, to: &buffer)
      }
    }
    buffer.append(10)
    if buffer.count >= Self.flushAt { try flush() }
  }

  /// Flushes, closes, and returns the SHA-256 (lowercase hex) of everything written.
  public func finish() throws -> String {
    try flush()
    try handle?.close()
    return hasher.hex()
  }

  private func flush() throws {
    guard !buffer.isEmpty else { return }
    hasher.update(buffer)
    bytes += buffer.count
    try handle?.write(contentsOf: buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  /// Appends `s`, quoted (RFC 4180) only when it holds a comma, quote, CR or LF. O(s bytes).
  public static func appendQuoted(_ s: String, to out: inout [UInt8]) {
    let utf8 = s.utf8
    let needsQuotes = utf8.contains { (b: UInt8) -> Bool in
      b == UInt8(ascii: ",") || b == UInt8(ascii: "\"") || b == 10 || b == 13
    }
    guard needsQuotes else {
      out.append(contentsOf: utf8)
      return
    }
    out.append(34)
    for b in utf8 {
      if b == 34 { out.append(34) }
      out.append(b)
    }
    out.append(34)
  }
}
