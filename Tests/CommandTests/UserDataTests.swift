import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import GRDB
import PostgresStore
import SQLiteStore
import TestSupport
import Testing

/// FetchBench runs on people's own folders and servers: it never deletes or replaces what it
/// did not write, and every bad input is one `Error:` line and exit 1 (64 with usage for a bad
/// argument), never a trap.
@Suite(.serialized) struct UserData {
  /// A folder with a 2,000-row banks dataset, made once.
  static let datasets: String = {
    let dir = TestSupport.temporaryFolder("userdata") + "/datasets"
    let out = try? TestSupport.run([
      "generate", "--dataset", "banks", "--rows", "2000", "--datasets", dir, "--format", "sqlite",
    ])
    precondition(out?.status == 0, "generate failed: \(out?.stderr ?? "")")
    return dir
  }()

  static let d = ["--datasets", datasets, "--rows", "2000"]

  @Test func anOutputFolderWithTheUsersFilesIsNeitherTouchedNorReplaced() throws {
    let dir = TestSupport.temporaryFolder("out-keep")
    defer { TestSupport.remove(dir) }
    try Data("keep".utf8).write(to: URL(fileURLWithPath: dir + "/precious.txt"))
    let diff =
      ["diff", "--store", "memory", "--k", "1", "--no-edit", "--sections", "none", "--repetitions", "1"] + Self.d
    for out in [dir, dir + "/"] {
      let r = try TestSupport.run(diff + ["--out", out])
      #expect(r.status == 1, "\(r.stderr)")
      #expect(
        r.stderr.contains("Error: cannot write \(dir): the folder holds files FetchBench did not write (precious.txt)"),
        "\(r.stderr)")
      #expect(!r.stderr.contains("Usage:"), "a runtime error, not a usage error")
      #expect(TestSupport.listing(dir) == ["precious.txt"], "checked before the work: nothing written, nothing removed")
      #expect(!FileManager.default.fileExists(atPath: dir + ".partial"))
    }
    #expect(try String(contentsOfFile: dir + "/precious.txt", encoding: .utf8) == "keep")
    // An earlier output of the same command is replaced, with or without a trailing slash.
    let results = dir + "/results"
    for out in [results, results + "/"] {
      let r = try TestSupport.run(diff + ["--out", out])
      #expect(r.status == 0, "\(r.stderr)")
    }
    #expect(TestSupport.listing(dir).filter { !$0.hasPrefix("results/") } == ["precious.txt", "results"])
    #expect(FileManager.default.fileExists(atPath: results + "/results.csv"))
    // A file where the folder would go is refused before the work.
    let file = try TestSupport.run(diff + ["--out", dir + "/precious.txt"])
    #expect(file.status == 1 && file.stderr.contains("it is a file, not a folder"), "\(file.stderr)")
  }

  @Test func anEmptyFileIsNotTurnedIntoADatabase() throws {
    let dir = TestSupport.temporaryFolder("empty-db")
    defer { TestSupport.remove(dir) }
    let path = dir + "/banks-2000.sqlite"
    #expect(FileManager.default.createFile(atPath: path, contents: Data()))
    for store in ["sqlite", "memory"] {
      let r = try TestSupport.run(["fetch", "--store", store, "--datasets", dir, "--rows", "2000"])
      #expect(r.status == 1, "\(r.stderr)")
      #expect(r.stderr.contains("Error: \(path) is not a readable SQLite database: the file is empty"), "\(r.stderr)")
      #expect(TestSupport.listing(dir) == ["banks-2000.sqlite"], "no -wal or -shm file")
      #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0, "still empty")
    }
  }

  /// The in-memory store reads the dataset once, immutably: nothing appears beside the file
  /// and the file does not change.
  @Test func theMemoryStoreLeavesNothingBesideTheDataset() throws {
    let dir = TestSupport.temporaryFolder("memory-read")
    defer { TestSupport.remove(dir) }
    try FileManager.default.copyItem(atPath: Self.datasets + "/banks-2000.sqlite", toPath: dir + "/banks-2000.sqlite")
    let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/banks-2000.sqlite"))
    let r = try TestSupport.run(["fetch", "--store", "memory", "--datasets", dir, "--rows", "2000", "--ids"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.split(separator: "\n").count == 2_000)
    #expect(TestSupport.listing(dir) == ["banks-2000.sqlite"])
    #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/banks-2000.sqlite")) == before)
  }

  /// Inputs that trapped: each works or is one clear error.
  @Test func inputsThatTrappedAreAnswered() throws {
    // A literal beyond Int64 compares as a double: no bank's cert is that large.
    for predicate in ["details.cert > 1e19", "details.cert IN {1e30, -1e30}", "details.cert < -9223372036854775809"] {
      let r = try TestSupport.run(["fetch", "--where", predicate, "--ids"] + Self.d)
      #expect(r.status == 0, "\(predicate): \(r.stderr)")
    }
    let all = try TestSupport.run(["fetch", "--where", "details.cert > -1e19", "--ids"] + Self.d)
    #expect(all.stdout.split(separator: "\n").count == 2_000)
    let infinite = try TestSupport.run(["fetch", "--where", "details.cert > 1e400"] + Self.d)
    #expect(
      infinite.status == 64 && infinite.stderr.contains("'1e400' is beyond the range of a double"), "\(infinite.stderr)"
    )
    for store in ["memory", "sqlite"] {
      let r = try TestSupport.run(
        ["fetch", "--store", store, "--offset", "5", "--limit", "9223372036854775807", "--batch-size", "0", "--ids"]
          + Self.d)
      #expect(r.status == 0, "\(store): \(r.stderr)")
      #expect(r.stdout.split(separator: "\n").count == 1_995, "\(store)")
    }
    for option in ["--dataset", "--store", "--mode", "--scenario"] {
      let empty = try TestSupport.run(["run", option, ""] + Self.d)
      #expect(empty.status == 64 && empty.stderr.contains("\(option) names nothing"), "\(empty.stderr)")
    }
    let show = try TestSupport.run(["fetch", "--show=-1"] + Self.d)
    #expect(show.status == 64 && show.stderr.contains("--show must be 0 or more"), "\(show.stderr)")
    let here = TestSupport.temporaryFolder("out-dot")
    defer { TestSupport.remove(here) }
    try Data("mine".utf8).write(to: URL(fileURLWithPath: here + "/notes.txt"))
    let dot = try TestSupport.run(
      ["diff", "--store", "memory", "--k", "1", "--no-edit", "--sections", "none", "--repetitions", "1", "--out", "."]
        + Self.d,
      currentDirectory: here)
    #expect(
      dot.status == 1 && dot.stderr.contains("the folder holds files FetchBench did not write (notes.txt)"),
      "\(dot.stderr)")
    #expect(!FileManager.default.fileExists(atPath: here + ".partial") && TestSupport.listing(here) == ["notes.txt"])
  }

  /// A `failed_bank_info` table of the user's own is never dropped: loading stops with an
  /// error naming the table and the flag that allows replacing it; with the flag it is.
  @Test func aUsersPostgresTableIsNeverReplaced() throws {
    try EngineFixture.shared.requirePostgres()
    let url = try TestDatabases.create("users_table")
    let admin = try PostgresAdmin(url: url)
    try admin.execute("CREATE TABLE failed_bank_info (id INT, note TEXT)")
    try admin.execute("INSERT INTO failed_bank_info VALUES (1, 'mine'), (2, 'also mine')")
    let fetch = ["fetch", "--store", "postgres", "--postgres-url", url.description, "--ids"] + Self.d
    let refused = try TestSupport.run(fetch)
    #expect(refused.status == 1, "\(refused.stderr)")
    #expect(
      refused.stderr.contains("table failed_bank_info") && refused.stderr.contains("was not created by FetchBench")
        && refused.stderr.contains("--postgres-replace-tables"), "\(refused.stderr)")
    #expect(try admin.scalar("SELECT string_agg(note, ',' ORDER BY id) FROM failed_bank_info") == "mine,also mine")
    #expect(try admin.scalar("SELECT count(*)::text FROM pg_namespace WHERE nspname = 'fetchbench_staging'") == "0")
    let replaced = try TestSupport.run(fetch + ["--postgres-replace-tables"])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(replaced.stdout.split(separator: "\n").count == 2_000)
    // Now the tables are FetchBench's: a reload replaces them without the flag.
    let reload = try TestSupport.run([
      "generate", "--dataset", "banks", "--rows", "2000", "--datasets", Self.datasets, "--format", "sqlite",
      "--if-missing", "--store",
      "postgres",
      "--postgres-url", url.description,
    ])
    #expect(reload.status == 0, "\(reload.stderr)")
  }
}

