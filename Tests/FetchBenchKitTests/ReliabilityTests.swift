import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import GRDB
import HarnessSupport
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// Nothing lost when two commands meet, a link is followed, or a file holds what no one
/// expected: each test reproduces one defect and sees it fixed.
@Suite struct Reliability {
  static func errorLines(_ stderr: String) -> [Substring] {
    stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
  }

  static func mode(_ path: String) -> mode_t {
    var st = stat()
    return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
  }

  // MARK: - One writer at a time

  /// Two `history add` at once, ten times: both runs are kept every time.
  @Test func twoHistoryAddsAtOnceKeepBothRuns() throws {
    let dir = TestSupport.temporaryFolder("history-race")
    defer { TestSupport.remove(dir) }
    let (a, b) = (try HistoryOfRuns.run(1, time: 10, in: dir), try HistoryOfRuns.run(2, time: 11, in: dir))
    for trial in 0..<10 {
      let file = dir + "/h\(trial).jsonl"
      let first = try TestSupport.start(["history", "add", a, "--file", file])
      let second = try TestSupport.start(["history", "add", b, "--file", file])
      let (x, y) = (first.wait(), second.wait())
      #expect(x.status == 0 && y.status == 0, "\(x.stderr)\(y.stderr)")
      #expect(try HistoryFile.read(file).count == 2, "trial \(trial)")
      #expect(TestSupport.listing(dir).filter { $0.contains("fetchbench-lock") || $0.contains(".partial-") }.isEmpty)
    }
  }

