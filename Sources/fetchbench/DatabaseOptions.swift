import ArgumentParser
import Catalog
import DatasetStores
import FetchBenchKit
import FetchedResults
import Foundation
import ResultModel
import TextFormatting
import Vocabulary

/// `--db` and what goes with it: the user's own database in place of a generated dataset.
struct DatabaseOptions: ParsableArguments {
  @Option(
    help:
      """
      Your own database instead of a dataset: a SQLite file (an app's schema or a Core Data store's .sqlite) or \
      postgres://user@host:port/database?schema=NAME; read only, never written.
      """
  ) var db: String?
  @Option(
    help:
      """
      With --db: a to-one relationship that its column's name does not say, as column=Entity (e.g. plane=Plane); \
      repeatable.
      """
  )
  var relationship: [String] = []
  @Option(
    help: ArgumentHelp(
      """
      Your app's Core Data model instead of a database: a .xcdatamodeld folder (its current version), a .xcdatamodel \
      folder or its contents file; the list is measured on a Core Data store of its schema with --rows rows of \
      --entity, generated into the datasets folder when missing.
      """,
      valueName: "path"))
  var model: String?
  @OptionGroup var modelOptions: ModelOptions

  init() {}

  init(db: String?, relationship: [String]) {
    self.db = db
    self.relationship = relationship
  }

  func validate() throws {
    _ = try relationships()
    if db == nil && !relationship.isEmpty { throw ValidationError("--relationship needs --db") }
    if db != nil && model != nil {
      throw ValidationError("--db and --model name two lists' databases: give one of them")
    }
    try modelOptions.check(model: model)
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

  /// The database `--db` names, or the Core Data store of `--model` with `rows` rows of
  /// `entity`, generated into `datasets` unless a file of the same inputs is there.
  func database(entity: String?, rows: Int?, datasets: String) throws -> UserDatabase? {
    guard let model else { return try database }
    guard let entity else {
      throw ValidationError("--model needs --entity NAME: the entity of the list (describe --model names them)")
    }
    guard let rows, (1...DatasetKind.maxRows).contains(rows) else {
      throw ValidationError(
        "--model needs --rows N (1 to \(DatasetKind.maxRows.grouped)): the rows of \(entity) to generate")
    }
    let store = try modelOptions.store(model, entity: entity, rows: rows).generate(into: datasets)
    if store.written { Command.log("wrote \(store.path): \(store.description)") }
    return try store.database()
  }
}

extension DatabaseOptions {
  /// The list over the user's database in place of the datasets, at its table's row count:
  /// `run` and `diff` measure it as a dataset's. `list`'s parts are the user's `--sort`,
  /// `--section` and `--where`, each optional. `sectionLeads`: the section must be the first
  /// sort key (`run`'s list); otherwise it is what the sectioned variant groups by, first
  /// (`diff`).
  func apply(
    _ db: UserDatabase, entity: String?, list: ListSpec.Text, sectionLeads: Bool = true, to options: inout RunOptions
  ) throws {
    guard let entity else {
      let (model, _) = try db.model(of: db.schema())
      throw ValidationError(
        """
        --db needs --entity NAME, the table or Core Data entity to list; this database has: \
        \(model.entities.map(\.name).joined(separator: ", "))
        """
      )
    }
    if try db.server != nil {
      if options.stores.contains(.sqlite) { throw UserDatabaseError.serverNotSQLite(db.path) }
      // No index is created on the user's server: candidates are built only in a copy of
      // FetchBench's own, when allowed.
      if db.allowsIndexTrials != true { options.withIndex = false }
    }
    let resolved: (list: UserList, kind: DatasetKind, rows: Int, request: ListSpec?)
    do {
      resolved = try UserList.resolve(db, entity: entity, list: list, sectionLeads: sectionLeads)
    } catch let error as ListError {
      throw ValidationError(error.description)
    }
    options.datasets = [resolved.kind]
    options.rows = [resolved.rows]
    options.userList = resolved.list
    // The cases' processes register the kind again from the file, with this sort and section.
    options.request = resolved.request
  }
}
