import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import PostgresStore
import SQLQueries
import SQLiteStore
import Synchronization
import TestSupport
import Testing
import Vocabulary

/// Collects change sets as a table view's data source would.
final class Recorder: FetchedResultsControllerDelegate {
  var changes: [ChangeSet] = []
  func controller(_ controller: FetchedResultsController, didChange changes: ChangeSet) { self.changes.append(changes) }
}

extension Value {
  var integerValue: Int64? { if case .integer(let i) = self { i } else { nil } }
}

/// 600 banks: small enough that thousands of transactions, each checked against a fresh
/// fetch, run in seconds, and that small states' sections vanish now and then.
final class TrackingFixture: Sendable {
  static let shared = TrackingFixture()
  let folder: String
  let path: String
  init() {
    folder = TestSupport.temporaryFolder("tracking")
    _ = try! Generation.run(
      GenerationRequest(datasets: [.banks], rows: 600, seed: 8, outDirectory: folder, writeCSV: false))
    path = DatasetPaths.sqlite(in: folder, .banks, rows: 600, seed: 8)
  }

  /// The fixture in a PostgreSQL database that serves as the template of writable copies.
  static let postgresTemplate: Result<String, any Error> = Result {
    let url = try TestDatabases.create("tracking")
    try PostgresLoader.load(DatasetLocation(kind: .banks, rows: 600, seed: 8, directory: shared.folder), into: url)
    return "tracking"
  }
}

private let copies = Mutex(0)

/// A private PostgreSQL copy of the fixture (a database made from the template); without a
/// server, the test or the test case is skipped, naming why.
func postgresCopy() throws -> PostgresURL {
  try TestSupport.requirePostgresServer()
  let template = try TrackingFixture.postgresTemplate.get()
  let n = copies.withLock { n in
    n += 1
    return n
  }
  return try TestDatabases.create("copy\(n)", template: template)
}

/// A fresh store over a private copy of the fixture, so that writes stay in the test. Not
/// `SQLiteScratch`/`PostgresScratch`, deliberately: thousands of copies are made here, a
/// PostgreSQL copy from a template database in milliseconds instead of a COPY load each, and
/// the SQLite copies live in the test's temporary folder, removed with it.
/// The stores whose change sets are FetchBench's: Core Data's statements (`sqliteCoreData`)
/// order equal sort keys as SQLite returns them, which the engine's change sets do not follow.
let trackedStores: [StoreKind] = [.memory, .sqlite, .postgres]

func writableStore(_ kind: StoreKind) throws -> any Store {
  let model = DatasetModels.banks
  switch kind {
  case .memory:
    return try MemoryStore.load(from: SQLiteStore(path: TrackingFixture.shared.path, model: model, mode: .immutable))
  case .postgres: return try PostgresStore(url: try postgresCopy(), model: model)
  case .sqlite, .sqliteCoreData:
    let copy = TestSupport.temporaryFolder("write") + "/db.sqlite"
    try FileManager.default.copyItem(atPath: TrackingFixture.shared.path, toPath: copy)
    let store = try SQLiteStore(path: copy, model: model)
    if kind == .sqliteCoreData { store.plan = .coreData }
    return store
  }
}

struct TrackingConfig: CustomTestStringConvertible, Sendable {
  var store: StoreKind
  var sections: Bool
  var batchSize: Int
  var predicate: Bool
  var testDescription: String {
    "\(store) \(sections ? "sections" : "no sections") \(batchSize == 0 ? "full" : "batched") \(predicate ? "predicate" : "all rows")"
  }

  func request() -> FetchRequest {
    var r = DatasetModels.defaultRequest(for: .banks, batchSize: batchSize)
    if sections {
      r.sortDescriptors.insert(SortDescriptor("state"), at: 0)
      r.sectionNameKeyPath = "state"
    }
    if predicate { r.predicate = try! QueryParser.predicate("details.closeDate > 1990-01-01 AND state != 'GA'") }
    return r
  }