  /// An output another process is writing is refused at once, naming that process, before any
  /// work; `--resume` of it too.
  @Test func anOutputBeingWrittenIsRefusedNamingItsWriter() throws {
    let dir = TestSupport.temporaryFolder("busy-out")
    defer { TestSupport.remove(dir) }
    let claim = try OutputLock.claim(dir + "/out")
    defer { claim.release() }
    let base = [
      "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "full", "--scenario", "first_screen",
      "--repetitions", "1",
      "--no-index", "--datasets", dir + "/datasets", "--out", dir + "/out",
    ]
    for arguments in [["run"] + base, ["run", "--resume"] + base] {
      let out = try TestSupport.run(arguments)
      #expect(out.status == 1, "\(out.stderr)")
      #expect(
        Self.errorLines(out.stderr).count == 1 && out.stderr.contains("(PID \(getpid())) is writing it"),
        "\(out.stderr)")
      #expect(!out.stderr.contains("[1/"), "refused before measuring: \(out.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    claim.release()
    #expect(
      !FileManager.default.fileExists(atPath: dir + "/.out.fetchbench-lock"), "the lock file goes with its last claim")
  }

  /// A claim is counted within a process and taken over from a process that died.
  @Test func claimsNestAndOutliveNoProcess() throws {
    let dir = TestSupport.temporaryFolder("claims")
    defer { TestSupport.remove(dir) }
    let outer = try OutputLock.claim(dir + "/x")
    let inner = try OutputLock.claim(dir + "/./x")
    inner.release()
    #expect(FileManager.default.fileExists(atPath: dir + "/.x.fetchbench-lock"), "still held by the outer claim")
    outer.release()
    // A lock file left by a killed process (its PID inside) holds nothing.
    try Data("999999\n".utf8).write(to: URL(fileURLWithPath: dir + "/.x.fetchbench-lock"))
    let again = try OutputLock.claim(dir + "/x")
    again.release()
    #expect(TestSupport.listing(dir).isEmpty)
  }

  /// The children of a `load` killed by SIGKILL end with it, removing their scratch copies;
  /// the next command removes what the killed parent left in the temporary directory.
  @Test func childrenEndWithTheirKilledParent() throws {
    let dir = TestSupport.temporaryFolder("orphans")
    defer { TestSupport.remove(dir) }
    let tmp = dir + "/tmp"
    try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
    let load = try TestSupport.start(
      [
        "load", "--store", "sqlite", "--rows", "2000", "--duration", "120", "--datasets", dir + "/datasets", "--out",
        dir + "/load",
      ],
      environment: ["TMPDIR": tmp])
    let deadline = Date().addingTimeInterval(300)
    var child: Int32?
    while child == nil && Date() < deadline {
      child = Self.children(of: load.pid).first
      if child == nil { usleep(100_000) }
    }
    let found = try #require(child, "the load started no child")
    // A left-over of the parent's own, as a SIGKILL leaves it.
    try FileManager.default.createDirectory(
      atPath: tmp + "/fetchbench-x.partial-\(load.pid)-1", withIntermediateDirectories: true)
    kill(load.pid, SIGKILL)
    _ = load.wait()
    let gone = Date().addingTimeInterval(60)
    while kill(found, 0) == 0 && Date() < gone { usleep(100_000) }
    #expect(kill(found, 0) != 0, "the child outlived its parent")
    _ = try TestSupport.run(["describe", "--db", dir + "/missing.sqlite"], environment: ["TMPDIR": tmp])
    #expect(TestSupport.listing(tmp).isEmpty, "\(TestSupport.listing(tmp))")
  }

  /// The PIDs whose parent is `pid`, from /proc. O(processes).
  static func children(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { p in
      guard let stat = try? String(contentsOfFile: "/proc/\(p)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return false }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 2 && Int32(fields[1]) == pid
    }
  }

  // MARK: - Never replace what FetchBench did not write

  /// `history add --file LINK` writes the link's target and keeps the link and the mode;
  /// `export --out DANGLING_LINK` is refused and leaves the link.
  @Test func linksAreFollowedOrRefusedNeverReplaced() throws {
    let dir = TestSupport.temporaryFolder("links")
    defer { TestSupport.remove(dir) }
    let run = try HistoryOfRuns.run(1, time: 10, in: dir)
    let target = dir + "/real.jsonl"
    #expect(try TestSupport.run(["history", "add", run, "--file", target]).status == 0)
    chmod(target, 0o600)
    try FileManager.default.createSymbolicLink(atPath: dir + "/link.jsonl", withDestinationPath: target)
    let add = try TestSupport.run([
      "history", "add", try HistoryOfRuns.run(2, time: 10, in: dir), "--file", dir + "/link.jsonl",
    ])
    #expect(add.status == 0, "\(add.stderr)")
    let kept = try HistoryFile.read(target)
    #expect(DatasetFile.isSymbolicLink(dir + "/link.jsonl") && kept.count == 2)
    #expect(Self.mode(target) == 0o600)

    try FileManager.default.createSymbolicLink(
      atPath: dir + "/dangling.json", withDestinationPath: dir + "/nowhere.json")
    let export = try TestSupport.run(["export", run, "--format", "bmf", "--out", dir + "/dangling.json"])
    #expect(export.status == 1 && Self.errorLines(export.stderr).count == 1, "\(export.stderr)")
    #expect(
      DatasetFile.isSymbolicLink(dir + "/dangling.json")
        && !FileManager.default.fileExists(atPath: dir + "/nowhere.json"))
  }

  /// github-action-benchmark's files of the user's, and a folder with the user's report, are
  /// never replaced; an earlier export is.
  @Test func exportsAndReportsReplaceOnlyTheirOwnFiles() throws {
    let dir = TestSupport.temporaryFolder("own-files")
    defer { TestSupport.remove(dir) }
    let run = try HistoryOfRuns.run(1, time: 10, in: dir)
    try FileManager.default.createDirectory(atPath: dir + "/action", withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: URL(fileURLWithPath: dir + "/action/smaller-is-better.json"))
    let refused = try TestSupport.run(["export", run, "--format", "github-action-benchmark", "--out", dir + "/action"])
    #expect(refused.status == 1 && Self.errorLines(refused.stderr).count == 1, "\(refused.stderr)")
    #expect(try String(contentsOfFile: dir + "/action/smaller-is-better.json", encoding: .utf8) == "mine")
    for _ in 0..<2 {
      let written = try TestSupport.run(["export", run, "--format", "github-action-benchmark", "--out", dir + "/ours"])
      #expect(written.status == 0, "\(written.stderr)")
    }

    // A folder of the user's holding a results.csv beside their own report.
    let mine = dir + "/mine"
    try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
    try ResultsCSV.encode([row(.sqlite, .batched, .firstScreen, .time, 3)]).write(
      toFile: mine + "/results.csv", atomically: false, encoding: .utf8)
    for name in ["report.md", "recommendation.json"] {
      try Data("my \(name)".utf8).write(to: URL(fileURLWithPath: mine + "/" + name))
    }
    let report = try TestSupport.run(["report", mine])
    #expect(report.status == 1 && report.stderr.contains("--out"), "\(report.stderr)")
    #expect(try String(contentsOfFile: mine + "/report.md", encoding: .utf8) == "my report.md")
    #expect(TestSupport.listing(mine) == ["recommendation.json", "report.md", "results.csv"])
    let elsewhere = try TestSupport.run(["report", mine, "--out", dir + "/rendered"])
    #expect(
      elsewhere.status == 0 && FileManager.default.fileExists(atPath: dir + "/rendered/report.md"),
      "\(elsewhere.stderr)")
    let overlap = try TestSupport.run(["report", mine, mine, "--out", dir + "/joined"])
    #expect(overlap.status == 1 && overlap.stderr.contains("named twice"), "\(overlap.stderr)")
  }

  // MARK: - Values no one expected

  /// A NULL entity name in Z_PRIMARYKEY, a results.csv holding inf, Int64.max in a column
  /// `generate --like` steps from: one clear line or a result, never a trap.
  @Test func unexpectedValuesGiveAnswersNotTraps() throws {
    let dir = TestSupport.temporaryFolder("values")
    defer { TestSupport.remove(dir) }
    let store = dir + "/Model.sqlite"
    try UserDatabaseFixture.coreData(store)
    try DatabaseQueue(path: store).write { db in try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (9, NULL, 0, 0)")
    }
    let described = try TestSupport.run(["describe", "--db", store])
    #expect(described.status == 0 && described.stdout.contains("a Core Data store"), "\(described.stderr)")

    let bad = dir + "/bad"
    try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: true)
    let csv = ResultsCSV.encode([row(.sqlite, .batched, .firstScreen, .time, 3)]).replacingOccurrences(
      of: ",3,ms,", with: ",inf,ms,")
    #expect(csv.contains(",inf,ms,"))
    try csv.write(toFile: bad + "/results.csv", atomically: false, encoding: .utf8)
    for command in [["report", bad, "--out", dir + "/r"], ["compare", bad, bad]] {
      let out = try TestSupport.run(command)
      #expect(
        out.status == 1 && Self.errorLines(out.stderr).count == 1 && out.stderr.contains("finite"),
        "\(command): \(out.stderr)")
    }

    let app = dir + "/extremes.sqlite"
    try DatabaseQueue(path: app).write { db in
      try db.execute(
        sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, big INTEGER, small INTEGER, real REAL, name TEXT)")
      for i in 1...4 {
        try db.execute(
          sql: "INSERT INTO items VALUES (?, ?, ?, ?, CAST(? AS TEXT))",  // a blob cast keeps the NUL
          arguments: [
            i, Int64.max - Int64(i % 2), Int64.min + Int64(i % 2), i % 2 == 0 ? Double.infinity : -Double.infinity,
            Data("n\0ul \(i)".utf8),
          ])
      }
    }
    let nul = try TestSupport.run(["describe", "--db", app])
    let words = nul.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(
      words.contains("name string, declared TEXT, no NULL, 4 values hold a NUL byte: read whole"), "\(nul.stdout)")
    let like = try TestSupport.run([
      "generate", "--like", app, "--entity", "items", "--rows", "500", "--datasets", dir + "/like",
    ])
    #expect(like.status == 0, "\(like.stderr)")
    let counts = try DatabaseQueue(path: dir + "/like/items-like-500-s1.sqlite").read { db in
      try Row.fetchOne(
        db, sql: "SELECT count(*), count(big), count(small), count(real), sum(abs(real) > 1e308) FROM items")!
    }
    #expect(counts[0] == 500 && counts[1] == 500 && counts[2] == 500, "no value lost to overflow")
    #expect(counts[3] == 500 && counts[4] == 500, "infinities kept, never NULL")
    #expect(TestSupport.listing(dir).filter { $0.contains(".partial-") }.isEmpty)
  }

  /// A generated column is computed by SQLite in the drawn file, as in the user's: no value is
  /// drawn for it. A Core Data sub-entity `--db` lists is drawn too: its root's table keeps the
  /// user's mix of entities with exactly the rows asked for of it. A source that is missing is
  /// named so, and leaves no datasets folder.
  @Test func generateLikeTakesGeneratedColumnsAndSubentities() throws {
    let dir = TestSupport.temporaryFolder("like-kinds")
    defer { TestSupport.remove(dir) }
    let app = dir + "/app.sqlite"
    try DatabaseQueue(path: app).write { db in
      try db.execute(
        sql: """
          CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, \
          doubled REAL GENERATED ALWAYS AS (price * 2) VIRTUAL, loud TEXT AS (upper(name)) STORED)
          """)
      for i in 1...50 {
        try db.execute(sql: "INSERT INTO items (id, name, price) VALUES (?, ?, ?)", arguments: [i, "item \(i)", i])
      }
    }
    let like = try TestSupport.run([
      "generate", "--like", app, "--entity", "items", "--rows", "200", "--datasets", dir + "/like",
    ])
    #expect(like.status == 0, "\(like.stderr)")
    let wrong = try DatabaseQueue(path: dir + "/like/items-like-200-s1.sqlite").read { db in
      try Int.fetchOne(
        db, sql: "SELECT count(*) FROM items WHERE doubled IS NOT price * 2 OR loud IS NOT upper(name)")
    }
    #expect(wrong == 0, "the generated columns hold what SQLite computes")

    let model = dir + "/N.xcdatamodel"
    try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
    try ModelFiles.contents.write(toFile: model + "/contents", atomically: true, encoding: .utf8)
    let store = try TestSupport.run([
      "generate", "--model", model, "--entity", "Note", "--rows", "300", "--datasets", dir + "/model",
    ])
    #expect(store.status == 0, "\(store.stderr)")
    let file = dir + "/model/n-note-300-s1.coredata.sqlite"
    let drawn = try TestSupport.run([
      "generate", "--like", file, "--entity", "Note", "--rows", "500", "--datasets", dir + "/like",
    ])
    #expect(drawn.status == 0, "\(drawn.stderr)")
    #expect(drawn.stdout.contains("500 rows of Note in ZITEM"), "\(drawn.stdout)")
    let mix = { (path: String) in
      try DatabaseQueue(path: path).read { db in
        try Row.fetchAll(db, sql: "SELECT Z_ENT, count(*) FROM ZITEM GROUP BY Z_ENT ORDER BY Z_ENT").map {
          "\($0[0] as Int) \($0[1] as Int)"
        }
      }
    }
    let (user, synthetic) = (try mix(file), try mix("\(dir)/like/note-like-500-s1.sqlite"))
    #expect(user == ["3 300", "4 3"] && synthetic == ["3 500", "4 5"], "\(user) \(synthetic)")
    let listed = try TestSupport.run([
      "fetch", "--db", "\(dir)/like/note-like-500-s1.sqlite", "--entity", "Note", "--ids",
    ])
    #expect(listed.status == 0 && listed.stdout.split(separator: "\n").count == 500, "\(listed.stderr)")

    let missing = try TestSupport.run([
      "generate", "--like", dir + "/none.sqlite", "--entity", "items", "--rows", "10", "--datasets", dir + "/new",
    ])
    #expect(missing.status == 1 && missing.stderr.contains("none.sqlite: no such file"), "\(missing.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/new"))
  }

  /// Fresh values stay fresh, without overflow, in one step per draw on average.
  @Test func freshValuesAreDistinctAndNeverOverflow() {
    var fresh = FreshValues()
    var seen = Set<DatabaseValue>()
    for v in [Int64.max.databaseValue, Int64.min.databaseValue, "a".databaseValue, 1.5.databaseValue] {
      for _ in 0..<10_000 { #expect(seen.insert(fresh.next(v)).inserted) }
    }
    #expect(fresh.next(Double.infinity.databaseValue) == Double.infinity.databaseValue)
    #expect(fresh.next(Double.infinity.databaseValue) == Double.infinity.databaseValue, "no finite neighbour")
    #expect(FreshValues.neighbour(Int64.max.databaseValue, 1) == (Int64.max - 1).databaseValue)
  }

  /// `--db` naming a FIFO is refused at once; a folder is not "encrypted".
  @Test func aFIFOOrAFolderAsDatabaseIsRefusedAtOnce() throws {
    let dir = TestSupport.temporaryFolder("fifo")
    defer { TestSupport.remove(dir) }
    #expect(mkfifo(dir + "/pipe", 0o600) == 0)
    for path in [dir + "/pipe", dir] {
      let out = try TestSupport.run(["describe", "--db", path])
      #expect(out.status == 1 && Self.errorLines(out.stderr).count == 1, "\(out.stderr)")
      #expect(!out.stderr.contains("encrypted"), "\(out.stderr)")
    }
  }

  /// A database in WAL mode with rows still in its `-wal` is read whole, and nothing is
  /// created beside it.
  @Test func aWALDatabaseIsReadWithItsLogAndNothingBesideIt() throws {
    let dir = TestSupport.temporaryFolder("wal")
    defer { TestSupport.remove(dir) }
    let path = dir + "/app.sqlite"
    var config = Configuration()
    config.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
    let pool = try DatabasePool(path: path, configuration: config)
    try pool.write { db in
      try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
      for i in 1...100 { try db.execute(sql: "INSERT INTO items VALUES (?, ?)", arguments: [i, "item \(i)"]) }
    }
    _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    try pool.write { db in
      for i in 101...500 { try db.execute(sql: "INSERT INTO items VALUES (?, ?)", arguments: [i, "item \(i)"]) }
      try db.execute(sql: "CREATE TABLE only_in_wal (id INTEGER PRIMARY KEY, x TEXT)")
    }
    // The app's process ends without checkpointing: keep its log as it was.
    let wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
    let main = try Data(contentsOf: URL(fileURLWithPath: path))
    try pool.close()
    try wal.write(to: URL(fileURLWithPath: path + "-wal"))
    try main.write(to: URL(fileURLWithPath: path))
    try? FileManager.default.removeItem(atPath: path + "-shm")
    let before = TestSupport.listing(dir)
    let described = try TestSupport.run(["describe", "--db", path])
    #expect(described.status == 0, "\(described.stderr)")
    #expect(described.stdout.contains("500 rows") && described.stdout.contains("only_in_wal"), "\(described.stdout)")
    let fetched = try TestSupport.run(["fetch", "--db", path, "--entity", "items", "--store", "sqlite", "--ids"])
    #expect(fetched.status == 0 && fetched.stdout.split(separator: "\n").count == 500, "\(fetched.stderr)")
    // The floors and the index advice read the file on connections of their own.
    let out = TestSupport.temporaryFolder("wal-run")
    defer { TestSupport.remove(out) }
    let ran = try TestSupport.run([
      "run", "--db", path, "--entity", "items", "--sort", "name asc", "--store", "sqlite", "--recommend",
      "--repetitions", "1", "--out", out + "/run",
    ])
    #expect(ran.status == 0, "\(ran.stderr)")
    #expect(TestSupport.listing(dir) == before, "nothing created beside the file")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")) == wal)
  }

  // MARK: - Names that are keywords or hold spaces and quotes

  /// A table named `order` with columns `group`, `select` and `from`, pointing at `user`, and
  /// beside them a table whose name holds a space and quotes: every store and strategy fetches
  /// the same rows as the oracle, and `describe` and the index advice read the file.
  @Test func keywordsAndOddNamesAreQuoted() throws {
    let dir = TestSupport.temporaryFolder("names")
    defer { TestSupport.remove(dir) }
    let path = dir + "/app.sqlite"
    let db = try DatabaseQueue(path: path)
    try db.write { db in
      try db.execute(
        sql: #"""
          CREATE TABLE "user" (id INTEGER PRIMARY KEY, "select" TEXT);
          CREATE TABLE "order" (id INTEGER PRIMARY KEY, "group" TEXT NOT NULL, "from" INTEGER, user_id INTEGER REFERENCES "user"(id));
          CREATE TABLE "it's odd" ("a b" INTEGER PRIMARY KEY, "c'd" TEXT, "e""f" INTEGER);
          CREATE TABLE "odd ""name""" (id INTEGER PRIMARY KEY);
          """#)
      for i in 1...20 { try db.execute(sql: #"INSERT INTO "user" VALUES (?, ?)"#, arguments: [i, "u\(i % 7)"]) }
      for i in 1...300 {
        try db.execute(
          sql: #"INSERT INTO "order" VALUES (?, ?, ?, ?)"#,
          arguments: [i, ["b", "a", "c"][i % 3], i * 7 % 50, i % 20 + 1])
      }
      try db.execute(sql: #"INSERT INTO "it's odd" VALUES (1, 'x', 2)"#)
    }
    let expected = try db.read { db in
      try Int64.fetchAll(
        db,
        sql:
          #"SELECT o.id FROM "order" o LEFT JOIN "user" u ON u.id = o.user_id ORDER BY o."group", u."select" DESC, o."from", o.id"#
      )
    }.map(String.init)
    for store in ["memory", "sqlite"] {
      for strategy in ["full", "batched", "offset", "keyset"] {
        let out = try TestSupport.run([
          "fetch", "--db", path, "--entity", "order", "--sort", "group asc, user.select desc, from asc", "--store",
          store, "--strategy",
          strategy, "--ids",
        ])
        #expect(out.status == 0, "\(store) \(strategy): \(out.stderr)")
        let ids = out.stdout.split(separator: "\n").map(String.init)
        #expect(
          ids.count == expected.count && ids == expected,
          "\(store) \(strategy): \(ids.count) IDs, \(expected.count) expected")
      }
    }
    let described = try TestSupport.run(["describe", "--db", path])
    #expect(described.status == 0 && described.stdout.contains("(table it's odd"), "\(described.stderr)")
    #expect(described.stdout.contains("holds a double quote"), "\(described.stdout)")
  }

  /// Text holding NUL bytes, equal before them, and a 1 MB string: every store and strategy
  /// orders them by every byte, as SQLite does, and `describe` says they are read whole.
  @Test func textWithNULAndMegabyteStringsSortsAsSQLite() throws {
    let dir = TestSupport.temporaryFolder("nul")
    defer { TestSupport.remove(dir) }
    let path = dir + "/app.sqlite"
    let db = try DatabaseQueue(path: path)
    let megabyte = String(repeating: "m", count: 1 << 20)
    try db.write { db in
      try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, rank INTEGER)")
      // Ids run against the byte order, so an order cut at the NUL (ties by id) differs.
      let names = ["a\0z", "a\0b", "a", "a\0", "b\0a", megabyte + "\0x", megabyte, "\0", "b"]
      for (i, name) in names.enumerated() {
        try db.execute(
          sql: "INSERT INTO items VALUES (?, CAST(? AS TEXT), ?)",  // a blob cast keeps the NUL
          arguments: [100 - i, Data(name.utf8), i % 3])
      }
    }
    let expected = try db.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM items ORDER BY name, id") }.map(
      String.init)
    #expect(expected.count == 9)
    for store in ["memory", "sqlite"] {
      for strategy in ["full", "batched", "offset", "keyset"] {
        let out = try TestSupport.run([
          "fetch", "--db", path, "--entity", "items", "--sort", "name asc", "--store", store, "--strategy", strategy,
          "--ids",
        ])
        #expect(out.status == 0, "\(store) \(strategy): \(out.stderr)")
        #expect(out.stdout.split(separator: "\n").map(String.init) == expected, "\(store) \(strategy): \(out.stdout)")
      }
    }
    let described = try TestSupport.run(["describe", "--db", path])
    let words = described.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(
      words.contains("6 values hold a NUL byte: read whole, and sorted by every byte as SQLite sorts them"),
      "\(described.stdout)")
  }

  /// A hand edit in an earlier output is kept (the run is refused, naming the file); `--rows`
  /// with `--db` is a usage error, not a silent other size; a table of 420 columns is read; a
  /// constraint over two columns that drawn rows break is said so, nothing written.
  @Test func editsWideTablesAndConstraintsAreHandled() throws {
    let dir = TestSupport.temporaryFolder("edits")
    defer { TestSupport.remove(dir) }
    let run = [
      "run", "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "full", "--scenario", "first_screen",
      "--repetitions", "1", "--no-index", "--datasets", dir + "/datasets", "--out", dir + "/out",
    ]
    #expect(try TestSupport.run(run).status == 0)
    #expect(try TestSupport.run(run).status == 0, "its own earlier output is replaced")
    try Data("my notes\n".utf8).write(to: URL(fileURLWithPath: dir + "/out/report.md"))
    let edited = try TestSupport.run(run)
    #expect(
      edited.status == 1 && edited.stderr.contains("report.md was changed since FetchBench wrote it"),
      "\(edited.stderr)")
    #expect(try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8) == "my notes\n")

    let wide = dir + "/wide.sqlite"
    let columns = (1...420).map { "c\($0) INTEGER" }.joined(separator: ", ")
    try DatabaseQueue(path: wide).write { db in
      try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, \(columns))")
      try db.execute(sql: "INSERT INTO items (id, c1, c420) VALUES (1, 5, 6), (2, 7, NULL)")
      try db.execute(sql: "CREATE TABLE pairs (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, UNIQUE (a, b))")
      for i in 1...6 { try db.execute(sql: "INSERT INTO pairs VALUES (?, ?, ?)", arguments: [i, i % 2, i % 3]) }
    }
    let described = try TestSupport.run(["describe", "--db", wide])
    #expect(described.status == 0 && described.stdout.contains("2 rows"), "\(described.stderr)")
    let sized = try TestSupport.run(["run", "--db", wide, "--entity", "items", "--rows", "50", "--out", dir + "/sized"])
    #expect(sized.status == 64 && sized.stderr.contains("--rows does not apply to --db"), "\(sized.stderr)")
    let like = try TestSupport.run([
      "generate", "--like", wide, "--entity", "pairs", "--rows", "5000", "--datasets", dir + "/like",
    ])
    #expect(
      like.status == 1 && Self.errorLines(like.stderr).count == 1 && like.stderr.contains("break a constraint"),
      "\(like.stderr)")
    #expect(TestSupport.listing(dir + "/like").isEmpty)
  }

  /// A user's triggers (one refusing deletes) and generated columns do not fail diff's cases:
  /// its copy runs without the triggers, its writes leave generated columns to SQLite, and a
  /// transaction that rewrote only the values rows held keeps the section cache valid.
  @Test func diffRunsOnTriggersAndGeneratedColumns() throws {
    let dir = TestSupport.temporaryFolder("triggers")
    defer { TestSupport.remove(dir) }
    let file = dir + "/app.sqlite"
    try DatabaseQueue(path: file).write { db in
      try db.execute(
        sql:
          "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL, total REAL GENERATED ALWAYS AS (price * 2), stamp TEXT)"
      )
      try db.execute(sql: "CREATE TABLE audit (id INTEGER PRIMARY KEY, item INTEGER, what TEXT NOT NULL)")
      try db.execute(
        sql:
          "CREATE TRIGGER audited AFTER UPDATE ON item BEGIN INSERT INTO audit (item, what) VALUES (new.id, 'update'); END"
      )
      try db.execute(
        sql: "CREATE TRIGGER kept AFTER DELETE ON item BEGIN SELECT RAISE(ABORT, 'items are never deleted'); END")
      for i in 0..<600 {
        try db.execute(
          sql: "INSERT INTO item (name, price, stamp) VALUES (?, ?, 's')",
          arguments: ["n\((i * 7919) % 600)", Double(i)])
      }
    }
    let before = try Data(contentsOf: URL(fileURLWithPath: file))
    let described = try TestSupport.run(["describe", "--db", file])
    #expect(described.stdout.contains("generated (computed by SQLite"), "\(described.stdout)")
    #expect(described.stdout.contains("audited, kept (diff's private copy runs without them"), "\(described.stdout)")
    let diff = try TestSupport.run([
      "diff", "--db", file, "--entity", "item", "--sort", "name", "--k", "1,10", "--repetitions", "3", "--out",
      dir + "/diff",
    ])
    #expect(diff.status == 0 && !diff.stderr.contains("FAILED"), "\(diff.stdout)\(diff.stderr)")
    #expect(
      diff.stderr.contains("[12/12]"), "2 stores × (2 sizes + the edit) × with and without sections: \(diff.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "the user's file is untouched")
    #expect(TestSupport.listing(dir).filter { !$0.hasPrefix("diff/") } == ["app.sqlite", "diff"])
  }

  /// A full-text index (a virtual table and its shadow tables) is no list: `describe` says what
  /// each is, and the index advice's copy of the file leaves them out instead of failing.
  @Test func aFullTextIndexIsNoListAndTheIndexAdviceRuns() throws {
    let dir = TestSupport.temporaryFolder("fts")
    defer { TestSupport.remove(dir) }
    let file = dir + "/app.sqlite"
    try DatabaseQueue(path: file).write { db in
      try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, kind TEXT)")
      try db.execute(sql: "CREATE VIRTUAL TABLE notes USING fts5(body)")
      for i in 0..<300 {
        try db.execute(sql: "INSERT INTO item (name, kind) VALUES (?, ?)", arguments: ["n\(i * 7 % 300)", "k\(i % 5)"])
      }
      try db.execute(sql: "INSERT INTO notes (body) VALUES ('hello')")
    }
    let described = try TestSupport.run(["describe", "--db", file])
    let words = described.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.contains("notes: a virtual table (CREATE VIRTUAL TABLE"), "\(described.stdout)")
    #expect(words.contains("notes_data: a shadow table SQLite keeps"), "\(described.stdout)")
    #expect(!words.contains("entity notes_"), "\(described.stdout)")
    let run = try TestSupport.run([
      "run", "--db", file, "--entity", "item", "--sort", "name", "--store", "sqlite", "--mode", "batched", "--scenario",
      "first_screen", "--repetitions", "1", "--out", dir + "/out",
    ])
    #expect(run.status == 0 && run.stderr.contains("index_advice") && !run.stderr.contains("FAILED"), "\(run.stderr)")
  }

  /// A run over a user's file reads its schema once for all its cases (the parent hands it
  /// to them) and leaves nothing in the temporary folder.
  @Test func aRunOnAUsersFileLeavesNoSchemaBehind() throws {
    let dir = TestSupport.temporaryFolder("schema-once")
    defer { TestSupport.remove(dir) }
    let tmp = dir + "/tmp"
    try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
    try UserDatabaseFixture.coreData(dir + "/Model.sqlite")
    let run = try TestSupport.run(
      [
        "run", "--db", dir + "/Model.sqlite", "--entity", "Flight", "--store", "memory,sqlite", "--mode", "batched",
        "--scenario", "first_screen", "--repetitions", "1", "--no-index", "--out", dir + "/out",
      ], environment: ["TMPDIR": tmp + "/"])
    #expect(run.status == 0 && !run.stderr.contains("FAILED"), "\(run.stderr)")
    #expect(TestSupport.listing(tmp).isEmpty, "\(TestSupport.listing(tmp))")
  }

  /// The section cache knows a file by its identity and first pages: another database of the
  /// same size and modification time does not get the first one's sections.
  @Test func theSectionCacheIsKeyedByTheFile() throws {
    let dir = TestSupport.temporaryFolder("cache-key")
    defer { TestSupport.remove(dir) }
    for (name, kinds) in [("a", ["x", "y"]), ("b", ["p", "q"])] {
      try DatabaseQueue(path: "\(dir)/\(name).sqlite").write { db in
        try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, kind TEXT NOT NULL)")
        for i in 1...50 { try db.execute(sql: "INSERT INTO items VALUES (?, ?)", arguments: [i, kinds[i % 2]]) }
      }
    }
    var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
    for name in ["a", "b"] { #expect(utimensat(AT_FDCWD, "\(dir)/\(name).sqlite", &times, 0) == 0) }
    let cacheName = "cache-\(UUID().uuidString.prefix(8))"
    func sections(_ name: String) throws -> (lines: [String], cache: String) {
      let out = try TestSupport.run([
        "fetch", "--db", "\(dir)/\(name).sqlite", "--entity", "items", "--sort", "kind asc", "--section", "kind",
        "--sections",
        "--cache-name", cacheName, "--stats", "--store", "sqlite",
      ])
      #expect(out.status == 0, "\(out.stderr)")
      let cache = out.stderr.split(separator: "\n").first { $0.hasPrefix("section_cache") }.map(String.init) ?? ""
      return (out.stdout.split(separator: "\n").map(String.init), cache)
    }
    #expect(try sections("a").lines == ["x\t25", "y\t25"])
    #expect(try sections("a").cache == "section_cache\thit")
    let other = try sections("b")
    #expect(other.lines == ["p\t25", "q\t25"] && other.cache == "section_cache\tmiss", "\(other)")
  }

  // MARK: - compare judges only what it can

  /// Holm's correction: three times at p 0.001, 0.004 and 0.02 flag the first two at 1 %;
  /// ten at 0.005 each, every one significant alone, flag none together.
  @Test func compareCorrectsForTheNumberOfTimes() {
    func lines(_ ps: [Double]) -> [Comparison.Line] {
      ps.enumerated().map { i, p in
        Comparison.Line(
          name: "t\(i)", verdict: .unchanged, detail: "{holm}",
          test: Comparison.TimedTest(p: p, beyond: true, better: false))
      }
    }
    var three = lines([0.02, 0.001, 0.004])
    Comparison.correct(&three, alpha: 0.01)
    #expect(three.map(\.verdict) == [.unchanged, .regressed, .regressed])
    #expect(
      three[1].detail == "0.0030 over 3 times (Holm)" && three[2].detail == "0.0080 over 3 times (Holm)", "\(three)")
    var ten = lines(Array(repeating: 0.005, count: 10))
    Comparison.correct(&ten, alpha: 0.01)
    #expect(ten.allSatisfy { $0.verdict == .unchanged })
    // Beyond significance but not beyond the threshold or the noise floor: unchanged.
    var small = [
      Comparison.Line(
        name: "s", verdict: .unchanged, detail: "", test: Comparison.TimedTest(p: 0.0001, beyond: false, better: false))
    ]
    Comparison.correct(&small, alpha: 0.01)
    #expect(small[0].verdict == .unchanged)
  }

  /// Page faults 3 → 4 in every repetition is noise, not a change; 100 → 300 is one.
  @Test func aCountThatVariesIsJudgedByItsSpread() {
    func faults(_ values: [Double]) -> ResultRow {
      var r = row(.sqlite, .batched, .firstScreen, .pageFaults, values.sorted()[values.count / 2])
      (r.samples, r.processes) = (values, 3)
      return r
    }
    let name = "banks/1000/sqlite/batched/20/none/first_screen/page_faults"
    let small = Comparison(base: [faults([3, 3, 4])], head: [faults([4, 4, 5])])
    #expect(small.lines.first { $0.name == name }?.verdict == .unchanged, "\(small.lines)")
    let large = Comparison(base: [faults([100, 104, 98])], head: [faults([300, 310, 296])])
    #expect(large.lines.first { $0.name == name }?.verdict == .regressed, "\(large.lines)")
    // One process a side shares its page cache across its repetitions: not judged.
    var one = faults([100, 104, 98])
    one.processes = 1
    let single = Comparison(base: [one], head: [faults([300, 310, 296])])
    #expect(single.lines.first { $0.name == name }?.verdict == .notJudged && single.exitCode == 0, "\(single.lines)")
  }

  @Test func compareSaysWhatItCouldNotJudge() throws {
    let base = [row(.sqlite, .batched, .firstScreen, .queries, 1), row(.sqlite, .full, .firstScreen, .queries, 2)]
    // Nothing in common: not compared (3), whatever else.
    #expect(Comparison(base: base, head: []).exitCode == 3)
    #expect(Comparison(base: base, head: [row(.memory, .keyset, .scrollThrough, .queries, 1)]).exitCode == 3)
    // A counter that went down changed the work: exit 2, said as fewer.
    let fewer = Comparison(base: base, head: [row(.sqlite, .batched, .firstScreen, .queries, 0), base[1]])
    #expect(fewer.exitCode == 2)
    #expect(fewer.lines.first { $0.verdict == .changed }?.detail.contains("fewer") == true)
    // A failed case of the head fails the comparison, named.
    let failed = Comparison(base: base, head: [base[0], row(.sqlite, .full, .firstScreen, .queries, 0, error: "boom")])
    #expect(
      failed.exitCode == 2 && failed.text().contains("failed in the head") && failed.text().contains("boom"),
      "\(failed.text())")
    #expect(Comparison(base: base, head: base).exitCode == 0)
    // Two lists of one table share their figures' names: not compared, said why.
    func list(_ sort: String) throws -> ResultRow {
      var r = ResultRow(
        runID: "r1", key: .settings, metric: .customRequest, summary: Summary([0]), status: .ok, error: "",
        machine: machine,
        datasetSHA256: "")
      r.detail = try ListSpec(parsing: .init(sort: sort)).recorded
      return r
    }
    let other = Comparison(base: base + [try list("name asc")], head: base + [try list("name desc")])
    #expect(
      other.exitCode == 3 && other.text().contains("the lists differ (sort: name asc and sort: name desc)"),
      "\(other.text())")
    #expect(try Comparison(base: base + [list("name asc")], head: base + [list("name asc")]).exitCode == 0)
  }
}
