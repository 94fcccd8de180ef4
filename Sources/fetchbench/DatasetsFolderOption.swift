import ArgumentParser

/// `--datasets`: the folder generated datasets are read from, and written to when one is
/// missing. One declaration for every command that opens a dataset.
struct DatasetsFolderOption: ParsableArguments {
  @Option(help: "Datasets folder.") var datasets = "datasets"
}