  static let all: [TrackingConfig] = trackedStores.flatMap { store in
    [false, true].flatMap { sections in
      [0, 20].flatMap { batch in
        [false, true].map { TrackingConfig(store: store, sections: sections, batchSize: batch, predicate: $0) }
      }
    }
  }
}

@Suite struct ChangeTracking {
  /// Thousands of random transaction sequences (a fresh controller every three transactions,
  /// on a store that keeps changing): every change set passes UIKit's rules and its result
  /// equals a fresh fetch; renamed rows are reloaded; the list and batch invariants hold; the
  /// whole-list diff of the same step validates too and needs no more moves.
  @Test(arguments: TrackingConfig.all)
  func everyChangeSetValidatesAndEqualsAFreshFetch(config: TrackingConfig) throws {
    let seeds: [UInt64] = config.store == .memory ? Array(1...24) : Array(1...6)
    var sequences = 0
    var transactions = 0
    var nonEmpty = 0
    var sectionChanges = 0
    var movesWithUpdate = 0
    for seed in seeds {
      let store = try writableStore(config.store)
      var writer = try BankWorkload(store: store, seed: seed)
      var controller = FetchedResultsController(fetchRequest: config.request(), store: store)
      var recorder = Recorder()
      var mirror = ListSnapshot(sections: [])
      for step in 0..<30 {
        if step % 3 == 0 {
          #expect(controller.trackingStats.refetches == 0)
          controller = FetchedResultsController(fetchRequest: config.request(), store: store)
          recorder = Recorder()
          controller.delegate = recorder
          try controller.performFetch()
          mirror = controller.snapshot()
          sequences += 1
        }
        let (ops, renamed) = writer.randomTransaction(big: step % 8 == 7)
        let before = mirror
        recorder.changes = []
        try store.commit(ops)
        transactions += 1
        #expect(recorder.changes.count <= 1)
        #expect(controller.lastTrackingError == nil, "\(controller.lastTrackingError.map { "\($0)" } ?? "")")
        if let c = recorder.changes.first {
          nonEmpty += 1
          sectionChanges += c.sectionInserts.count + c.sectionDeletes.count
          movesWithUpdate += c.moves.filter(\.contentChanged).count
          #expect(!c.moves.contains { $0.from == $0.to }, "a move in place must be a reload")
          do {
            mirror = try BatchUpdateValidator.apply(c, to: mirror)
            _ = try BatchUpdateValidator.apply(c.asDeleteInsert(), to: before)
          } catch {
            Issue.record("seed \(seed) step \(step): \(error)")
            break
          }
          let reloaded = Set(mirror.reloaded)
          let beforeIDs = Set(before.allIDs)
          let afterIDs = Set(mirror.allIDs)
          for id in renamed where beforeIDs.contains(id) && afterIDs.contains(id) {
            let sectionMoved =
              c.deletes.contains { $0.id == id } || c.sectionDeletes.contains { before.sections[$0].ids.contains(id) }
            #expect(reloaded.contains(id) || sectionMoved, "renamed \(id) is not reloaded")
          }
        }
        let fresh = FetchedResultsController(fetchRequest: config.request(), store: store)
        try fresh.performFetch()
        let expected = fresh.snapshot()
        #expect(mirror.sameRows(as: expected), "seed \(seed) step \(step): the mirror differs from a fresh fetch")
        #expect(controller.snapshot().sameRows(as: expected))
        #expect(controller.list!.invariantViolations() == [])
        if let a = controller.batchArray { #expect(a.invariantViolations() == []) }
        // The whole-list diff of the same step: valid, and never more moves.
        let diff = ListDiff.diff(from: before, to: expected)
        #expect((try? BatchUpdateValidator.apply(diff, to: before))?.sameRows(as: expected) == true)
        #expect(diff.relocations <= (recorder.changes.first?.relocations ?? 0))
        // Rows read through the tracked controller equal a fresh fetch's.
        for i in stride(from: step % 7, to: fresh.count, by: max(1, fresh.count / 9)) {
          #expect(try controller.object(atGlobalIndex: i) == fresh.object(atGlobalIndex: i))
        }
        guard mirror.sameRows(as: expected) else { break }
      }
      #expect(controller.trackingStats.refetches == 0)
    }
    #expect(sequences == seeds.count * 10 && transactions == seeds.count * 30)
    #expect(nonEmpty > transactions / 2)
    if config.sections { #expect(sectionChanges > 0, "sections appeared or vanished") }
    #expect(movesWithUpdate > 0, "the move + update case happened")
  }

  /// An update reports the old values of the attributes it changed and the link attributes
  /// as written, also when a link attribute is one of those it sets (PostgreSQL reads the old
  /// row and writes the new one in one statement; the column read twice must not clash).
  @Test(arguments: trackedStores)
  func anUpdateReportsOldValuesAndLinks(store type: StoreKind) throws {
    let store = try writableStore(type)
    let controller = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: store)
    try controller.performFetch()
    let info = controller.fetchedIDs[7]
    let writer = try BankWorkload(store: store, seed: 3)
    let details = try #require(writer.banks[info])
    let read = try FetchRequest(entityName: "FailedBankDetails").resolve(in: store.model)
    let date = read.rowLayout.index(of: "closeDate")!
    let link = read.rowLayout.index(of: "infoID")!
    let oldDate = try #require(try store.fetchObjects(read, ids: [details]).first).values[date]
    let newDate = Value.date(-2_000_000_000)
    let done = try store.commit([
      .update(entity: "FailedBankDetails", id: details, values: ["infoID": .integer(info), "closeDate": newDate])
    ])
    let change = try #require(done.changes.first { $0.entity == "FailedBankDetails" })
    #expect(change.updated == [details: ["closeDate"]], "infoID did not change, so it is not reported")
    #expect(change.oldValues[details] == ["closeDate": oldDate])
    #expect(change.links[details] == ["infoID": .integer(info)])
    #expect(oldDate != newDate)
    let after = try #require(try store.fetchObjects(read, ids: [details]).first)
    #expect(after.values[date] == newDate && after.values[link] == .integer(info))
  }

  /// Counters: a transaction of k changed objects costs one keys query for those a write may
  /// have moved (plus one per changed relationship), none when no write touched what orders
  /// or filters the list (a rename keeps the kept key), and faults no row in batched mode.
  @Test(arguments: trackedStores)
  func aTransactionQueriesTheChangedObjectsOnly(store type: StoreKind) throws {
    let store = try writableStore(type)
    let controller = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: store)
    let recorder = Recorder()
    controller.delegate = recorder
    try controller.performFetch()
    let ids = controller.fetchedIDs
    let writer = try BankWorkload(store: store, seed: 3)
    let ops: [WriteOperation] = (0..<10).map { k in
      .update(
        entity: "FailedBankDetails", id: writer.banks[ids[k * 50]]!,
        values: ["closeDate": .date(Double(-2_000_000_000 + 100_000 * k))])
    }
    try store.commit(ops)
    #expect(controller.trackingStats.keysRead == 10, "the ten re-dated banks' keys read from the store")
    store.resetCounters()
    let again = try store.commit([
      .update(entity: "FailedBankInfo", id: ids[5], values: ["name": .string("Only the name")])
    ])
    #expect(controller.trackingStats.keysRead == 10, "a rename moves nothing: its key is the kept one")
    switch type {
    case .memory: #expect(store.counters.queries == 0, "no keys query")
    case .sqlite, .sqliteCoreData:
      #expect(store.counters.queries == 2, "the update's read and write, and no keys query")
    case .postgres:
      #expect(store.counters.queries == 2, "the update (reading the row as it writes it), reading the change log")
      #expect(store.counters.roundTrips == 6, "BEGIN, update, log lock, log row, COMMIT, log read")
      #expect(store.counters.bytesReceived > 0)
    }
    #expect(store.counters.rowsMaterialized == 0, "no row faulted")
    let c = try #require(recorder.changes.last)
    #expect(c.reloads == [ChangeSet.Row(controller.indexPath(for: ids[5])!, id: ids[5])])
    #expect(c.size == 1)
    #expect(again.sequence == 2)
    // The ten dates moved to 1906, before any other: ten moves to the bottom (descending).
    let moved = try #require(recorder.changes.first)
    #expect(moved.moves.count == 10 && moved.moves.allSatisfy { $0.to.row >= ids.count - 10 })
  }
}

