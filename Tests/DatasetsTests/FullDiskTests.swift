import Datasets
import Foundation
import GRDB
import Testing

/// A full disk reads the same wherever it is met (SQLite's SQLITE_FULL, Foundation's error
/// 640, errno ENOSPC): one line saying what to free, not a layer's raw text.
@Suite struct FullDisk {
  @Test func everyLayersFullDiskIsOneMessage() throws {
    // SQLite reports a database at its page limit exactly as a full disk.
    let queue = try DatabaseQueue()
    let full = #expect(throws: DatabaseError.self) {
      try queue.write { db in
        try db.execute(sql: "CREATE TABLE t (x BLOB)")
        try db.execute(sql: "PRAGMA max_page_count = 4")
        for _ in 0..<64 { try db.execute(sql: "INSERT INTO t VALUES (zeroblob(4096))") }
      }
    }
    let errors: [any Error] = [
      try #require(full), CocoaError(.fileWriteOutOfSpace),
      NSError(domain: NSCocoaErrorDomain, code: 640), POSIXError(.ENOSPC),
    ]
    for error in errors {
      #expect(AtomicFile.isOutOfSpace(error), "\(error)")
      let text = String(describing: AtomicFile.commandMessage(error))
      #expect(text.hasPrefix("No space left on device: free space on the disk"), "\(error): \(text)")
      #expect(!text.contains("SQLite error") && !text.contains("NSCocoaErrorDomain"), "\(text)")
    }
    let other = POSIXError(.EACCES)
    #expect(!AtomicFile.isOutOfSpace(other))
    #expect(AtomicFile.commandMessage(other) as? POSIXError == other, "any other error is left as it is")
  }
}
