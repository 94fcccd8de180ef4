import ChildProcesses
import Foundation
import Testing

/// The package's targets as the manifest declares them (`swift package dump-package`) and as
/// their sources import them: every import declared, no cycle, the engine importing nothing.
@Suite struct PackageGraph {
  /// Modules every target may import: the toolchain's own.
  static let toolchain: Set<String> = [
    "Foundation", "FoundationEssentials", "FoundationXML", "FoundationNetworking", "Dispatch", "Glibc", "Musl",
    "Darwin",
    "Synchronization", "Testing", "XCTest", "_Concurrency", "CoreFoundation",
  ]

  @Test func everyImportIsADeclaredDependency() throws {
    let graph = try Manifest.read()
    var undeclared: [String] = []
    for target in graph.targets where target.type != "system" {
      let allowed = Set(target.dependencies).union(Self.toolchain).union([target.name])
      for (file, module) in try Manifest.imports(of: target) where !allowed.contains(module) {
        undeclared.append("\(file) imports \(module), which \(target.name) does not declare")
      }
    }
    #expect(undeclared == [])
  }

  @Test func theTargetGraphHasNoCycle() throws {
    let graph = try Manifest.read()
    let edges = Dictionary(uniqueKeysWithValues: graph.targets.map { ($0.name, $0.dependencies) })
    #expect(Manifest.cycle(in: edges) == nil)
  }

  /// A library's unit tests build the library, not the command line: `swift build --target
  /// FetchedResultsTests` compiles neither `fetchbench` nor the harness.
  @Test func theUnitTestTargetsDoNotBuildTheCommandLine() throws {
    let graph = try Manifest.read()
    let edges = Dictionary(uniqueKeysWithValues: graph.targets.map { ($0.name, $0.dependencies) })
    for unit in ["FetchedResultsTests", "DatasetsTests", "PackageGraphTests", "VocabularyTests"] {
      #expect(edges[unit] != nil, "\(unit) is a target")
      #expect(Manifest.closure(of: unit, in: edges).intersection(["fetchbench", "FetchBenchKit"]) == [], "\(unit)")
    }
    let stores: Set<String> = ["DatasetStores", "SQLiteStore", "PostgresStore", "GRDB", "PostgresNIO"]
    #expect(Manifest.closure(of: "VocabularyTests", in: edges).intersection(stores) == [], "VocabularyTests")
  }

  /// The readers of results render a folder from its files alone: neither they nor anything
  /// they build on opens a store, links a database library, writes a file or runs a process.
  @Test func theReadersOfResultsBuildOnNoStore() throws {
    let graph = try Manifest.read()
    let edges = Dictionary(uniqueKeysWithValues: graph.targets.map { ($0.name, $0.dependencies) })
    let forbidden: Set<String> = [
      "DatasetStores", "SQLiteStore", "PostgresStore", "Datasets", "ChildProcesses", "GRDB", "GRDBSQLite",
      "PostgresNIO", "NIOCore", "NIOPosix",
    ]
    for reader in ["Vocabulary", "ResultModel", "Reports"] {
      #expect(edges[reader] != nil, "\(reader) is a target")
      #expect(Manifest.closure(of: reader, in: edges).intersection(forbidden) == [], "\(reader)")
    }
  }

  @Test func aCycleIsFoundAndNamed() {
    #expect(Manifest.cycle(in: ["A": ["B"], "B": ["C"], "C": ["A"], "D": ["A"]]) == ["A", "B", "C", "A"])
    #expect(Manifest.cycle(in: ["A": ["B", "C"], "B": ["C"], "C": []]) == nil)
  }

  @Test func theEngineImportsOnlyTheToolchain() throws {
    let graph = try Manifest.read()
    let engine = try #require(graph.targets.first { $0.name == "FetchedResults" })
    #expect(engine.dependencies == [])
    #expect(try Manifest.imports(of: engine).filter { !Self.toolchain.contains($0.module) }.map(\.module) == [])
  }