extension UserData {
  /// A load that fails half-way (here a foreign key that does not hold, found after both
  /// tables were copied) leaves the tables loaded before, their marker and nothing staged.
  @Test func aFailedPostgresLoadLeavesThePreviousTables() throws {
    try EngineFixture.shared.requirePostgres()
    let url = try TestDatabases.create("failed_load")
    let good = DatasetLocation(kind: .banks, rows: 2_000, directory: Self.datasets)
    #expect(try PostgresLoader.load(good, into: url, force: true) > 0)
    let admin = try PostgresAdmin(url: url)
    let tag = try admin.scalar("SELECT tag FROM fetchbench_meta WHERE dataset = 'banks'")
    // A copy of the dataset whose details row 3 names a bank that is gone.
    let dir = TestSupport.temporaryFolder("bad-load")
    defer { TestSupport.remove(dir) }
    try FileManager.default.copyItem(atPath: good.sqlitePath, toPath: dir + "/banks-2000.sqlite")
    var config = Configuration()
    config.foreignKeysEnabled = false
    let queue = try DatabaseQueue(path: dir + "/banks-2000.sqlite", configuration: config)
    try queue.write {
      try $0.execute(
        sql: "DELETE FROM failed_bank_info WHERE id = (SELECT info_id FROM failed_bank_details WHERE id = 3)")
    }
    try queue.close()
    #expect(throws: (any Error).self) {
      try PostgresLoader.load(DatasetLocation(kind: .banks, rows: 2_000, directory: dir), into: url, force: true)
    }
    #expect(try admin.scalar("SELECT count(*)::text FROM failed_bank_info") == "2000")
    #expect(try admin.scalar("SELECT count(*)::text FROM failed_bank_details") == "2000")
    #expect(try admin.scalar("SELECT tag FROM fetchbench_meta WHERE dataset = 'banks'") == tag)
    #expect(try admin.scalar("SELECT count(*)::text FROM pg_namespace WHERE nspname = 'fetchbench_staging'") == "0")
  }

  /// A dataset of the same name, size and seed whose contents differ (another generator's
  /// rows, here a manifest entry with another checksum) is loaded again, not taken for the
  /// rows the server holds; the same contents are not.
  @Test func otherContentsUnderTheSameNameAreLoadedAgain() throws {
    try EngineFixture.shared.requirePostgres()
    let url = try TestDatabases.create("contents")
    let dir = TestSupport.temporaryFolder("contents")
    defer { TestSupport.remove(dir) }
    try FileManager.default.copyItem(atPath: Self.datasets + "/banks-2000.sqlite", toPath: dir + "/banks-2000.sqlite")
    try FileManager.default.copyItem(atPath: Self.datasets + "/manifest.json", toPath: dir + "/manifest.json")
    let location = DatasetLocation(kind: .banks, rows: 2_000, directory: dir)
    #expect(try PostgresLoader.load(location, into: url, force: true) > 0)
    #expect(try PostgresLoader.load(location, into: url) == 0, "the same contents are there")
    var manifest = try Manifest.load(from: dir + "/manifest.json")
    let i = try #require(manifest.datasets.firstIndex { $0.dataset == .banks && $0.rows == 2_000 && $0.seed == 1 })
    manifest.datasets[i].sha256 = String(repeating: "1", count: 64)
    try manifest.save(to: dir + "/manifest.json")
    #expect(try PostgresLoader.load(location, into: url) > 0, "other contents under the same name")
  }

  /// Seeded random values for `fetch`'s numeric options: each run works, or ends with one
  /// error (exit 1, or 64 with the usage for a bad argument); none traps.
  @Test func randomNumericOptionsNeverTrap() throws {
    var rng = SeededRandom(seed: 1_414)
    let values = [
      "0", "1", "-1", "20", "2000", "2001", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e3",
      "", "x", "0x10",
    ]
    for _ in 0..<40 {
      var arguments = ["fetch", "--datasets", Self.datasets, "--rows", "2000"]
      for option in ["--limit", "--offset", "--batch-size", "--show"] where rng.below(2) == 0 {
        arguments.append("\(option)=\(values[Int(rng.below(UInt64(values.count)))])")
      }
      if rng.below(3) == 0 { arguments.append(["--ids", "--sections", "--stats"][Int(rng.below(3))]) }
      let r = try TestSupport.run(arguments)
      #expect([0, 1, 64].contains(r.status), "\(arguments): status \(r.status), \(r.stderr)")
      #expect(
        !r.stderr.contains("Swift runtime failure") && !r.stderr.contains("Fatal error"), "\(arguments): \(r.stderr)")
      if r.status != 0 { #expect(r.stderr.hasPrefix("Error: "), "\(arguments): one clear error: \(r.stderr)") }
    }
  }
}