extension ChangeTracking {
  /// The AsyncSequence delivers the same change sets as the delegate, in order; a transaction
  /// that changes nothing in the results delivers none; without sections the
  /// CollectionDifference form applies to the IDs.
  @Test func changesArriveAsAnAsyncSequenceToo() async throws {
    let store = try writableStore(.memory)
    let controller = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: store)
    let recorder = Recorder()
    controller.delegate = recorder
    let stream = controller.changes()
    try controller.performFetch()
    let ids = controller.fetchedIDs
    let writer = try BankWorkload(store: store, seed: 1)
    try store.commit([
      .update(entity: "FailedBankDetails", id: writer.banks[ids[0]]!, values: ["closeDate": .date(-2_000_000_000)])
    ])
    try store.commit([
      .update(entity: "FailedBankInfo", id: ids[1], values: ["city": .string("Same")]),
      .update(
        entity: "FailedBankInfo", id: ids[1],
        values: ["city": .string(try controller.object(atGlobalIndex: 0)["city"]!.stringValue!)]),
    ])
    try store.commit([
      .delete(entity: "FailedBankDetails", id: writer.banks[ids[2]]!), .delete(entity: "FailedBankInfo", id: ids[2]),
    ])
    var received: [ChangeSet] = []
    for await c in stream {
      received.append(c)
      if received.count == recorder.changes.count { break }
    }
    #expect(received == recorder.changes)
    #expect(received.count >= 2)
    let first = try #require(received.first)
    #expect(first.moves.map(\.id) == [ids[0]] && first.moves[0].to.row == ids.count - 1)
    let difference = try #require(first.collectionDifference())
    #expect(ids.applying(difference) == Array(ids.dropFirst()) + [ids[0]])
  }
}

