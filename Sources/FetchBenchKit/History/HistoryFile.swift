import DatasetStores
import Datasets
import Foundation
import Vocabulary

/// A history file: one `HistoryEntry` per line (JSON Lines), oldest first.
package enum HistoryFile {
  /// Every entry of `path`. Throws naming the first line that is not an entry. O(file).
  package static func read(_ path: String) throws -> [HistoryEntry] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw HistoryError.noSuchHistory(path)
    }
    let decoder = JSONDecoder()
    var entries: [HistoryEntry] = []
    for (n, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
      guard let entry = try? decoder.decode(HistoryEntry.self, from: Data(line)) else {
        throw HistoryError.notAHistoryLine(path, line: n + 1)
      }
      entries.append(entry)
    }
    return entries
  }

  /// Appends `entry` to `path` (created when missing): the file is written anew under a
  /// temporary name and renamed, so a failure leaves it as it was, holding the path's lock
  /// from the read to the rename, so that two commands adding at once both land (the second
  /// waits). A link is followed, the file's permissions kept. Refuses a file that is not a
  /// history and a run already in it. O(file).
  package static func append(_ entry: HistoryEntry, to path: String) throws -> Int {
    try OutputLock.with(path, waiting: true) { try appendHoldingLock(entry, to: path) }
  }

  private static func appendHoldingLock(_ entry: HistoryEntry, to path: String) throws -> Int {
    let entries = FileManager.default.fileExists(atPath: path) ? try read(path) : []
    if entries.contains(where: { $0.runID == entry.runID }) {
      throw HistoryError.runAlreadyAdded(path, runID: entry.runID)
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = FileManager.default.contents(atPath: path) ?? Data()
    if let last = data.last, last != UInt8(ascii: "\n") { data.append(UInt8(ascii: "\n")) }
    data += try encoder.encode(entry) + Data("\n".utf8)
    try AtomicFile.write(data, to: path)
    return entries.count + 1
  }
}