/// A seeded property test over random predicate texts and request numbers: every input
/// parses and runs, or is one `FetchError`; none traps (a trap would end this process).
@Suite struct RequestFuzz {
  static let keyPaths = [
    "state", "name", "city", "details.cert", "details.closeDate", "details.zip", "details.fund", "state",
    "details.cert", "nothing",
    "details", "details.nope",
  ]
  static let literals = [
    "0", "-1", "1.5", "1e19", "-1e19", "1e308", "1e400", "-1e400", "9223372036854775807", "9223372036854775808",
    "-9223372036854775809", "'TX'", "'O''Brien'", "''", "2009-01-01", "2009-13-45", "1969-12-31", "TRUE", "FALSE",
    "nil", "0x10",
    "1e", ".", "'", "{", "NaN", "inf",
  ]
  static let operators = [
    "=", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "IN", "BETWEEN", "==", "=<",
    "LIKE[c]",
  ]
  /// Mostly valid: a request with any negative number is an error before anything runs.
  static let numbers = [0, 0, 0, 0, 1, 20, 3_000, Int.max, Int.max - 1, 0, 0, -1, Int.min]

  @Test func everyRandomRequestRunsOrIsOneError() throws {
    let store = try EngineFixture.shared.store(.banks, "memory")
    var rng = SeededRandom(seed: 14)
    func pick<T>(_ a: [T]) -> T { a[Int(rng.below(UInt64(a.count)))] }
    func comparison() -> String {
      let op = pick(Self.operators)
      switch op {
      case "IN":
        return
          "\(pick(Self.keyPaths)) IN {\((0..<Int(rng.below(4))).map { _ in pick(Self.literals) }.joined(separator: ", "))}"
      case "BETWEEN": return "\(pick(Self.keyPaths)) BETWEEN {\(pick(Self.literals)), \(pick(Self.literals))}"
      default: return "\(pick(Self.keyPaths)) \(op) \(pick(Self.literals))"
      }
    }
    var ran = 0
    var errors = 0
    for _ in 0..<3_000 {
      var text = comparison()
      for _ in 0..<Int(rng.below(3)) { text += " \(pick(["AND", "OR"])) \(pick(["", "NOT "]))\(comparison())" }
      if rng.below(5) == 0 { text = String(text.prefix(Int(rng.below(UInt64(text.count + 1))))) }
      var request = FetchRequest(entityName: "FailedBankInfo")
      request.sortDescriptors = [
        SortDescriptor(pick(["details.closeDate", "state", "name", "id"]), ascending: rng.below(2) == 0)
      ]
      request.fetchLimit = pick(Self.numbers)
      request.fetchOffset = pick(Self.numbers)
      request.fetchBatchSize = pick(Self.numbers)
      do {
        request.predicate = try QueryParser.predicate(text)
        let resolved = try request.resolve(in: store.model)
        let ids = try store.fetchIDs(resolved)
        #expect(ids.count <= 3_000)
        ran += 1
      } catch {
        errors += 1
        // The request refused, with its reason: never a store's own failure underneath it.
        var isStoreFailure = false
        if case .store = error as? FetchError { isStoreFailure = true }
        #expect(error is FetchError && !isStoreFailure, "\(text): \(error)")
      }
    }
    // Both kinds were exercised: the test is not passing on one branch alone.
    #expect(ran > 50 && errors > 50, "ran \(ran), errors \(errors)")
  }
}