@Suite struct Validator {
  func snapshot(_ sections: [[Int64]]) -> ListSnapshot {
    ListSnapshot(sections: sections.enumerated().map { ListSnapshot.Section(name: "s\($0.offset)", ids: $0.element) })
  }

  @Test func invalidChangeSetsThrowWhatUIKitWould() {
    let old = snapshot([[1, 2, 3], [4, 5]])
    func check(_ build: (inout ChangeSet) -> Void, _ message: String) {
      var c = ChangeSet()
      c.oldSectionCounts = [3, 2]
      c.newSectionCounts = [3, 2]
      build(&c)
      #expect(throws: BatchUpdateError.self, "\(message)") { try BatchUpdateValidator.apply(c, to: old) }
      do {
        _ = try BatchUpdateValidator.apply(c, to: old)
      } catch { #expect(error.description.contains(message), "\(error.description)") }
    }
    check(
      { $0.deletes = [.init(RowPath(row: 0, section: 0), id: 1)] },
      "invalid number of rows in section 0. The number of rows contained in an existing section after the update (3) must be equal to the number of rows contained in that section before the update (3), plus or minus the number of rows inserted or deleted from that section (0 inserted, 1 deleted) and plus or minus the number of rows moved into or out of that section (0 moved in, 0 moved out)."
    )
    check(
      {
        $0.deletes = [.init(RowPath(row: 1, section: 1), id: 5)]
        $0.reloads = [.init(RowPath(row: 1, section: 1), id: 5)]
        $0.newSectionCounts = [3, 1]
      }, "attempt to delete and reload the same index path")
    check(
      {
        $0.moves = [
          .init(from: RowPath(row: 0, section: 0), to: RowPath(row: 0, section: 0), id: 1, contentChanged: false)
        ]
      },
      "a move in place is a reload")
    check({ $0.deletes = [.init(RowPath(row: 7, section: 0), id: 1)] }, "which only contains 3 rows before the update")
    check(
      {
        $0.inserts = [.init(RowPath(row: 0, section: 1), id: 9)]
        $0.newSectionCounts = [3, 4]
      },
      "invalid number of rows in section 1. The number of rows contained in an existing section after the update (4) must be equal to the number of rows contained in that section before the update (2), plus or minus the number of rows inserted or deleted from that section (1 inserted, 0 deleted)"
    )
    check(
      {
        $0.inserts = [.init(RowPath(row: 5, section: 1), id: 9)]
        $0.newSectionCounts = [3, 3]
      }, "but there are only 3 rows in section 1 after the update")
    check(
      {
        $0.sectionDeletes = [1]
        $0.newSectionCounts = [3, 2]
      }, "invalid number of sections")
    check(
      {
        $0.deletes = [.init(RowPath(row: 0, section: 0), id: 2)]
        $0.newSectionCounts = [2, 2]
      }, "names object 2, but that row holds 1")
  }

  @Test func validChangeSetsGiveTheNewSnapshot() throws {
    let old = snapshot([[1, 2, 3], [4, 5]])
    var c = ChangeSet()
    c.oldSectionCounts = [3, 2]
    c.newSectionCounts = [3, 2, 1]
    c.deletes = [.init(RowPath(row: 0, section: 0), id: 1)]
    c.moves = [.init(from: RowPath(row: 0, section: 1), to: RowPath(row: 0, section: 0), id: 4, contentChanged: true)]
    c.inserts = [.init(RowPath(row: 1, section: 1), id: 9)]
    c.sectionInserts = [.init(index: 2, name: "new", ids: [7])]
    c.reloads = [.init(RowPath(row: 1, section: 0), id: 2)]
    let new = try BatchUpdateValidator.apply(c, to: old)
    #expect(new.sections.map(\.ids) == [[4, 2, 3], [5, 9], [7]])
    #expect(new.reloaded == [2, 4])
    #expect(c.reloadsAfterBatch == [RowPath(row: 0, section: 0)])
    #expect(try BatchUpdateValidator.apply(c.asDeleteInsert(), to: old).sameRows(as: new))
  }
}

@Suite struct FullListDiff {
  /// Moves are minimal: common rows minus an LIS, checked against an O(n²) reference on
  /// random permutations with deletes and inserts.
  @Test func movesAreMinimalAndTheDiffValidates() throws {
    var rng = SeededRandom(seed: 77)
    for trial in 0..<300 {
      let n = 1 + Int(rng.below(60))
      let old = (0..<Int64(n)).map { $0 }
      var new = old.filter { _ in rng.below(5) != 0 }
      for _ in 0..<Int(rng.below(6)) {
        let i = Int(rng.below(UInt64(new.count + 1)))
        new.insert(1_000 + Int64(trial * 100) + Int64(rng.below(90)), at: i)
      }
      new = Array(Set(new)).sorted()  // unique
      for _ in 0..<Int(rng.below(8)) where new.count > 1 {
        new.swapAt(Int(rng.below(UInt64(new.count))), Int(rng.below(UInt64(new.count))))
      }
      let a = ListSnapshot(sections: [.init(name: "", ids: old)])
      let b = ListSnapshot(sections: [.init(name: "", ids: new)])
      let d = ListDiff.diff(from: a, to: b, reloaded: Set(new.prefix(3)))
      #expect(try BatchUpdateValidator.apply(d, to: a).sameRows(as: b))
      let common = new.filter { $0 < 1_000 }
      var best = [Int](repeating: 1, count: common.count)  // O(n²) LIS, the reference
      for i in common.indices { for j in 0..<i where common[j] < common[i] { best[i] = max(best[i], best[j] + 1) } }
      #expect(d.relocations == common.count - (best.max() ?? 0), "trial \(trial)")
      #expect(d.collectionDifference().map { b.allIDs == a.allIDs.applying($0) } == true)
    }
  }

