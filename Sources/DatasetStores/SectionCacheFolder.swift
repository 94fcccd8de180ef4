import Datasets
import FetchedResults
import Foundation

/// The section cache as files (`SectionCache`): a JSON file per key, named by the key's
/// SHA-256, in a folder of FetchBench's own under the temporary directory, never beside a
/// user's database. Written under a temporary name and renamed; a file that cannot be read is
/// a miss.
public final class SectionCacheFolder: SectionCache {
  public let folder: String

  public init(folder: String = NSTemporaryDirectory() + "fetchbench-section-cache") {
    self.folder = folder
  }

  /// One saved section: its key's value, tagged with its type, and its count.
  struct Entry: Codable {
    var type: String
    var value: String
    var count: Int
  }

  public func sections(for key: String) -> [SectionCount]? {
    guard let data = FileManager.default.contents(atPath: path(key)),
      let entries = try? JSONDecoder().decode([Entry].self, from: data)
    else { return nil }
    let counts = entries.compactMap { e in Self.value(e).map { SectionCount(value: $0, count: e.count) } }
    return counts.count == entries.count ? counts : nil
  }

  public func save(_ sections: [SectionCount], for key: String) {
    let entries = sections.map { s in Self.entry(s.value, count: s.count) }
    guard let data = try? JSONEncoder().encode(entries) else { return }
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    // A cache that cannot be written is a cache that misses next time, not an error.
    try? AtomicFile.write(data, to: path(key))
  }

  func path(_ key: String) -> String {
    folder + "/" + SHA256Hasher.hex(of: Data(key.utf8)) + ".json"
  }

  static func entry(_ v: Value, count: Int) -> Entry {
    switch v {
    case .null: Entry(type: "null", value: "", count: count)
    case .integer(let i): Entry(type: "integer", value: String(i), count: count)
    case .double(let d): Entry(type: "double", value: String(d.bitPattern), count: count)
    case .date(let d): Entry(type: "date", value: String(d.bitPattern), count: count)
    case .string(let s): Entry(type: "string", value: s, count: count)
    case .bool(let b): Entry(type: "bool", value: b ? "1" : "0", count: count)
    }
  }

  static func value(_ e: Entry) -> Value? {
    switch e.type {
    case "null": .null
    case "integer": Int64(e.value).map { .integer($0) }
    case "double": UInt64(e.value).map { .double(Double(bitPattern: $0)) }
    case "date": UInt64(e.value).map { .date(Double(bitPattern: $0)) }
    case "string": .string(e.value)
    case "bool": .bool(e.value == "1")
    default: nil
    }
  }
}
