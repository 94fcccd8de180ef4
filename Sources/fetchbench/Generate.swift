import ArgumentParser
import Catalog
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import TextFormatting
import Vocabulary

struct Generate: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Generate the banks and wells datasets, deterministically, as SQLite and CSV.")

  @Option(help: "banks, wells, or all (default: all).")
  var dataset: String?

  // `.unconditional` so that `--rows -5` reaches validation and gets a clear message instead of
  // being read as an unknown flag.
  @Option(parsing: .unconditional, help: "Rows per table (1 to 10,000,000).")
  var rows = DatasetKind.defaultRows

  @Option(
    parsing: .unconditional,
    help: "Seed of the generator (0 to 18,446,744,073,709,551,615); the same seed gives byte-identical CSV.")
  var seed: UInt64 = 1

  @Option(help: "The datasets folder to write, as every other command reads it (default: datasets).")
  var datasets: String?

  @Option(help: ArgumentHelp("The former name of --datasets.", visibility: .hidden))
  var out: String?

  /// The folder written: `--datasets`, or the former `--out` (with a warning).
  var folder: String { datasets ?? out ?? "datasets" }

  func validate() throws {
    if datasets != nil && out != nil {
      throw ValidationError("--out is the former name of --datasets: give --datasets alone")
    }
    try modelOptions.check(model: model)
    try checkOwnSource()
  }

  /// `--like` and `--model` write one file of their own kind: the options of the datasets'
  /// generation would be ignored there, so each is a usage error naming it.
  func checkOwnSource() throws {
    guard like != nil || model != nil else {
      if entity != nil { throw ValidationError("--entity names the list of --like or --model: give one, or drop it") }
      if !relationship.isEmpty { throw ValidationError("--relationship is for --like: give --like FILE, or drop it") }
      return
    }
    let source = like != nil ? "--like" : "--model"
    if like != nil && model != nil { throw ValidationError("--like and --model each name a source: give one") }
    let ignored: [(given: Bool, option: String)] = [
      (dataset != nil, "--dataset"), (format != nil, "--format"), (!index.isEmpty, "--index"),
      (store != nil, "--store"), (schema != nil, "--schema"), (model != nil && !relationship.isEmpty, "--relationship"),
    ]
    if let option = ignored.first(where: \.given)?.option {
      throw ValidationError(
        """
        \(option) is for the banks and wells datasets; \(source) writes one SQLite file of its own schema: drop \
        \(option)
        """)
    }
  }

  @Option(help: "Formats to write: sqlite, csv, or sqlite,csv (default: sqlite,csv).")
  var format: String?

  @Option(
    help:
      """
      Add an index (repeatable): a column, e.g. --index close_date, or columns of one table joined by +, e.g. \
      --index info_id+close_date.
      """
  )
  var index: [String] = []

  @Flag(help: "Keep datasets that already exist and are in the manifest.")
  var ifMissing = false

  @Option(
    help: "Also load the datasets into this store: postgres (by COPY, with the same tables, columns and indexes).")
  var store: String?

  @OptionGroup var postgres: PostgresOptions

  @Option(
    help: ArgumentHelp(
      """
      fetchbench (the default), or coredata: also write the rows as Core Data's SQLite store holds them, as \
      DATASETS/DATASET-ROWS-sSEED.coredata.sqlite.
      """,
      discussion:
        """
        Core Data's schema: Z-tables with Z_PK, Z_ENT and Z_OPT, a to-one's key on both sides of a one-to-one, an \
        index on each, dates as seconds since 2001, Z_PRIMARYKEY and Z_METADATA.
        """
    ))
  var schema: String?

  @Option(
    help:
      """
      Your own SQLite database (an app's or a Core Data store): write a synthetic one of --rows rows of --entity \
      whose columns and relationships follow yours, as DATASETS/ENTITY-like-ROWS-sSEED.sqlite.
      """
  ) var like: String?
  @Option(
    help: "With --like: the table or Core Data entity whose rows are drawn; with --model: the entity of the list.")
  var entity: String?
  @Option(
    help: ArgumentHelp(
      """
      Your app's Core Data model (a .xcdatamodeld or .xcdatamodel folder): write a Core Data store of its schema \
      with --rows rows of --entity and the rows its relationships reach, as \
      DATASETS/MODEL-ENTITY-ROWS-sSEED.coredata.sqlite.
      """,
      valueName: "path"))
  var model: String?
  @OptionGroup var modelOptions: ModelOptions
  @Option(help: "With --like: a to-one relationship that its column's name does not say, as column=Entity; repeatable.")
  var relationship: [String] = []

  func run() throws {
    Interrupts.install()
    if out != nil {
      Command.log(
        """
        warning: generate --out is now --datasets, as every other command names the folder; --out goes in a later \
        release
        """
      )
    }
    if let like { return try generateLike(like) }
    if let model { return try generateModel(model) }
    try postgres.apply()
    if let store, store != "postgres" {
      throw ValidationError("--store: '\(store)' cannot be loaded into; expected postgres")
    }
    if store != nil { try StoreKind.postgres.checkBuilt() }
    var request = try makeRequest()
    // PostgreSQL and Core Data's schema are written from the SQLite file.
    let physical: PhysicalSchema = try OptionValue.kind(schema ?? PhysicalSchema.fetchbench.rawValue, "schema")
    if store != nil || physical == .coreData { request.writeSQLite = true }
    let progress = ProgressLine()
    let results: [GeneratedDataset]
    do {
      results = try Generation.run(request, progress: progress)
    } catch {
      // A runtime failure (a file that differs from the manifest, an unwritable folder):
      // "Error: …" and exit 1, not the usage text.
      progress.finish()
      throw error
    }
    for r in results {
      let paths = [r.sqlitePath, r.csvDirectory.map { $0 + "/" }].compactMap { $0 }
      if r.skipped {
        print("\(r.kind.rawValue): kept \(paths.joined(separator: ", ")) (already generated)")
        continue
      }
      let perTable = r.entry.tables.map { "\($0.table) \($0.rows.grouped) rows" }
      print(
        "\(r.kind.rawValue): wrote \(paths.joined(separator: ", ")): "
          + "\(perTable.joined(separator: ", ")) in \(String(format: "%.2f", r.seconds)) s "
          + "(\(Int(r.rowsPerSecond).grouped) rows/s)")
      for t in r.entry.tables { print("  sha256 \(t.sha256)  \(t.table).csv") }
      print(
        "  dataset sha256 \(r.entry.sha256)"
          + (r.verifiedAgainstManifest ? " (matches the manifest)" : " (added to the manifest)"))
    }
    if physical == .coreData {
      for r in results {
        let location = DatasetLocation(
          kind: r.kind, rows: request.rows, seed: request.seed, directory: request.outDirectory)
        let path = try CoreDataFile.write(from: location)
        print("\(r.kind.rawValue): wrote \(path) (Core Data's schema): sha256 \(try UserDatabase(path: path).sha256())")
      }
    }
    guard store != nil else { return }
    for r in results {
      let location = DatasetLocation(
        kind: r.kind, rows: request.rows, seed: request.seed, directory: request.outDirectory, indexes: request.indexes)
      let url = try PostgresLocation.url(nil)
      let seconds = try PostgresLoader.load(location, into: url, force: true)
      print(
        """
        \(r.kind.rawValue): loaded into \(url) by COPY in \(String(format: "%.2f", seconds)) s (tables, indexes, \
        ANALYZE)
        """
      )
    }
  }

  /// `--model`: a Core Data store of the model's schema, at `--rows` rows of `--entity`.
  func generateModel(_ path: String) throws {
    guard let entity else {
      throw ValidationError("--model needs --entity NAME: the entity of the list (describe --model names them)")
    }
    guard (1...DatasetKind.maxRows).contains(rows) else {
      throw ValidationError(DatasetError.invalidRows(rows).description)
    }
    let store = try modelOptions.store(path, entity: entity, rows: rows, seed: seed).generate(into: folder)
    print("\(store.written ? "wrote" : "kept") \(store.path): \(store.description)")
  }

  /// `--like`: a synthetic database drawn from the user's, at `--rows`.
  func generateLike(_ path: String) throws {
    guard let entity else {
      throw ValidationError("--like needs --entity NAME: the table or Core Data entity whose rows are drawn")
    }
    guard (1...DatasetKind.maxRows).contains(rows) else {
      throw ValidationError(DatasetError.invalidRows(rows).description)
    }
    let relationships = try DatabaseOptions(db: path, relationship: relationship).relationships()
    if UserDatabase.isServerURL(path) {
      throw UserDatabaseError.serverReadOnly(try ServerSchema(path).description, "generate --like")
    }
    let name = String(entity.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
    let target = "\(folder)/\(name)-like-\(rows)-s\(seed).sqlite"
    let source = UserDatabase(path: path, relationships: relationships)
    // A source that cannot be read leaves no datasets folder behind (the schema read is kept).
    _ = try source.schema()
    if !FileManager.default.fileExists(atPath: folder) {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    let generation = LikeGeneration(source: source, entity: entity, rows: rows, seed: seed, out: target)
    let drawn = try generation.run()
    print("\(drawn.written ? "wrote" : "kept") \(target): \(drawn.description)")
  }

  func makeRequest() throws -> GenerationRequest {
    let kinds: [DatasetKind]
    let dataset = self.dataset ?? "all"
    if dataset == "all" {
      kinds = DatasetKind.allCases
    } else if let k = DatasetKind(rawValue: dataset) {
      kinds = [k]
    } else {
      throw ValidationError(DatasetError.unknownDataset(dataset).description)
    }
    let formats = (format ?? "sqlite,csv").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    for f in formats where f != "sqlite" && f != "csv" {
      throw ValidationError(DatasetError.unknownFormat(f).description)
    }
    guard !formats.isEmpty else { throw ValidationError(DatasetError.unknownFormat("").description) }
    let request = GenerationRequest(
      datasets: kinds, rows: rows, seed: seed, outDirectory: folder,
      writeSQLite: formats.contains("sqlite"), writeCSV: formats.contains("csv"),
      indexes: index.flatMap { $0.split(separator: ",").map(String.init) }, ifMissing: ifMissing)
    do {
      try request.validate()
    } catch let error as DatasetError {
      throw ValidationError(error.description)
    }
    return request
  }
}
