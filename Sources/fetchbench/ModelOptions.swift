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

  /// The model at `path` (its version) and the population for a list of `entity`. Throws
  /// `ModelFileError` naming the file and the fix.
  func read(_ path: String, list entity: String) throws -> (ModelFile, ModelPopulation) {
    let file = try ModelFile.read(path, version: modelVersion)
    return (file, try population.map { try ModelPopulation(path: $0, model: file, list: entity) } ?? .init())
  }
}