  /// The edges the design allows, as data: each target and what it may depend on. A new edge
  /// is a change of this table, reviewed as one; an edge the manifest gains without it fails.
  static let allowedEdges: [String: Set<String>] = [
    "FetchedResults": [],
    "ChildProcesses": [],
    "TextFormatting": [],
    "Collation": ["FetchedResults"],
    "Catalog": ["FetchedResults", "Collation"],
    "SQLQueries": ["FetchedResults"],
    "Datasets": ["FetchedResults", "Catalog", "TextFormatting", "CLibCrypto", "GRDB", "GRDBSQLite"],
    "SQLiteStore": ["FetchedResults", "SQLQueries", "GRDB", "GRDBSQLite"],
    "PostgresStore": [
      "FetchedResults", "SQLQueries", "ChildProcesses", "PostgresNIO", "NIOCore", "NIOPosix", "Logging",
    ],
    "Vocabulary": ["FetchedResults", "Catalog", "Collation", "SQLQueries"],
    "HarnessSupport": ["TextFormatting", "CJemalloc"],
    // The readers of results: no store, no file of their own, no process.
    "ResultModel": ["FetchedResults", "Catalog", "Collation", "Vocabulary", "HarnessSupport", "TextFormatting"],
    "Reports": ["FetchedResults", "Catalog", "Vocabulary", "HarnessSupport", "ResultModel", "TextFormatting"],
    "DatasetStores": [
      "FetchedResults", "Catalog", "Collation", "SQLQueries", "Datasets", "SQLiteStore", "PostgresStore",
      "TextFormatting", "Vocabulary", "GRDB", "GRDBSQLite",
    ],
    "FetchBenchKit": [
      "FetchedResults", "Catalog", "SQLQueries", "Datasets", "SQLiteStore", "PostgresStore", "DatasetStores",
      "ChildProcesses", "Vocabulary", "HarnessSupport", "ResultModel", "Reports", "TextFormatting", "CJemalloc",
      "GRDB", "GRDBSQLite", "Histogram",
    ],
    "fetchbench": [
      "FetchedResults", "Catalog", "Collation", "SQLQueries", "Datasets", "SQLiteStore", "DatasetStores",
      "ChildProcesses", "Vocabulary", "ResultModel", "Reports", "TextFormatting", "FetchBenchKit", "ArgumentParser",
    ],
  ]

  @Test func everyEdgeIsOneTheTableAllows() throws {
    let graph = try Manifest.read()
    let targets = graph.targets.filter { ($0.type == "regular" || $0.type == "executable") && $0.path == nil }
    #expect(Set(targets.map(\.name)) == Set(Self.allowedEdges.keys), "the table names every library target")
    for target in targets {
      let extra = Set(target.dependencies).subtracting(Self.allowedEdges[target.name] ?? [])
      #expect(extra.isEmpty, "\(target.name) depends on \(extra.sorted()), which the table does not allow")
    }
  }

  /// The README's "What is here" lists the targets in layers; each imports only lower ones.
  @Test func everyTargetImportsOnlyTheLayersBelowItAsTheREADMEDrawsThem() throws {
    let graph = try Manifest.read()
    let layers = try Manifest.readmeLayers()
    let listed = layers.flatMap { $0 }
    let targets = graph.targets.filter { ($0.type == "regular" || $0.type == "executable") && $0.path == nil }
    #expect(Set(listed) == Set(targets.map(\.name)), "the README's layers name every target once")
    #expect(listed.count == Set(listed).count)
    let level = Dictionary(uniqueKeysWithValues: layers.enumerated().flatMap { i, names in names.map { ($0, i) } })
    for target in targets {
      guard let own = level[target.name] else { continue }
      for dependency in target.dependencies {
        guard let theirs = level[dependency] else { continue }
        #expect(theirs > own, "\(target.name) imports \(dependency), which the README draws above or beside it")
      }
    }
  }
}