  /// Sections that appear, vanish, and rows that cross them.
  @Test func sectionedDiffValidates() throws {
    let a = ListSnapshot(sections: [
      .init(name: "A", ids: [1, 2, 3]), .init(name: "B", ids: [4, 5]), .init(name: "C", ids: [6]),
    ])
    let b = ListSnapshot(sections: [
      .init(name: "A", ids: [3, 1]), .init(name: "AB", ids: [2, 7]), .init(name: "C", ids: [5, 6, 8]),
    ])
    let d = ListDiff.diff(from: a, to: b)
    #expect(d.sectionDeletes == [1] && d.sectionInserts.map(\.index) == [1])
    #expect(try BatchUpdateValidator.apply(d, to: a).sameRows(as: b))
  }
}

/// Changes committed by other connections reach a controller through the change log, in
/// order, once each; what a failed transaction wrote is seen by no one; an observer whose
/// connection dropped reconnects and catches up on what it missed.
@Suite struct PostgresChanges {
  func stores() throws -> (writer: PostgresStore, reader: PostgresStore) {
    try EngineFixture.shared.requirePostgres()
    let url = try postgresCopy()
    return (
      try PostgresStore(url: url, model: DatasetModels.banks), try PostgresStore(url: url, model: DatasetModels.banks)
    )
  }