/// PostgreSQL URLs: every part checked, TLS asked for is refused rather than ignored, and a
/// password never appears in a message.
@Suite struct PostgresURLs {
  func message(_ text: String) -> String {
    do {
      _ = try PostgresURL(text)
      return "no error"
    } catch {
      return String(describing: error)
    }
  }

  @Test func badPartsAreNamedAndPasswordsMasked() throws {
    let port = message("postgres://me:s3cret@db.example:99999/mine")
    #expect(
      port.contains("invalid port 99999") && port.contains("postgres://me:***@db.example") && !port.contains("s3cret"),
      "\(port)")
    for mode in ["require", "verify-ca", "verify-full"] {
      let tls = message("postgres://me:s3cret@db.example:5432/mine?sslmode=\(mode)")
      #expect(tls.contains("sslmode=\(mode) asks for TLS") && !tls.contains("s3cret"), "\(tls)")
    }
    #expect(
      message("postgres://me@db.example/mine?application_name=x").contains("unsupported parameter 'application_name'"))
    #expect(message("postgres://me:s3cret@db.example/").contains("database name is missing"))
    for mode in ["disable", "allow", "prefer"] {
      let url = try PostgresURL("postgres://me:s3cret@db.example/mine?sslmode=\(mode)")
      #expect(url.password == "s3cret" && url.port == 5432 && !url.description.contains("s3cret"))
    }
    let cli = try TestSupport.run([
      "fetch", "--store", "postgres", "--postgres-url", "postgres://me:s3cret@127.0.0.1:99999/mine",
    ])
    #expect(
      cli.status == 64 && cli.stderr.contains("invalid port 99999") && !cli.stderr.contains("s3cret"), "\(cli.stderr)")
  }
}
