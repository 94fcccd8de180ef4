/// What a store `generate --model` wrote was made from, as its `Z_METADATA` tag records it:
/// the model's checksum and the inputs. Two stores of one entity, row count and seed whose
/// models differ hold the two models' data: what comparing them measures is the model's change.
public struct ModelOrigin: Sendable, Codable, Equatable {
  /// The first 16 hex digits of the model's checksum (`ModelFile.checksum`).
  public var checksum: String
  public var entity: String
  public var rows: Int
  public var seed: UInt64
  /// The first 8 hex digits of the population file's SHA-256; empty without one.
  public var population: String

  public init(checksum: String, entity: String, rows: Int, seed: UInt64, population: String = "") {
    (self.checksum, self.entity, self.rows, self.seed, self.population) = (checksum, entity, rows, seed, population)
  }

  /// `FETCHBENCH-MODEL-<checksum>-<entity>-<rows>-S<seed>[-P<population>]`.
  public var tag: String {
    "\(Self.prefix)\(checksum)-\(entity)-\(rows)-S\(seed)" + (population.isEmpty ? "" : "-P\(population)")
  }

  public static let prefix = "FETCHBENCH-MODEL-"

  /// The origin a tag records; nil for any other text. An entity name may hold `-`.
  public init?(tag: String) {
    guard tag.hasPrefix(Self.prefix) else { return nil }
    var parts = tag.dropFirst(Self.prefix.count).split(separator: "-", omittingEmptySubsequences: false)
    let population = parts.last?.first == "P" ? String(parts.removeLast().dropFirst()) : ""
    guard parts.count >= 4, parts.last?.first == "S", let seed = UInt64(parts.last!.dropFirst()),
      let rows = Int(parts[parts.count - 2])
    else { return nil }
    self.init(
      checksum: String(parts[0]), entity: parts[1..<(parts.count - 2)].joined(separator: "-"), rows: rows, seed: seed,
      population: population)
  }

  /// Whether the two stores differ by their model alone (the same population too).
  public func differsOnlyByModel(from other: ModelOrigin) -> Bool {
    checksum != other.checksum
      && (entity, rows, seed, population) == (other.entity, other.rows, other.seed, other.population)
  }
}