  @Test func anotherConnectionsCommitsReachTheController() throws {
    let (writer, reader) = try stores()
    let controller = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: reader)
    let recorder = Recorder()
    controller.delegate = recorder
    try controller.performFetch()
    var mirror = controller.snapshot()
    var bank = try BankWorkload(store: writer, seed: 11)
    var sequences: [Int] = []
    for step in 0..<12 {
      let t = try writer.commit(bank.randomTransaction(big: step == 5).ops)
      sequences.append(t.sequence)
    }
    #expect(recorder.changes.isEmpty, "nothing arrives before the reader polls")
    // The writer's commits notified the channel: the wait returns at once and delivers all.
    let delivered = try reader.waitForChanges(timeout: 5)
    #expect(delivered == 12)
    #expect(sequences == Array(1...12))
    #expect(reader.deliveredSequence == 12)
    #expect(controller.trackingStats.transactions == 12, "each transaction applied once")
    let seen = recorder.changes.compactMap { $0.transactions?.lowerBound }
    #expect(seen == seen.sorted() && Set(seen).count == seen.count && seen.allSatisfy { (1...12).contains($0) })
    for c in recorder.changes { mirror = try BatchUpdateValidator.apply(c, to: mirror) }
    let fresh = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: writer)
    try fresh.performFetch()
    #expect(mirror.sameRows(as: fresh.snapshot()))
    #expect(try reader.pollChanges() == 0, "nothing is delivered twice")
  }

  @Test func aFailedTransactionLeavesNothing() throws {
    let (writer, reader) = try stores()
    let bank = try BankWorkload(store: writer, seed: 12)
    let (info, details) = bank.banks.min { $0.key < $1.key }!
    let before = try writer.fetchObjects(
      try FetchRequest(entityName: "FailedBankDetails").resolve(in: writer.model), ids: [details])
    #expect(throws: (any Error).self) {
      try writer.commit([
        .update(entity: "FailedBankDetails", id: details, values: ["closeDate": .date(0)]),
        .delete(entity: "FailedBankInfo", id: 999_999_999),
      ])
    }
    let after = try writer.fetchObjects(
      try FetchRequest(entityName: "FailedBankDetails").resolve(in: writer.model), ids: [details])
    #expect(after == before, "the update was rolled back")
    #expect(try reader.pollChanges() == 0 && reader.deliveredSequence == 0, "nothing was logged")
    // The connection is usable afterwards, and the next commit is number 1.
    let t = try writer.commit([.update(entity: "FailedBankInfo", id: info, values: ["name": .string("After")])])
    #expect(t.sequence == 1)
  }

  @Test func aDroppedObserverReconnectsAndCatchesUp() throws {
    let (writer, reader) = try stores()
    let controller = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: reader)
    let recorder = Recorder()
    controller.delegate = recorder
    try controller.performFetch()
    var mirror = controller.snapshot()
    var bank = try BankWorkload(store: writer, seed: 13)
    try writer.commit(bank.randomTransaction(big: false).ops)
    #expect(try reader.pollChanges() == 1)
    // The server ends the reader's session, as a restart or a network cut would.
    let admin = try PostgresAdmin(url: writer.url)
    try admin.execute("SELECT pg_terminate_backend(\(try reader.backendPID()))")
    for _ in 0..<100 where !reader.isDisconnected { usleep(10_000) }
    #expect(reader.isDisconnected)
    for _ in 0..<3 { try writer.commit(bank.randomTransaction(big: false).ops) }
    #expect(throws: PostgresStoreError.self) { try reader.pollChanges() }
    #expect(try reader.reconnect() == 3, "the three missed transactions, once each")
    #expect(try reader.pollChanges() == 0)
    #expect(reader.deliveredSequence == 4)
    for c in recorder.changes { mirror = try BatchUpdateValidator.apply(c, to: mirror) }
    let fresh = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: writer)
    try fresh.performFetch()
    #expect(mirror.sameRows(as: fresh.snapshot()))
  }
}

