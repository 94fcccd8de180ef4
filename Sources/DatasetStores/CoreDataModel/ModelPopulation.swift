import Catalog
import Datasets
import Foundation
import TextFormatting

/// How `generate --model` populates a model's store beyond its defaults, from a JSON file
/// (`--population FILE`), every name checked against the model:
///
/// ```json
/// {"entities": {
///   "Folder": {"rows": 50},
///   "Item": {"attributes": {"title": {"nullShare": 0.3, "distinct": 500, "length": [5, 40], "skew": 1},
///                           "created": {"range": [700000000, 800000000]}},
///            "relationships": {"folder": {"fanOut": 20, "nullShare": 0}}}}}
/// ```
///
/// `rows` sets an entity's row count (not the list's: `--rows` does); an attribute's or a
/// to-one's `nullShare` (0 to 1, optional ones only) the share of rows left NULL; an
/// attribute's `distinct`, `range`, `length` and `skew` its values (`ValueShape`); a
/// relationship's `fanOut` (1 or more) how many of its source's rows there are for each row it
/// reaches. Unset: `ModelGeneration.nullShare` and `fanOut`, and the values `ModelValues` draws.
public struct ModelPopulation: Sendable, Equatable {
  public struct Entity: Sendable, Equatable {
    public var rows: Int?
    public var attributes: [String: ValueShape] = [:]
    public var relationships: [String: RelationshipShape] = [:]
  }

  /// A relationship's settings: the share of a to-one left NULL, the source's rows per row
  /// it reaches.
  public struct RelationshipShape: Sendable, Equatable {
    public var nullShare: Double?
    public var fanOut: Int?
  }

  public var entities: [String: Entity] = [:]
  /// The first 8 hex digits of the file's SHA-256: its part of the store's name and tag.
  public var checksum: String = ""

  public init() {}

  /// Reads and checks `path` against `model`; the list's entity's rows are `--rows`'. Throws
  /// `ModelFileError` naming the file, the key and the fix.
  public init(path: String, model: ModelFile, list: String) throws {
    func error(_ problem: String, _ fix: String) -> ModelFileError {
      ModelFileError(path: path, problem: problem, fix: fix)
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw error("cannot be read", "name a population file (JSON) that exists")
    }
    guard let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw error("is not a JSON object", #"write {"entities": {"Entity": {...}}}"#)
    }
    if let key = top.keys.sorted().first(where: { $0 != "entities" }) {
      throw error("has the key \(key)", "the file holds one key, entities")
    }
    for (name, value) in (top["entities"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
      guard let declared = model.entity(name) else {
        throw error(
          "names the entity \(name), which the model lacks",
          "name one of \(model.entities.map(\.name).joined(separator: ", "))")
      }
      guard let fields = value as? [String: Any] else {
        throw error("gives \(name) no object", "give it {\"rows\": N, …}")
      }
      entities[name] = try Self.entity(fields, declared, model: model, list: list, error)
    }
    checksum = String(SHA256Hasher.hex(of: data).prefix(8))
  }

  private static func entity(
    _ fields: [String: Any], _ e: EntityDeclaration, model: ModelFile, list: String,
    _ error: (String, String) -> ModelFileError
  ) throws -> Entity {
    var out = Entity()
    let properties = model.properties(of: e)
    for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
      switch key {
      case "rows":
        guard e.name != list else { throw error("sets the rows of \(e.name), the list's entity", "--rows sets them") }
        guard let n = value as? Int, (1...DatasetKind.maxRows).contains(n) else {
          throw error("gives \(e.name) rows \(value)", "a whole number from 1 to \(DatasetKind.maxRows.grouped)")
        }
        out.rows = n
      case "attributes", "relationships":
        guard let items = value as? [String: [String: Any]] else {
          throw error("gives \(e.name).\(key) no object of objects", "write {\"name\": {\"nullShare\": 0.2}}")
        }
        for (name, settings) in items.sorted(by: { $0.key < $1.key }) {
          if key == "attributes" {
            guard let attribute = properties.attributes.first(where: { $0.name == name }) else {
              throw error("names \(e.name).\(name), which is not one of its attributes", "name one the model declares")
            }
            out.attributes[name] = try shape(settings, of: attribute, in: e.name, error)
          } else {
            guard let relationship = properties.relationships.first(where: { $0.name == name }) else {
              throw error(
                "names \(e.name).\(name), which is not one of its relationships", "name one the model declares")
            }
            out.relationships[name] = try shape(settings, of: relationship, in: e.name, error)
          }
        }
      default: throw error("gives \(e.name) the key \(key)", "an entity takes rows, attributes and relationships")
      }
    }
    return out
  }

  /// The settings of attribute `name` of an entity of `lineage` (or of an ancestor that
  /// declares it).
  func shape(_ name: String, of lineage: [String]) -> ValueShape {
    lineage.lazy.compactMap { self.entities[$0]?.attributes[name] }.first ?? ValueShape()
  }

  /// The NULL share of attribute or to-one `property` of an entity of `lineage`.
  func nullShare(_ property: String, of lineage: [String]) -> Double {
    let set = lineage.lazy.compactMap {
      self.entities[$0]?.attributes[property]?.nullShare ?? self.entities[$0]?.relationships[property]?.nullShare
    }
    return set.first ?? ModelGeneration.nullShare
  }

  /// The rows of `source` for each row a relationship of it reaches.
  func fanOut(_ relationship: String, of source: String) -> Int {
    entities[source]?.relationships[relationship]?.fanOut ?? ModelGeneration.fanOut
  }
}
