import FetchedResults
import Foundation
import SQLQueries
import Vocabulary

/// The store of a list named by an app's model rather than a file: `--model PATH --entity E
/// --rows N` (and a version and a population) wherever a list is measured or generated, and a
/// gate matrix's `"model"` list. One reading of the inputs and one generation for all of them.
public struct ModelStore: Sendable, Equatable {
  /// The `.xcdatamodeld` or `.xcdatamodel` folder, or a `contents` file.
  public var model: String
  /// The `.xcdatamodeld`'s version to read; nil: its current one.
  public var version: String?
  /// A population file (`ModelPopulation`); nil: the defaults.
  public var population: String?
  public var entity: String
  public var rows: Int
  public var seed: UInt64

  public init(
    model: String, version: String? = nil, population: String? = nil, entity: String, rows: Int, seed: UInt64 = 1
  ) {
    (self.model, self.version, self.population) = (model, version, population)
    (self.entity, self.rows, self.seed) = (entity, rows, seed)
  }

  /// The model file and population as read and checked. Throws `ModelFileError` naming the
  /// file and the fix. O(model + population file).
  public func read() throws -> (ModelFile, ModelPopulation) {
    let file = try ModelFile.read(model, version: version)
    return (file, try population.map { try ModelPopulation(path: $0, model: file, list: entity) } ?? .init())
  }

  /// The store in `folder` (created if missing), generated unless a file of the same inputs is
  /// there, and the model's to-one relationships (the store's reader names columns by them).
  /// O(rows × properties) when it generates, O(model) otherwise.
  public func generate(into folder: String) throws -> Generated {
    let (file, population) = try read()
    let generation = ModelGeneration(
      model: file, entity: entity, rows: rows, seed: seed,
      out: ModelGeneration.path(model, entity: entity, rows: rows, seed: seed, folder: folder, population: population),
      population: population)
    if !FileManager.default.fileExists(atPath: folder) {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    let (written, description) = try generation.run()
    return Generated(
      path: generation.out, written: written, description: description, relationships: file.toOneRelationships,
      toMany: CoreDataSchema(file).toManyRelationships(file), deleteRules: file.deleteRules)
  }

  /// What `generate(into:)` left: the store's path, whether this call wrote it, its rows.
  public struct Generated: Sendable {
    public var path: String
    public var written: Bool
    /// The rows of each entity (`Item 2,000, Folder 200 rows`), or that it was kept.
    public var description: String
    public var relationships: [String: String]
    /// The model's to-many relationships, by the entity of their table.
    public var toMany: [String: [ToManyRelationship]]
    /// The model's delete rules, which a save on the store applies.
    public var deleteRules: [DeleteRule]

    /// The store as a database of the user's, to list like `--db`'s.
    public func database() throws -> UserDatabase {
      var database = try UserDatabase.named(path, relationships: relationships)
      database.toMany = toMany
      database.deleteRules = deleteRules.isEmpty ? nil : deleteRules
      return database
    }
  }
}
