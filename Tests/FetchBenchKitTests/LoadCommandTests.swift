import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import PostgresStore
import TestSupport
import Testing

/// `fetchbench load` end to end on a small dataset: every observer ends equal to a fresh
/// fetch, every committed transaction is delivered to every observer exactly once, failed
/// transactions leave nothing, a suspended observer coalesces, a dropped PostgreSQL session is
/// reopened without losing or repeating a change, writers never run out of rows, and bad input
/// fails clearly.
///
/// Every expectation holds at any machine speed: counts come from a fixed number of
/// transactions or from seeded sequences, conditions that need a slow consumer are forced
/// (`--suspend-observers`, `--observer-delay-ms` above the frame budget), and a rate search
/// that must climb is given a frame budget no machine misses (`--frame-budget-ms`).
@Suite(.serialized) struct LoadCommand {
  /// summary.csv as store → metric → value.
  static func summary(_ dir: String) throws -> [String: [String: Double]] {
    let lines = try String(contentsOfFile: dir + "/summary.csv", encoding: .utf8).split(separator: "\n").dropFirst()
    var out: [String: [String: Double]] = [:]
    for line in lines {
      let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      out[cells[1], default: [:]][cells[3]] = Double(cells[4])
    }
    return out
  }

  /// Every end check passed for `store`, and each committed transaction reached each of the
  /// `observers` exactly once: one delivery latency per transaction and observer.
  static func expectAllChecksPass(_ dir: String, _ store: String, observers: Double) throws {
    let m = try summary(dir)[store] ?? [:]
    #expect(m["mirrors_match"] == 1, "\(store): every mirror equals a fresh fetch")
    #expect(m["invalid_change_sets"] == 0, "\(store)")
    #expect(m["missed_transactions"] == 0, "\(store)")
    #expect(m["repeated_transactions"] == 0, "\(store)")
    #expect(m["rolled_back_rows_visible"] == 0, "\(store)")
    #expect((m["commits"] ?? 0) > 0, "\(store)")
    #expect(
      try deliveries(dir, store) == observers * (m["commits"] ?? -1), "\(store): each commit reaches each observer once"
    )
  }

  static func deliveries(_ dir: String, _ store: String) throws -> Double? {
    let lines = try String(contentsOfFile: dir + "/summary.csv", encoding: .utf8).split(separator: "\n")
    return lines.first { $0.contains(",\(store),") && $0.contains(",delivery_p50_ms,") }
      .map { $0.split(separator: ",", omittingEmptySubsequences: false) }.flatMap { Double($0[6]) }
  }

  /// Observers on Core Data's change rules: every change set valid and delivered once, each
  /// mirror equal to its controller's list, and the rows left out of place by re-dated banks
  /// (a related object) counted against a fresh fetch.
  @Test func observersOnCoreDatasRulesCountTheirStaleRows() throws {
    let dir = TestSupport.temporaryFolder("load-coredata")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run([
      "load", "--store", "sqlite", "--rows", "2000", "--writers", "2", "--observers", "2", "--rate", "150",
      "--duration", "30s",
      "--transactions", "80", "--transaction-size", "1...20", "--failure-rate", "0", "--change-rules", "coredata",
      "--datasets",
      dir + "/datasets", "--out", dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    try Self.expectAllChecksPass(dir + "/out", "sqlite", observers: 2)
    #expect(
      (try Self.summary(dir + "/out")["sqlite"]?["stale_rows_coredata"] ?? 0) > 0, "re-dated banks stay where they were"
    )
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("The observers kept Core Data's change rules (`--change-rules coredata`)"))
    let bad = try TestSupport.run(["load", "--change-rules", "uikit", "--datasets", dir + "/datasets"])
    #expect(
      bad.status == 64 && bad.stderr.contains("unknown change-rules 'uikit'; expected minimal or coredata"),
      "\(bad.stderr)")
  }

  /// `--schema coredata`: the writers write banks' Core Data file as Core Data's save does
  /// (written first when missing), failing transactions included, and every observer stays
  /// right; the file is only for SQLite.
  @Test func writersWriteTheCoreDataFileAndObserversStayRight() throws {
    let dir = TestSupport.temporaryFolder("load-coredata-file")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run([
      "load", "--schema", "coredata", "--rows", "2000", "--writers", "2", "--observers", "2", "--rate", "150",
      "--duration", "30s",
      "--transactions", "80", "--transaction-size", "1...20", "--failure-rate", "0.1", "--datasets", dir + "/datasets",
      "--out",
      dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir + "/datasets/banks-2000.coredata.sqlite"))
    try Self.expectAllChecksPass(dir + "/out", "sqlite", observers: 2)
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("**In Core Data's schema** (`--schema coredata`)"))
    let bad = try TestSupport.run([
      "load", "--schema", "coredata", "--store", "memory", "--datasets", dir + "/datasets",
    ])
    #expect(
      bad.status == 64
        && bad.stderr.contains("--schema coredata: Core Data's file is a SQLite file; give --store sqlite"),
      "\(bad.stderr)")
  }

  @Test func observersStayRightUnderConcurrentWriters() throws {
    let dir = TestSupport.temporaryFolder("load")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run([
      "load", "--store", "memory,sqlite", "--rows", "2000", "--writers", "3", "--observers", "2", "--rate", "150",
      "--duration", "30s",
      "--transactions", "120", "--transaction-size", "1...20", "--failure-rate", "0.1", "--datasets", dir + "/datasets",
      "--out",
      dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let s = try Self.summary(dir + "/out")
    for store in ["memory", "sqlite"] {
      let m = s[store] ?? [:]
      try Self.expectAllChecksPass(dir + "/out", store, observers: 2)
      #expect((m["commits"] ?? 0) + (m["failed_commits"] ?? 0) == 120, "\(store): the run stops after 120 transactions")
      // Each writer's failures are seeded by its transaction number, and each of the three
      // seeds fails one of its first 40 transactions: whichever writer takes 40 of the 120
      // (one always does) rolls one back, however the machine schedules them.
      #expect((m["failed_commits"] ?? 0) > 0, "\(store): about 10% of 120 fail and roll back")
      // Every scroller reads its first screen however soon the run ends, and nothing is
      // loaded before it.
      #expect((m["faults"] ?? 0) > 0, "\(store): the scrollers fault batches")
    }
    let report = try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8)
    #expect(report.contains("| in-memory |") && report.contains("| SQLite |") && report.contains("all passed"))
    let timeline = try String(contentsOfFile: dir + "/out/timeline.csv", encoding: .utf8)
    #expect(timeline.hasPrefix("run_id,store,target_rate,second,commits"))
    #expect(TestSupport.listing(dir + "/out").contains("charts/sqlite-150-delivery.svg"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out.partial"))
  }

  /// A suspended observer takes nothing until the writers stop, so every transaction of the
  /// run is waiting when it resumes, whatever the machine's speed: one coalesced change set.
  @Test func aSuspendedObserverCoalescesAndStaysRight() throws {
    let dir = TestSupport.temporaryFolder("load-slow")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run([
      "load", "--store", "memory,sqlite", "--rows", "2000", "--writers", "2", "--observers", "1", "--rate", "200",
      "--duration", "30s",
      "--transactions", "100", "--transaction-size", "1...10", "--suspend-observers", "--observer-delay-ms", "40",
      "--datasets",
      dir + "/datasets", "--out", dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    for store in ["memory", "sqlite"] {
      let m = try Self.summary(dir + "/out")[store] ?? [:]
      try Self.expectAllChecksPass(dir + "/out", store, observers: 1)
      #expect(m["change_sets"] == 1, "\(store): the whole backlog in one change set")
      #expect(
        m["coalesced_transactions"] == (m["commits"] ?? 0) - 1,
        "\(store): every transaction but the first merged into it")
    }
  }

  @Test func aRunStopsAtItsDurationWhenWritersFallBehind() throws {
    let dir = TestSupport.temporaryFolder("load-stop")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run([
      "load", "--store", "memory", "--rows", "2000", "--writers", "2", "--observers", "1", "--rate", "1000000",
      "--duration", "2s",
      "--datasets", dir + "/datasets", "--out", dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let m = try Self.summary(dir + "/out")["memory"] ?? [:]
    try Self.expectAllChecksPass(dir + "/out", "memory", observers: 1)
    // Writers that ignored the duration would work through 2,000,000 scheduled commits:
    // minutes on any machine. One in-memory commit of at most 50 objects, the most a writer
    // can start before 2 s and finish after, takes far less than the 10 s allowed here.
    let seconds = m["seconds"] ?? 99
    #expect(seconds >= 2 && seconds < 12, "the writers stop at 2 s although a million commits a second are scheduled")
    #expect((m["commits"] ?? 0) + (m["failed_commits"] ?? 0) < 2_000_000)
  }

  /// Four writers on 100 banks (25 each) with one to five changes a transaction, as fast as
  /// they can for 2 s: a writer whose partition runs low turns deletes into inserts instead of
  /// drawing a bank from none (it crashed after some thousands of commits, sooner the faster
  /// the machine).
  @Test func writersNeverRunDry() throws {
    let dir = TestSupport.temporaryFolder("load-dry")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run([
      "load", "--store", "memory", "--rows", "100", "--writers", "4", "--observers", "1", "--transaction-size", "1...5",
      "--rate",
      "1000000",
      "--duration", "2s", "--datasets", dir + "/datasets", "--out", dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    #expect(!out.stderr.contains("crashed"), "\(out.stderr)")
    try Self.expectAllChecksPass(dir + "/out", "memory", observers: 1)
  }

  /// The target rates a run tried, in order, from summary.csv.
  static func rates(_ dir: String) throws -> [Int] {
    var out: [Int] = []
    for line in try String(contentsOfFile: dir + "/summary.csv", encoding: .utf8).split(separator: "\n").dropFirst() {
      let rate = Int(line.split(separator: ",")[2])!
      if out.last != rate { out.append(rate) }
    }
    return out
  }

  @Test func findMaxRateClimbsAndDescends() throws {
    let dir = TestSupport.temporaryFolder("load-max")
    defer { TestSupport.remove(dir) }
    // An observer that spends 100 ms per change set never delivers within a frame: the search
    // halves from 125/s and stops below 8/s with no sustained rate.
    let slow = try TestSupport.run([
      "load", "--store", "memory", "--rows", "2000", "--writers", "1", "--observers", "1", "--find-max-rate",
      "--step-duration", "1s",
      "--observer-delay-ms", "100", "--datasets", dir + "/datasets", "--out", dir + "/slow",
    ])
    #expect(slow.status == 0, "\(slow.stderr)")
    #expect(try Self.rates(dir + "/slow") == [125, 62, 31, 15])
    let slowReport = try String(contentsOfFile: dir + "/slow/report.md", encoding: .utf8)
    #expect(slowReport.contains(" | none (not even 8) | — | 15/s: delivery p99"), "\(slowReport)")
    #expect(slow.stdout.contains("in-memory: sustains no rate down to 8/s (its own limit "), "\(slow.stdout)")
    // Without the delay, and with a frame budget of a minute that no machine misses, each
    // store climbs past the first step (125 commits/s of at most 50 objects), its own write
    // limit measured first: SQLite's with one writer, the in-memory store's with the run's two.
    let fast = try TestSupport.run([
      "load", "--store", "memory,sqlite", "--rows", "2000", "--writers", "2", "--observers", "1", "--find-max-rate",
      "--step-duration",
      "1s", "--frame-budget-ms", "60000", "--datasets", dir + "/datasets", "--out", dir + "/fast",
    ])
    #expect(fast.status == 0, "\(fast.stderr)")
    let tried = try Self.rates(dir + "/fast")
    #expect(Array(tried.prefix(2)) == [125, 250], "\(tried)")
    let report = try String(contentsOfFile: dir + "/fast/report.md", encoding: .utf8)
    #expect(report.contains("## Highest sustained rate"))
    #expect(report.contains("| in-memory | ") && report.contains(" (2 writers) | "), "\(report)")
    #expect(report.contains("| SQLite | ") && report.contains(" (1 writer) | "), "\(report)")
    #expect(report.contains("SQLite: journal_mode=wal, synchronous=FULL"), "\(report)")
    let search = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/fast/search.json")))
        as? [String: Any])
    #expect(
      (search["rawLimits"] as? [Any])?.count == 2 && (search["steps"] as? [Any])?.count == tried.count, "\(search)")
    #expect(fast.stderr.contains("memory alone: ") && fast.stderr.contains("sqlite alone: "), "\(fast.stderr)")
    #expect(fast.stdout.contains("in-memory: sustains ") && fast.stdout.contains("SQLite: sustains "), "\(fast.stdout)")
  }

  @Test func aDroppedPostgresSessionIsReopenedWithoutLossOrRepeats() throws {
    try TestSupport.requirePostgresServer()
    let dir = TestSupport.temporaryFolder("load-pg")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run([
      "load", "--store", "postgres", "--rows", "2000", "--writers", "2", "--observers", "2", "--rate", "60",
      "--duration", "4s",
      "--transaction-size", "1...10", "--failure-rate", "0.2", "--drop-connection-at", "2", "--datasets",
      dir + "/datasets", "--out",
      dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let m = try Self.summary(dir + "/out")["postgres"] ?? [:]
    try Self.expectAllChecksPass(dir + "/out", "postgres", observers: 2)
    // The writers write until 4 s whatever their speed, so the drop at 2 s always happens.
    #expect(m["reconnects"] == 2, "each observer's session was ended once and reopened once")
    // Seeded: writer 0 rolls back its 3rd transaction, writer 1 its 2nd.
    #expect((m["failed_commits"] ?? 0) > 0)
  }

  @Test func badLoadInputFailsClearly() throws {
    let wells = try TestSupport.run(["load", "--dataset", "wells"])
    #expect(wells.status != 0 && wells.stderr.contains("the load test writes banks"), "\(wells.stderr)")
    let size = try TestSupport.run(["load", "--transaction-size", "0...5"])
    #expect(size.status != 0 && size.stderr.contains("--transaction-size"), "\(size.stderr)")
    let duration = try TestSupport.run(["load", "--duration", "soon"])
    #expect(duration.status != 0 && duration.stderr.contains("not a duration"), "\(duration.stderr)")
    let store = try TestSupport.run(["load", "--store", "oracle"])
    #expect(store.status != 0 && store.stderr.contains("unknown store 'oracle'"), "\(store.stderr)")
    let dir = TestSupport.temporaryFolder("load-bad")
    defer { TestSupport.remove(dir) }
    let down = try TestSupport.run([
      "load", "--store", "postgres", "--rows", "500", "--postgres-url", "postgres://nobody@127.0.0.1:1/none",
      "--datasets", dir,
      "--out", dir + "/out",
    ])
    #expect(down.status != 0 && down.stderr.contains("127.0.0.1:1"), "\(down.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"), "nothing written")
  }
}