/// The SQLite change log: other connections' commits reach a controller in order and once
/// each; a failed transaction is logged nowhere; a commit of this process wakes a waiting
/// reader at once.
@Suite struct SQLiteChanges {
  func stores() throws -> (writer: SQLiteStore, reader: SQLiteStore, folder: String) {
    let folder = TestSupport.temporaryFolder("sqlite-log")
    let path = folder + "/db.sqlite"
    try FileManager.default.copyItem(atPath: EngineFixture.shared.path(.banks), toPath: path)
    let writer = try SQLiteStore(path: path, model: DatasetModels.banks)
    let reader = try SQLiteStore(path: path, model: DatasetModels.banks)
    try writer.enableChangeLog()
    try reader.enableChangeLog()
    return (writer, reader, folder)
  }

  @Test func anotherConnectionsCommitsReachTheController() throws {
    let (writer, reader, folder) = try stores()
    defer { TestSupport.remove(folder) }
    var request = DatasetModels.defaultRequest(for: .banks)
    request.sortDescriptors.insert(SortDescriptor("state"), at: 0)
    request.sectionNameKeyPath = "state"
    let controller = FetchedResultsController(fetchRequest: request, store: reader)
    let recorder = Recorder()
    controller.delegate = recorder
    try controller.performFetch()
    var mirror = controller.snapshot()
    var bank = try BankWorkload(store: writer, seed: 21)
    let sequences = try (0..<12).map { step in try writer.commit(bank.randomTransaction(big: step == 5).ops).sequence }
    #expect(sequences == Array(1...12), "gapless, in commit order")
    #expect(recorder.changes.isEmpty, "nothing arrives before the reader polls")
    #expect(try reader.waitForChanges(timeout: 5) == 12)
    #expect(reader.deliveredSequence == 12)
    #expect(controller.trackingStats.transactions == 12, "each transaction applied once")
    for c in recorder.changes { mirror = try BatchUpdateValidator.apply(c, to: mirror) }
    let fresh = FetchedResultsController(fetchRequest: request, store: writer)
    try fresh.performFetch()
    #expect(mirror.sameRows(as: fresh.snapshot()))
    #expect(try reader.pollChanges() == 0, "nothing is delivered twice")
  }

