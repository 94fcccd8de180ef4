import ArgumentParser
import Catalog
import DatasetStores
import FetchBenchKit

/// `--db` and what goes with it: the user's own database in place of a generated dataset.
struct DatabaseOptions: ParsableArguments {
  @Option(
    help:
      "Your own database instead of a dataset: a SQLite file (an app's schema or a Core Data store's .sqlite) or postgres://user@host:port/database?schema=NAME; read only, never written."
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
    get throws { try db.map { try UserDatabase.named($0, relationships: try relationships()) } }
  }
}

extension DatabaseOptions {
  /// The list over the user's database in place of the datasets, at its table's row count:
  /// `run` and `diff` measure it as a dataset's. `list`'s parts are the user's `--sort`,
  /// `--section` and `--where`, each optional. `sectionLeads`: the section must be the first
  /// sort key (`run`'s list); otherwise it is what the sectioned variant groups by, first
  /// (`diff`).
  func apply(_ db: UserDatabase, entity: String?, list: CustomRequest, sectionLeads: Bool = true, to options: inout RunOptions) throws {
    guard let entity else {
      let (model, _) = try db.schema().model(relationships: db.relationships)
      throw ValidationError(
        "--db needs --entity NAME, the table or Core Data entity to list; this database has: \(model.entities.map(\.name).joined(separator: ", "))"
      )
    }
    if try db.server != nil {
      if options.stores.contains(.sqlite) { throw UserDatabaseError.serverNotSQLite(db.path) }
      // No index is created on the user's server: candidates are built only in a copy of
      // FetchBench's own, when allowed.
      if db.allowsIndexTrials != true { options.withIndex = false }
    }
    let resolved: (list: UserList, kind: DatasetKind, rows: Int, request: CustomRequest?)
    do {
      resolved = try UserList.resolve(db, entity: entity, list: list, sectionLeads: sectionLeads)
    } catch let error as HarnessError {
      throw ValidationError(error.description)
    }
    options.datasets = [resolved.kind]
    options.rows = [resolved.rows]
    options.userList = resolved.list
    // The cases' processes register the kind again from the file, with this sort and section.
    options.request = resolved.request
  }
}

struct Describe: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print what FetchBench reads of your database: entities, row counts, attributes, relationships, indexes.",
    discussion: """
      Check this before measuring: the entities are what --entity names, the attributes and relationships what --sort, --section and --where can use.

      Example:
        fetchbench describe --db MyApp.sqlite --relationship plane=Plane
        fetchbench describe --db 'postgres://me@localhost/app?schema=public'
        fetchbench describe --model MyApp.xcdatamodeld
      """)

  @OptionGroup var database: DatabaseOptions

  @Option(
    help: ArgumentHelp(
      "Your app's Core Data model: a .xcdatamodeld folder (its current version), a .xcdatamodel folder or its contents file.",
      valueName: "path"))
  var model: String?

  @Option(help: ArgumentHelp("With --model: the version of the .xcdatamodeld to read (`MyApp 2`).", valueName: "name"))
  var modelVersion: String?

  func validate() throws {
    guard (database.db == nil) != (model == nil) else {
      throw ValidationError("describe needs --db FILE (a database to read) or --model PATH (a Core Data model), one of them")
    }
    if modelVersion != nil && model == nil { throw ValidationError("--model-version needs --model PATH") }
  }

  func run() throws {
    if let model {
      let file = try ModelFile.read(model, version: modelVersion)
      print(file.describe(CoreDataSchema(file)), terminator: "")
      return
    }
    guard let db = try database.database else { return }
    let schema = try db.schema()
    let (model, skipped) = try schema.model(relationships: db.relationships)
    print(schema.describe(model, skipped: skipped, opened: db.openModeDescription), terminator: "")
  }
}