/// `swift package dump-package`, reduced to what the checks read.
enum Manifest {
  struct Graph: Decodable {
    var targets: [Target]
  }

  struct Target: Decodable {
    var name: String
    var type: String
    var path: String?
    var dependencies: [String]

    enum CodingKeys: String, CodingKey { case name, type, path, dependencies }

    init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      name = try c.decode(String.self, forKey: .name)
      type = try c.decode(String.self, forKey: .type)
      path = try c.decodeIfPresent(String.self, forKey: .path)
      dependencies = try c.decode([Dependency].self, forKey: .dependencies).map(\.name)
    }

    /// The folder of its sources, as SwiftPM finds it.
    var folder: URL {
      let base = Manifest.root
      if let path { return base.appending(path: path) }
      return base.appending(path: type == "test" ? "Tests" : "Sources").appending(path: name)
    }
  }

  /// `{"byName": [name, condition]}`, `{"target": [name, condition]}` or
  /// `{"product": [name, package, moduleAliases, condition]}`: the module is the first name
  /// (every product this package uses is named as its module).
  struct Dependency: Decodable {
    var name: String

    init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: AnyKey.self)
      guard let key = c.allKeys.first else {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "empty"))
      }
      var parts = try c.nestedUnkeyedContainer(forKey: key)
      name = try parts.decode(String.self)
    }
  }

  struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The manifest as SwiftPM reads it. A scratch folder of its own: the package's `.build` is
  /// locked by the `swift test` running this.
  static func read() throws -> Graph {
    let scratch = FileManager.default.temporaryDirectory.appending(path: "fetchbench-graph-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let output = try ChildProcess.run(
      "/usr/bin/env", ["swift", "package", "--scratch-path", scratch.path, "dump-package"], currentDirectory: root.path,
      timeout: 300)
    try #require(output.succeeded, "swift package dump-package: \(output.standardError)")
    return try JSONDecoder().decode(Graph.self, from: output.standardOutput)
  }

  /// The target names of the README's layer list, top first: the fenced block after
  /// `<!-- target layers -->`, names separated by " · " before the description.
  /// Every module `name` builds on, directly or not. O(edges).
  static func closure(of name: String, in edges: [String: [String]]) -> Set<String> {
    var seen: Set<String> = []
    var next = [name]
    while let n = next.popLast() {
      for d in edges[n] ?? [] where seen.insert(d).inserted { next.append(d) }
    }
    return seen
  }

  static func readmeLayers() throws -> [[String]] {
    let readme = try String(contentsOf: root.appending(path: "README.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "<!-- target layers -->\n```text\n"))
    let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
    return readme[start.upperBound..<end.lowerBound].split(separator: "\n").map { line in
      let names = line.components(separatedBy: "  ").first ?? ""
      return names.components(separatedBy: " · ").map { $0.trimmingCharacters(in: .whitespaces) }
    }
  }

  /// Every `import M` (with attributes or a declaration kind) in a target's Swift files.
  static func imports(of target: Target) throws -> [(file: String, module: String)] {
    let folder = target.folder
    guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
    var out: [(String, String)] = []
    for case let url as URL in files where url.pathExtension == "swift" {
      let text = try String(contentsOf: url, encoding: .utf8)
      for line in text.split(separator: "\n") {
        let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
        guard words.first == "import", words.count >= 2 else { continue }
        let declarationKinds: Set<Substring> = [
          "struct", "class", "enum", "protocol", "func", "var", "let", "typealias",
        ]
        let name = declarationKinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
        out.append((url.lastPathComponent, String(name.split(separator: ".")[0])))
      }
    }
    return out
  }

  /// A cycle of `edges` as the names along it, or nil. O(targets + dependencies).
  static func cycle(in edges: [String: [String]]) -> [String]? {
    var state: [String: Bool] = [:]  // false: on the path; true: done
    var path: [String] = []
    func visit(_ node: String) -> [String]? {
      if state[node] == true { return nil }
      if state[node] == false { return path.drop { $0 != node } + [node] }
      state[node] = false
      path.append(node)
      for next in edges[node] ?? [] where edges[next] != nil {
        if let found = visit(next) { return found }
      }
      path.removeLast()
      state[node] = true
      return nil
    }
    for node in edges.keys.sorted() {
      if let found = visit(node) { return found }
    }
    return nil
  }
}

/// GRDB's `execute(sql:)` runs every statement its text holds: a name from a model, a
/// database or an option pasted into it could run statements of its own. Text built from
/// anything but a literal is prepared alone (`makeStatement(sql:)`, which refuses a second
/// statement), so the only `execute(sql:)` calls left are literals.
@Suite struct OneStatementAtATime {
  @Test func everyStatementBuiltFromValuesIsPreparedAlone() throws {
    let sources = Manifest.root.appendingPathComponent("Sources")
    let call = try Regex(#"\.execute\(\s*sql:\s*"#)
    let literal = try Regex(#"^"[^"\\\n]*"\s*[,)]"#)
    var built: [String] = []
    let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
    for file in files.sorted() where file.hasSuffix(".swift") {
      let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
      for match in text.matches(of: call) where text[match.range.upperBound...].prefixMatch(of: literal) == nil {
        let line = text[..<match.range.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).count
        built.append("Sources/\(file):\(line)")
      }
    }
    #expect(built == [], "execute(sql:) with text built from values; use makeStatement(sql:).execute()")
    #expect(files.contains { $0.hasSuffix("CoreDataSchema.swift") }, "the scan reads the sources")
  }
}

/// The command line reads the environment once and hands what it says to the processes it
/// starts in their requests: below it, no target sets a variable or reads one of FetchBench's
/// (the engine's internal checks are a build setting, not a variable read at run time).
@Suite struct OneChannelToTheCases {
  /// Where `pattern` matches in the sources, as `Sources/FILE:LINE`, and the files read.
  static func uses(of pattern: String) throws -> (found: [String], files: [String]) {
    let sources = Manifest.root.appendingPathComponent("Sources")
    let use = try Regex(pattern)
    var found: [String] = []
    let files = (FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []).filter {
      $0.hasSuffix(".swift")
    }
    for file in files.sorted() {
      let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
      for match in text.matches(of: use) {
        let line = text[..<match.range.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).count
        found.append("Sources/\(file):\(line)")
      }
    }
    return (found, files)
  }

  @Test func onlyTheCommandLineReadsOrSetsFetchBenchsVariables() throws {
    let (found, files) = try Self.uses(of: #"setenv\(|FETCHBENCH_(?!INTERNAL_CHECKS)"#)
    #expect(
      found.filter { !$0.hasPrefix("Sources/fetchbench/") } == [],
      "only Sources/fetchbench reads the environment; pass settings in CommandSettings")
    #expect(files.contains("fetchbench/EnvironmentSettings.swift"), "the scan reads the sources")
  }

  /// A list is parsed in one place (`ListSpec(parsing:)`), in the command's process; every
  /// other reader, a case's process among them, receives it parsed.
  @Test func onlyTheListParsesSortsAndPredicates() throws {
    let (found, files) = try Self.uses(of: #"QueryParser\.(predicate|sortDescriptors)\("#)
    #expect(
      found.filter { !$0.hasPrefix("Sources/FetchedResults/") }.map { $0.split(separator: ":")[0] } == [
        "Sources/Vocabulary/ListSpec.swift", "Sources/Vocabulary/ListSpec.swift",
      ], "parse a list with ListSpec(parsing:), once, and pass the ListSpec")
    #expect(files.contains("Vocabulary/ListSpec.swift"), "the scan reads the sources")
  }
}
