import Catalog
import Foundation

/// `datasets/manifest.json`: what each generated dataset must contain, by checksum.
///
/// The entries for seed 1 at the default size and at 10,000 rows are committed, so anyone can
/// check that their generator produced the same bytes.
public struct Manifest: Codable, Equatable, Sendable {
  public struct Table: Codable, Equatable, Sendable {
    public var table: String
    public var rows: Int
    /// The CSV file, relative to the manifest's folder.
    public var csv: String
    /// SHA-256 of the CSV bytes (the table's content in its canonical text form).
    public var sha256: String
  }

  public struct Entry: Codable, Equatable, Sendable {
    public var dataset: DatasetKind
    public var rows: Int
    public var seed: UInt64
    /// SHA-256 over the tables' checksums, in table order: one figure naming the dataset.
    public var sha256: String
    public var tables: [Table]
  }

  public var datasets: [Entry] = []

  public init(datasets: [Entry] = []) { self.datasets = datasets }

  /// The entry for a dataset, rows and seed, if any. O(entries).
  public func entry(_ kind: DatasetKind, rows: Int, seed: UInt64) -> Entry? {
    datasets.first { $0.dataset == kind && $0.rows == rows && $0.seed == seed }
  }

  /// Adds or replaces an entry, keeping a stable order so the file diffs cleanly.
  public mutating func upsert(_ entry: Entry) {
    datasets.removeAll { $0.dataset == entry.dataset && $0.rows == entry.rows && $0.seed == entry.seed }
    datasets.append(entry)
    datasets.sort { ($0.dataset.rawValue, $0.rows, $0.seed) < ($1.dataset.rawValue, $1.rows, $1.seed) }
  }

  /// Reads a manifest; a missing file is an empty manifest, an unreadable one an error.
  public static func load(from path: String) throws -> Manifest {
    guard let data = FileManager.default.contents(atPath: path) else { return Manifest() }
    do {
      return try JSONDecoder().decode(Manifest.self, from: data)
    } catch {
      throw DatasetError.corruptManifest(path: path, reason: "\(error)")
    }
  }

  /// Writes the manifest atomically (temporary file, then rename).
  public func save(to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(self)
    data.append(10)
    try AtomicFile.write(data, to: path)
  }

  /// The combined checksum of a dataset from its tables' checksums.
  static func combined(_ tables: [Table]) -> String {
    SHA256Hex.of(tables.map { "\($0.table):\($0.sha256)\n" }.joined())
  }
}