  @Test func aFailedTransactionLeavesNothing() throws {
    let (writer, reader, folder) = try stores()
    defer { TestSupport.remove(folder) }
    let bank = try BankWorkload(store: writer, seed: 22)
    let (info, _) = bank.banks.min { $0.key < $1.key }!
    #expect(throws: (any Error).self) {
      try writer.commit([
        .update(entity: "FailedBankInfo", id: info, values: ["name": .string("Never")]),
        .delete(entity: "FailedBankInfo", id: 999_999_999),
      ])
    }
    let named = try reader.fetchObjects(
      try FetchRequest(entityName: "FailedBankInfo").resolve(in: reader.model), ids: [info])
    #expect(named.first?["name"] != .string("Never"), "the update was rolled back")
    #expect(try reader.pollChanges() == 0 && reader.deliveredSequence == 0, "nothing was logged")
    #expect(
      try writer.commit([.update(entity: "FailedBankInfo", id: info, values: ["name": .string("After")])]).sequence == 1
    )
  }

  @Test func aCommitWakesAWaitingReader() throws {
    let (writer, reader, folder) = try stores()
    defer { TestSupport.remove(folder) }
    let bank = try BankWorkload(store: writer, seed: 23)
    let (info, _) = bank.banks.min { $0.key < $1.key }!
    let box = WriterBox(writer)
    let committed = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      usleep(100_000)
      _ = try? box.store.commit([.update(entity: "FailedBankInfo", id: info, values: ["name": .string("Woken")])])
      committed.signal()
    }
    // Without the bell the wait would last its full 30 s; with it, the 100 ms the committer
    // sleeps plus one commit. The 10 s bound leaves a machine 50 times slower than this one
    // room, and a broken bell cannot pass it.
    let t0 = Date()
    #expect(try reader.waitForChanges(timeout: 30) == 1)
    #expect(Date().timeIntervalSince(t0) < 10)
    committed.wait()
  }
}

final class WriterBox: @unchecked Sendable {
  let store: SQLiteStore
  init(_ s: SQLiteStore) { store = s }
}

/// The in-memory store drops deleted rows once they are a quarter of a table: a tracked
/// controller, the joins and the values stay right across the compaction.
@Suite struct MemoryCompaction {
  @Test func resultsStayRightAcrossACompaction() throws {
    let store = try EngineFixture.shared.store(.banks, "memory") as! MemoryStore
    let controller = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: store)
    let recorder = Recorder()
    controller.delegate = recorder
    try controller.performFetch()
    var mirror = controller.snapshot()
    let old = try BankWorkload(store: store, seed: 31).banks
    // Insert as many banks as there are, then delete the old ones in batches: the tables
    // reach 50% dead rows and compact.
    var ops: [WriteOperation] = []
    for n in 0..<Int64(old.count) {
      let id = 20_000_000 + n
      ops.append(
        .insert(
          entity: "FailedBankInfo",
          values: ["id": .integer(id), "name": .string("N\(n)"), "city": .string("C"), "state": .string("TX")]))
      ops.append(
        .insert(
          entity: "FailedBankDetails",
          values: [
            "id": .integer(id), "infoID": .integer(id), "closeDate": .date(Double(600_000_000 + n * 86_400)),
            "updatedDate": .date(0), "zip": .string("0"), "cert": .integer(n), "acquiringInstitution": .string("A"),
            "fund": .integer(1),
          ]))
    }
    try store.commit(ops)
    let victims = old.sorted { $0.key < $1.key }
    for start in stride(from: 0, to: victims.count, by: 500) {
      try store.commit(
        victims[start..<min(victims.count, start + 500)].flatMap { info, details in
          [
            WriteOperation.delete(entity: "FailedBankDetails", id: details),
            .delete(entity: "FailedBankInfo", id: info),
          ]
        })
    }
    for c in recorder.changes { mirror = try BatchUpdateValidator.apply(c, to: mirror) }
    #expect(store.rowCount("FailedBankInfo") == old.count)
    let fresh = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: .banks), store: store)
    try fresh.performFetch()
    let ids = fresh.snapshot().allIDs
    #expect(
      ids == (0..<Int64(old.count)).reversed().map { 20_000_000 + $0 },
      "the join on details.closeDate sorts the new rows")
    #expect(mirror.sameRows(as: fresh.snapshot()) && controller.snapshot().sameRows(as: fresh.snapshot()))
    let first = try fresh.object(atGlobalIndex: 0)
    #expect(first["name"] == .string("N\(old.count - 1)") && first["details.cert"] == .integer(Int64(old.count - 1)))
  }
}
