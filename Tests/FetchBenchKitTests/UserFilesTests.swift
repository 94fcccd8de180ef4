import Datasets
import FetchBenchKit
import Foundation
import GRDB
import TestSupport
import Testing

/// Nothing of the user's is replaced, removed or read as a dataset: files, folders, symbolic
/// links and FIFOs at the paths FetchBench writes are left byte for byte as they were, and
/// the command says why in one `Error:` line.
@Suite struct UserFiles {
  /// A small banks dataset, generated once per test.
  static func banks(_ rows: Int, in dir: String) throws -> String {
    let datasets = dir + "/datasets"
    let gen = try TestSupport.run(["generate", "--dataset", "banks", "--rows", String(rows), "--datasets", datasets, "--format", "sqlite"])
    #expect(gen.status == 0, "\(gen.stderr)")
    return datasets
  }

  static func write(_ text: String, to path: String) throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  static func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

  static func errorLines(_ stderr: String) -> [Substring] { stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") } }

  @Test func diffRefusesAnExistingChangesFileOrLinkBeforeAnyWork() throws {
    let dir = TestSupport.temporaryFolder("emit")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.banks(1_000, in: dir)
    try Self.write("mine\n", to: dir + "/mine.jsonl")
    try FileManager.default.createSymbolicLink(atPath: dir + "/link.jsonl", withDestinationPath: dir + "/mine.jsonl")
    for target in ["mine.jsonl", "link.jsonl"] {
      let out = try TestSupport.run([
        "diff", "--store", "memory", "--rows", "1000", "--k", "10", "--no-edit", "--sections", "none", "--repetitions", "1",
        "--datasets", datasets, "--out", dir + "/out", "--emit-changes", dir + "/" + target,
      ])
      #expect(out.status == 1, "\(out.stderr)")
      #expect(Self.errorLines(out.stderr).count == 1 && out.stderr.contains("does not replace it"), "\(out.stderr)")
      #expect(!out.stderr.contains("[1/"), "refused before measuring: \(out.stderr)")
    }
    #expect(Self.read(dir + "/mine.jsonl") == "mine\n")
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.jsonl")) == dir + "/mine.jsonl")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  /// `report` takes chart names from results.csv: an index named `../../victim/x` names a
  /// file inside the charts folder, never one outside it; a dataset that is not one of
  /// FetchBench's is refused with one Error line.
  @Test func reportWritesNoFileOutsideItsFolder() throws {
    let dir = TestSupport.temporaryFolder("report-names")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.banks(300, in: dir)
    let run = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "full,batched", "--scenario", "first_screen",
      "--repetitions", "1", "--no-index", "--datasets", datasets, "--out", dir + "/out",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    try Self.write("the user's\n", to: dir + "/victim/x-time-b20.svg")
    let csv = try #require(Self.read(dir + "/out/results.csv"))
    try Self.write(csv.replacingOccurrences(of: ",none,first_screen,", with: ",../../victim/x,first_screen,"), to: dir + "/out/results.csv")
    // The edited CSV alone is the run's figures (beside results.json it would be refused as edited).
    try FileManager.default.removeItem(atPath: dir + "/out/results.json")
    let report = try TestSupport.run(["report", dir + "/out"])
    #expect(report.status == 0, "\(report.stderr)")
    #expect(TestSupport.listing(dir + "/victim") == ["x-time-b20.svg"])
    #expect(Self.read(dir + "/victim/x-time-b20.svg") == "the user's\n")
    let charts = TestSupport.listing(dir + "/out/charts")
    #expect(charts.contains { $0.hasPrefix("banks-300-memory-idx-.._.._victim_x-time") }, "\(charts)")
    #expect(charts.allSatisfy { !$0.contains("/") })
    try Self.write(csv.replacingOccurrences(of: ",banks,", with: ",../../victim/x,"), to: dir + "/out/results.csv")
    let foreign = try TestSupport.run(["report", dir + "/out"])
    #expect(foreign.status == 1 && Self.errorLines(foreign.stderr).count == 1, "\(foreign.stderr)")
    #expect(foreign.stderr.contains("dataset '../../victim/x' is not one FetchBench writes"), "\(foreign.stderr)")
  }

  /// `run --out DIR` replaces DIR only when it is an earlier output of `run` holding nothing
  /// else; a user's file anywhere in it, another command's output, an unmarked folder, and a
  /// sibling `DIR.partial` of the user's are left as they are.
  @Test func runReplacesOnlyItsOwnEarlierOutput() throws {
    let dir = TestSupport.temporaryFolder("out")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.banks(300, in: dir)
    func run(_ out: String) throws -> TestSupport.Output {
      try TestSupport.run([
        "run", "--dataset", "banks", "--rows", "300", "--store", "memory", "--mode", "batched", "--scenario", "first_screen",
        "--repetitions", "1", "--no-index", "--datasets", datasets, "--out", out,
      ])
    }
    let out = dir + "/out"
    try Self.write("the user's partial\n", to: out + ".partial/keep.txt")
    let first = try run(out)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(Self.read(out + ".partial/keep.txt") == "the user's partial\n")
    #expect(FileManager.default.fileExists(atPath: out + "/.fetchbench-output.json"))
    let again = try run(out)
    #expect(again.status == 0, "an earlier output of run is replaced: \(again.stderr)")

    try Self.write("mine\n", to: out + "/charts/mine.png")
    let withMine = try run(out)
    #expect(withMine.status == 1 && withMine.stderr.contains("charts/mine.png"), "\(withMine.stderr)")
    #expect(Self.errorLines(withMine.stderr).count == 1)
    #expect(Self.read(out + "/charts/mine.png") == "mine\n")

    let onlyReport = dir + "/notes"
    try Self.write("# my notes\n", to: onlyReport + "/report.md")
    let notes = try run(onlyReport)
    #expect(notes.status == 1 && notes.stderr.contains("did not write (report.md)"), "\(notes.stderr)")
    #expect(Self.read(onlyReport + "/report.md") == "# my notes\n")

    let diffOut = dir + "/diff-out"
    let diff = try TestSupport.run([
      "diff", "--store", "memory", "--rows", "300", "--k", "10", "--no-edit", "--sections", "none", "--repetitions", "1",
      "--datasets", datasets, "--out", diffOut,
    ])
    #expect(diff.status == 0, "\(diff.stderr)")
    let diffCSV = Self.read(diffOut + "/results.csv")
    let over = try run(diffOut)
    #expect(over.status == 1 && over.stderr.contains("is the output of `fetchbench diff`, not of `run`"), "\(over.stderr)")
    #expect(Self.read(diffOut + "/results.csv") == diffCSV)
  }

  /// `generate` never opens, replaces or removes a file, folder or link it did not write: a
  /// user's `NAME.partial` beside a dataset, a symbolic link at a dataset's path.
  @Test func generateLeavesTheUsersFilesAlone() throws {
    let dir = TestSupport.temporaryFolder("gen-user")
    defer { TestSupport.remove(dir) }
    let datasets = dir + "/datasets"
    try Self.write("partial file\n", to: datasets + "/banks-20.sqlite.partial")
    try Self.write("partial folder\n", to: datasets + "/banks-20.partial/x.csv")
    let gen = try TestSupport.run(["generate", "--dataset", "banks", "--rows", "20", "--datasets", datasets])
    #expect(gen.status == 0, "\(gen.stderr)")
    #expect(Self.read(datasets + "/banks-20.sqlite.partial") == "partial file\n")
    #expect(Self.read(datasets + "/banks-20.partial/x.csv") == "partial folder\n")
    #expect(TestSupport.listing(datasets).filter { $0.contains(".partial-") }.isEmpty)

    try Self.write("elsewhere\n", to: dir + "/elsewhere.sqlite")
    try FileManager.default.createSymbolicLink(atPath: datasets + "/wells-20.sqlite", withDestinationPath: dir + "/elsewhere.sqlite")
    let linked = try TestSupport.run(["generate", "--dataset", "wells", "--rows", "20", "--datasets", datasets])
    #expect(linked.status == 1 && linked.stderr.contains("is a symbolic link"), "\(linked.stderr)")
    #expect(Self.errorLines(linked.stderr).count == 1)
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: datasets + "/wells-20.sqlite")) == dir + "/elsewhere.sqlite")
    #expect(Self.read(dir + "/elsewhere.sqlite") == "elsewhere\n")
  }

  @Test func checkUpdateReplacesOnlyABaseline() throws {
    let dir = TestSupport.temporaryFolder("baseline")
    defer { TestSupport.remove(dir) }
    try Self.write("my notes\n", to: dir + "/notes.txt")
    mkfifo(dir + "/fifo", 0o644)
    try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: false)
    for (target, why) in [("notes.txt", "not a baseline's JSON"), ("fifo", "it is a FIFO"), ("folder", "it is a folder")] {
      let out = try TestSupport.run([
        "check", "--update", "--baseline", dir + "/" + target, "--rows", "1000", "--store", "memory", "--datasets", dir + "/datasets",
      ])
      #expect(out.status == 1 && out.stderr.contains(why) && out.stderr.contains("--update replaces only a baseline"), "\(out.stderr)")
      #expect(Self.errorLines(out.stderr).count == 1, "\(out.stderr)")
      #expect(!out.stderr.contains("[1/"), "refused before measuring: \(out.stderr)")
    }
    #expect(Self.read(dir + "/notes.txt") == "my notes\n")
    // Judging against them is "cannot judge" (3), with the reason, never a hang or a dump.
    for (target, why) in [("notes.txt", "not a baseline's JSON (malformed JSON)"), ("fifo", "it is a FIFO"), ("folder", "it is a folder")] {
      let out = try TestSupport.run(["check", "--baseline", dir + "/" + target, "--rows", "1000", "--datasets", dir + "/datasets"])
      #expect(out.status == 3 && out.stdout.contains(why), "\(out.stdout)")
    }
  }

  /// A writer's leftover write-ahead log beside a dataset: its rows are not the manifest's,
  /// and SQLite would merge it into the file; the dataset is refused, the log left as it is.
  @Test func aDatasetWithAWriteAheadLogIsRefused() throws {
    let dir = TestSupport.temporaryFolder("wal")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.banks(300, in: dir)
    let path = datasets + "/banks-300.sqlite"
    try Self.write("not empty", to: path + "-wal")
    for store in ["memory", "sqlite"] {
      let out = try TestSupport.run(["fetch", "--store", store, "--rows", "300", "--datasets", datasets, "--ids"])
      #expect(out.status == 1 && out.stderr.contains("left a write-ahead log beside it"), "\(out.stderr)")
      #expect(Self.errorLines(out.stderr).count == 1)
    }
    #expect(Self.read(path + "-wal") == "not empty")
  }

  /// A FIFO or a folder at a dataset's path is named for what it is, at once: never opened
  /// (a FIFO would block the reader forever).
  @Test func aFIFOOrFolderAtADatasetPathIsRefusedAtOnce() throws {
    let dir = TestSupport.temporaryFolder("fifo")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.banks(300, in: dir)
    try FileManager.default.removeItem(atPath: datasets + "/banks-300.sqlite")
    mkfifo(datasets + "/banks-300.sqlite", 0o644)
    try FileManager.default.createDirectory(atPath: datasets + "/banks-400.sqlite", withIntermediateDirectories: false)
    for (rows, what) in [("300", "a FIFO"), ("400", "a folder")] {
      for command in [["fetch", "--ids"], ["generate", "--dataset", "banks", "--if-missing", "--format", "sqlite", "--datasets", datasets]] {
        let out = try TestSupport.run(command + ["--rows", rows] + (command[0] == "fetch" ? ["--datasets", datasets] : []))
        #expect(out.status == 1 && out.stderr.contains("it is \(what), not a file"), "\(command) \(rows): \(out.stderr)")
      }
    }
  }

  /// Two `generate` processes on one folder at once, for two datasets and for the same one:
  /// every dataset ends complete and recorded, none cut short, none refused later.
  @Test func concurrentGeneratesKeepEveryDatasetAndEntry() throws {
    let dir = TestSupport.temporaryFolder("concurrent")
    defer { TestSupport.remove(dir) }
    let datasets = dir + "/datasets"
    let a = try TestSupport.start(["generate", "--dataset", "banks", "--rows", "20000", "--datasets", datasets, "--format", "sqlite"])
    let b = try TestSupport.start(["generate", "--dataset", "wells", "--rows", "20000", "--datasets", datasets, "--format", "sqlite"])
    let c = try TestSupport.start(["generate", "--dataset", "banks", "--rows", "20000", "--datasets", datasets, "--format", "sqlite"])
    for (name, p) in [("banks", a), ("wells", b), ("banks again", c)] {
      let out = p.wait()
      #expect(out.status == 0, "\(name): \(out.stderr)")
    }
    let manifest = try Manifest.load(from: datasets + "/manifest.json")
    #expect(Set(manifest.datasets.map(\.dataset.rawValue)) == ["banks", "wells"])
    #expect(manifest.datasets.count == 2)
    for kind in ["banks", "wells"] {
      // The contents, read back and hashed, are the manifest's.
      let fetch = try TestSupport.run([
        "generate", "--dataset", kind, "--rows", "20000", "--datasets", datasets, "--format", "sqlite", "--if-missing",
      ])
      #expect(fetch.status == 0 && fetch.stdout.contains("kept"), "\(fetch.stderr)")
      let run = try TestSupport.run([
        "run", "--dataset", kind, "--rows", "20000", "--store", "sqlite", "--mode", "full", "--scenario", "perform_fetch",
        "--repetitions", "1", "--no-index", "--datasets", datasets, "--out", dir + "/out-\(kind)",
      ])
      #expect(run.status == 0, "\(kind): \(run.stderr)")
    }
    #expect(TestSupport.listing(datasets).filter { $0.contains(".partial") }.isEmpty)
  }

  /// A symbolic link loop at a dataset's path is named as one.
  @Test func aLinkLoopAtADatasetPathIsNamed() throws {
    let dir = TestSupport.temporaryFolder("loop")
    defer { TestSupport.remove(dir) }
    try FileManager.default.createDirectory(atPath: dir + "/datasets", withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: dir + "/datasets/banks-300.sqlite", withDestinationPath: "banks-300.sqlite")
    let out = try TestSupport.run(["fetch", "--rows", "300", "--datasets", dir + "/datasets", "--ids"])
    #expect(out.status == 1 && out.stderr.contains("it is a symbolic link loop, not a file"), "\(out.stderr)")
  }

  /// What an interrupt between recording a dataset and renaming its file in leaves: an entry
  /// whose file is missing. The next `generate --if-missing` writes it again, equal to the
  /// entry; nothing is refused as the user's.
  @Test func anEntryWithoutItsFileIsGeneratedAgain() throws {
    let dir = TestSupport.temporaryFolder("entry-only")
    defer { TestSupport.remove(dir) }
    let datasets = try Self.banks(300, in: dir)
    let manifest = try String(contentsOfFile: datasets + "/manifest.json", encoding: .utf8)
    try FileManager.default.removeItem(atPath: datasets + "/banks-300.sqlite")
    let again = try TestSupport.run([
      "generate", "--dataset", "banks", "--rows", "300", "--datasets", datasets, "--format", "sqlite", "--if-missing",
    ])
    #expect(again.status == 0 && again.stdout.contains("(matches the manifest)"), "\(again.stdout)\n\(again.stderr)")
    #expect(try String(contentsOfFile: datasets + "/manifest.json", encoding: .utf8) == manifest)
  }
}
