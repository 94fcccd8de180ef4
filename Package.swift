// swift-tools-version: 6.1
import PackageDescription

// `make test` builds the engine with its invariant checks compiled in (InternalChecks.swift);
// every other build leaves them out.
let internalChecks: [SwiftSetting] =
  Context.environment["FETCHBENCH_INTERNAL_CHECKS"] == "1" ? [.define("FETCHBENCH_INTERNAL_CHECKS")] : []

// PostgreSQL support needs swift-nio, postgres-nio and BoringSSL, most of a fresh build: a
// trait (on by default, and in `make test`, `make bench-postgres` and CI) that `make build`
// leaves off, so that the first answer on SQLite builds in minutes. Without it the PostgreSQL
// store's types stay, and opening one says how to build with it.
let postgreSQL: Set<String> = ["PostgreSQL"]

// Versions are pinned `exact:` to the copies in this machine kind's package mirror.
let package = Package(
  name: "FetchBench",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "fetchbench", targets: ["fetchbench"]),
    .library(name: "FetchedResults", targets: ["FetchedResults"]),
    .library(name: "Catalog", targets: ["Catalog"]),
    .library(name: "Datasets", targets: ["Datasets"]),
    .library(name: "SQLiteStore", targets: ["SQLiteStore"]),
    .library(name: "PostgresStore", targets: ["PostgresStore"]),
  ],
  traits: [
    .trait(
      name: "PostgreSQL", description: "The PostgreSQL store (postgres-nio), its loader and every PostgreSQL case."),
    .default(enabledTraits: ["PostgreSQL"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", exact: "0.2.0"),
    // `swift package generate-documentation --target FetchedResults`: the engine's DocC catalog.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
  ],
  targets: [
    // The engine: no store backend, no harness. With FETCHBENCH_INTERNAL_CHECKS=1 in the
    // environment (`make test`), its structures check their invariants after every mutation.
    .target(name: "FetchedResults", swiftSettings: internalChecks),
    // Child processes with both pipes drained, a timeout and a crash summary: for the harness,
    // the PostgreSQL loader's psql, and the tests.
    .target(name: "ChildProcesses"),
    // The datasets as the engine sees them: kinds, table schemas, models, typed rows.
    // Foundation's string comparison under NSSortDescriptor's selectors, for the engine's models.
    .target(name: "Collation", dependencies: ["FetchedResults"]),
    // Numbers and prose as the reports and the terminal print them, independent of locale.
    .target(name: "TextFormatting"),
    .target(name: "Catalog", dependencies: ["FetchedResults", "Collation"]),
    // SHA-256 from the system's OpenSSL (`scripts/bootstrap` installs libssl-dev).
    .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // Generation: the seeded generator, writers, manifests, checksums; the write workload.
    .target(
      name: "Datasets",
      dependencies: [
        "FetchedResults", "Catalog", "CLibCrypto", "TextFormatting",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ]
    ),
    // SQL text for the SQL stores, per dialect: one compiler, so the stores agree.
    .target(name: "SQLQueries", dependencies: ["FetchedResults"]),
    .target(
      name: "SQLiteStore",
      dependencies: [
        "FetchedResults", "SQLQueries", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ]
    ),
    .target(
      name: "PostgresStore",
      dependencies: [
        "FetchedResults", "SQLQueries", "ChildProcesses",
        .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: postgreSQL)),
        .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: postgreSQL)),
        .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: postgreSQL)),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: postgreSQL)),
      ]
    ),
    // The harness's words, read and written by every job and reader without opening a store:
    // the store kinds, a user's list and where its rows came from, the harness's errors, the
    // command's settings.
    .target(name: "Vocabulary", dependencies: ["FetchedResults", "Catalog", "Collation", "SQLQueries"]),
    // Datasets into stores: opening a dataset file in a store kind, loading it into PostgreSQL.
    .target(
      name: "DatasetStores",
      dependencies: [
        "FetchedResults", "Catalog", "Collation", "Datasets", "SQLQueries", "SQLiteStore", "PostgresStore",
        "TextFormatting", "Vocabulary", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ]
    ),
    // jemalloc becomes the allocator of every process that links it: the harness reads its
    // statistics (live heap, peak, allocation counts).
    .systemLibrary(
      name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
    // What the harness measures with: clocks, heap statistics, samplers, summaries, the processor.
    .target(name: "HarnessSupport", dependencies: ["CJemalloc", "TextFormatting"]),
    // The results model: rows, keys, metrics and the vocabulary of a case (scenarios, fetch
    // modes, a user's list, index candidates), read and written by every job and writer.
    .target(
      name: "ResultModel",
      dependencies: [
        "FetchedResults", "Catalog", "Collation", "HarnessSupport", "TextFormatting", "Vocabulary",
      ]
    ),
    // What a reader consults, from result rows alone: the report, its charts, the recommendation.
    .target(
      name: "Reports",
      dependencies: ["FetchedResults", "Catalog", "HarnessSupport", "ResultModel", "TextFormatting", "Vocabulary"]
    ),
    // The harness's jobs: run, diff, load, gate, compare, history, the index advice.
    .target(
      name: "FetchBenchKit",
      dependencies: [
        "FetchedResults", "Catalog", "Datasets", "DatasetStores", "SQLQueries", "SQLiteStore", "PostgresStore",
        "ChildProcesses",
        "CJemalloc", "HarnessSupport", "ResultModel", "Reports", "TextFormatting", "Vocabulary",
        .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ]
    ),
    .executableTarget(
      name: "fetchbench",
      dependencies: [
        "FetchBenchKit", "Catalog", "ChildProcesses", "Collation", "Datasets", "DatasetStores", "FetchedResults",
        "SQLQueries", "SQLiteStore",
        "ResultModel", "Reports", "TextFormatting", "Vocabulary",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // The micro benchmarks are a package of their own (Benchmarks/Package.swift), so that
    // this package's builds never compile the benchmark plugin.
    // What the test targets share: temporary folders, the `fetchbench` runner, the engine's
    // small dataset and the PostgreSQL test databases.
    .target(
      name: "TestSupport",
      dependencies: [
        "Catalog", "ChildProcesses", "Datasets", "DatasetStores", "FetchedResults", "PostgresStore", "SQLiteStore",
      ],
      path: "Tests/TestSupport"),
    // Unit tests of the libraries: none builds the `fetchbench` binary.
    .testTarget(
      name: "DatasetsTests",
      dependencies: [
        "Catalog", "Datasets", "FetchedResults", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    .testTarget(
      name: "FetchedResultsTests",
      dependencies: [
        "FetchedResults", "Catalog", "Collation", "Datasets", "SQLQueries", "SQLiteStore", "PostgresStore",
        "DatasetStores", "TestSupport", "Vocabulary", .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    // The vocabulary's types: a list parsed once and sent typed; builds no store.
    .testTarget(name: "VocabularyTests", dependencies: ["Vocabulary", "Catalog", "FetchedResults"]),
    // The target graph against the sources' imports; builds no target of the package's own.
    .testTarget(name: "PackageGraphTests", dependencies: ["ChildProcesses"]),
    // The SQL compiler's statements, as exact text.
    .testTarget(name: "SQLQueriesTests", dependencies: ["FetchedResults", "SQLQueries", "Collation"]),
    // End-to-end: the `fetchbench` binary run as a user runs it, for its output, files and exit
    // codes (depending on it builds it).
    .testTarget(
      name: "CommandTests",
      dependencies: [
        "Catalog", "Datasets", "DatasetStores", "FetchedResults", "PostgresStore", "SQLiteStore", "TestSupport",
        "fetchbench", .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    // The harness's tests, most of them through the binary.
    .testTarget(
      name: "FetchBenchKitTests",
      dependencies: [
        "FetchBenchKit", "Catalog", "Datasets", "FetchedResults", "DatasetStores", "ChildProcesses", "TestSupport",
        "fetchbench", "HarnessSupport", "ResultModel", "Reports", "SQLQueries", "SQLiteStore", "PostgresStore",
        "TextFormatting", "Vocabulary", .product(name: "GRDB", package: "GRDB.swift"),
      ],
      exclude: ["Fixtures"]),
  ],
  swiftLanguageModes: [.v6]
)

// Using another module's extension counts as importing it (SE-0444): each file imports what
// it uses, so the package graph test sees every edge.
for target in package.targets where target.type != .system {
  target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
