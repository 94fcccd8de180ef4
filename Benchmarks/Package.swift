// swift-tools-version: 6.1
import PackageDescription

// The micro benchmarks (package-benchmark) as a package of their own, depending on FetchBench
// by path: `make build` and the tests never build the benchmark plugin or its dependencies.
// `make bench-micro`, `make bench-micro-check` and `make bench-micro-update` run them from here.
//
// A package reached by path is known by its folder's name, which is the checkout's (it differs
// between clones): the products below name it as SwiftPM does, from this folder's parent.
let fetchBench = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "FetchBench").lowercased()

let package = Package(
  name: "FetchBenchMicro",
  platforms: [.macOS(.v15)],
  dependencies: [
    // Without the PostgreSQL trait: no suite uses PostgreSQL, so swift-nio is not built.
    .package(path: "..", traits: []),
    // Only the MallocInterposer trait: the default RuntimeInterposer pulls a package this
    // machine kind's mirror does not have (toolchain-notes).
    .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    // They link the engine and the stores, never FetchBenchKit, whose jemalloc would replace
    // the allocator that the benchmarks' malloc counters interpose.
    .executableTarget(
      name: "Diff",
      dependencies: [
        .product(name: "FetchedResults", package: fetchBench), .product(name: "Datasets", package: fetchBench),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Diff",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "Engine",
      dependencies: [
        .product(name: "FetchedResults", package: fetchBench), .product(name: "Catalog", package: fetchBench),
        .product(name: "Datasets", package: fetchBench), .product(name: "SQLiteStore", package: fetchBench),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Engine",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
