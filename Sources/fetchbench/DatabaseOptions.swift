import ArgumentParser
import DatasetStores

/// `--db` and what goes with it: the user's own database in place of a generated dataset.
struct DatabaseOptions: ParsableArguments {
  @Option(
    help:
      "Your own SQLite database instead of a dataset: an app's schema or a Core Data store's .sqlite file, opened read-only and never written."
  ) var db: String?
  @Option(
    help: "With --db: a to-one relationship that its column's name does not say, as column=Entity (e.g. plane=Plane); repeatable.")
  var relationship: [String] = []

  init() {}

  init(db: String?, relationship: [String]) {
    self.db = db
    self.relationship = relationship
  }

  func validate() throws {
    _ = try relationships()
    if db == nil && !relationship.isEmpty { throw ValidationError("--relationship needs --db") }
  }

  func relationships() throws -> [String: String] {
    var out: [String: String] = [:]
    for r in relationship {
      let parts = r.split(separator: "=", omittingEmptySubsequences: false)
      guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
        throw ValidationError("--relationship '\(r)' is not column=Entity (e.g. plane=Plane)")
      }
      out[String(parts[0])] = String(parts[1])
    }
    return out
  }

  /// The database named by `--db`, if any.
  var database: UserDatabase? {
    get throws { try db.map { UserDatabase(path: $0, relationships: try relationships()) } }
  }
}

struct Describe: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print what FetchBench reads of your database: entities, row counts, attributes, relationships, indexes.",
    discussion: """
      Check this before measuring: the entities are what --entity names, the attributes and relationships what --sort, --section and --where can use.

      Example:
        fetchbench describe --db ~/Library/.../MyApp.sqlite --relationship plane=Plane
      """)

  @OptionGroup var database: DatabaseOptions

  func validate() throws {
    guard database.db != nil else { throw ValidationError("describe needs --db FILE: the SQLite database to read") }
  }

  func run() throws {
    guard let db = try database.database else { return }
    let schema = try db.schema()
    let (model, skipped) = try schema.model(relationships: db.relationships)
    print(schema.describe(model, skipped: skipped, opened: db.openModeDescription), terminator: "")
  }
}
