import ArgumentParser
import DatasetStores

/// What goes with `--model` wherever a command takes it: the model's version and a population
/// file. One declaration for `generate` and the commands that measure a list.
struct ModelOptions: ParsableArguments {
  @Option(help: ArgumentHelp("With --model: the version of the .xcdatamodeld to read (`MyApp 2`).", valueName: "name"))
  var modelVersion: String?
  @Option(
    help: ArgumentHelp(
      """
      With --model: a JSON file of row counts, NULL shares and fan-outs other than the defaults \
      ({"entities": {"Folder": {"rows": 50}, "Item": {"attributes": {"title": {"nullShare": 0.3}}, \
      "relationships": {"folder": {"fanOut": 20}}}}}); every name is checked against the model.
      """,
      valueName: "file"))
  var population: String?

  /// Usage errors for options given without `--model`.
  func check(model: String?) throws {
    guard model == nil else { return }
    if modelVersion != nil { throw ValidationError("--model-version needs --model PATH") }
    if population != nil { throw ValidationError("--population needs --model PATH") }
  }

  /// The store of a list of `entity` at `rows` rows from the model at `path`, with this
  /// version and population.
  func store(_ path: String, entity: String, rows: Int, seed: UInt64 = 1) -> ModelStore {
    ModelStore(model: path, version: modelVersion, population: population, entity: entity, rows: rows, seed: seed)
  }
}
