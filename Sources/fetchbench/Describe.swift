import ArgumentParser
import Catalog
import DatasetStores
import FetchBenchKit
import Foundation
import ResultModel

/// `fetchbench describe`: what FetchBench reads of a database or a Core Data model.
struct Describe: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print what FetchBench reads of your database: entities, row counts, attributes, relationships, indexes.",
    discussion: """
      Check this before measuring: the entities are what --entity names, the attributes and relationships what --sort, \
      --section and --where can use.

      Example:
        fetchbench describe --db MyApp.sqlite --relationship plane=Plane
        fetchbench describe --db 'postgres://me@localhost/app?schema=public'
        fetchbench describe --model MyApp.xcdatamodeld
      """)

  @OptionGroup var database: DatabaseOptions

  func validate() throws {
    guard database.db != nil || database.model != nil else {
      throw ValidationError("describe needs --db FILE (a database to read) or --model PATH (a Core Data model)")
    }
  }

  func run() throws {
    if let model = database.model {
      let file = try ModelFile.read(model, version: database.modelOptions.modelVersion)
      print(file.describe(CoreDataSchema(file)), terminator: "")
      return
    }
    guard let db = try database.database else { return }
    let schema = try db.schema()
    let (model, skipped) = try db.model(of: schema)
    print(schema.describe(model, skipped: skipped, opened: db.openModeDescription), terminator: "")
  }
}
