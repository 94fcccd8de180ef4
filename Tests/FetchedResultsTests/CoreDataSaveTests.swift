import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import GRDB
import SQLQueries
import SQLiteStore
import TestSupport
import Testing

/// The tracking fixture's banks in Core Data's schema, written once.
final class CoreDataFixture: Sendable {
  static let shared = CoreDataFixture()
  let location = DatasetLocation(kind: .banks, rows: 600, seed: 8, directory: TrackingFixture.shared.folder)
  let path: String
  let model: Model
  init() {
    path = try! CoreDataFile.write(from: location)
    model = try! CoreDataFile.open(location).kind.definition.model
  }

  /// A store over a private copy of the file, and the banks' transactions in its terms.
  func writableStore() throws -> (SQLiteStore, CoreDataFile.Writes) {
    let copy = TestSupport.temporaryFolder("coredata-write") + "/db.sqlite"
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    return (try SQLiteStore(path: copy, model: model), CoreDataFile.Writes(.banks, into: model))
  }

  func kind() throws -> DatasetKind { try CoreDataFile.open(location).kind }
}

/// Writes to a Core Data file as Core Data's save writes them (`CoreDataSave`,
/// `CoreDataFile.Writes`), and change tracking on that file.
@Suite struct CoreDataSaves {
  /// One save: new rows carry `Z_ENT`, `Z_OPT` 1 and both sides of the one-to-one; an update
  /// raises `Z_OPT` by one; a date counts from 2001; `Z_MAX` is raised to the new key; the
  /// statements are exactly the reads and writes counted.
  @Test func aSaveKeepsCoreDatasBookkeeping() throws {
    let (store, writes) = try CoreDataFixture.shared.writableStore()
    let banks = try BankWorkload.banks(of: store, infoKey: writes.attributeName("infoID", of: "FailedBankDetails"))
    #expect(writes.attributeName("infoID", of: "FailedBankDetails") == "info")
    let (updated, deleted) = (banks.keys.sorted()[3], banks.keys.sorted()[5])
    let ops: [WriteOperation] = [
      .insert(
        entity: "FailedBankInfo",
        values: ["id": .integer(9_001), "name": .string("New"), "city": .string("Austin"), "state": .string("TX")]),
      .insert(
        entity: "FailedBankDetails",
        values: ["id": .integer(9_001), "infoID": .integer(9_001), "closeDate": .date(1_000_000_000)]),
      .update(entity: "FailedBankDetails", id: banks[updated]!, values: ["closeDate": .date(1_100_000_000)]),
      .delete(entity: "FailedBankDetails", id: banks[deleted]!),
      .delete(entity: "FailedBankInfo", id: deleted),
    ]
    let translated = writes.operations(ops)
    #expect(
      translated[0]
        == .insert(
          entity: "FailedBankInfo",
          values: [
            "id": .integer(9_001), "name": .string("New"), "city": .string("Austin"), "state": .string("TX"),
            "details": .integer(9_001),
          ]))
    #expect(
      translated[1]
        == .insert(
          entity: "FailedBankDetails",
          values: ["id": .integer(9_001), "info": .integer(9_001), "closedate": .date(1_000_000_000 - 978_307_200)]))
    #expect(translated.count == 5)
    store.resetCounters()
    try store.commit(translated)
    // The key allocation first (per entity: the counter read, then raised), then 2 inserts,
    // an update and 2 deletes each after the read of the row: two commits.
    #expect(store.counters.queries == 12)
    #expect(store.counters.commits == 2)
    store.resetCounters()
    try store.commit(writes.operations([.update(entity: "FailedBankInfo", id: updated, values: ["name": .string("B")])]))
    #expect(store.counters.commits == 1, "a save without inserts allocates no key")
    let db = try DatabaseQueue(path: store.path)
    try db.read { db in
      let info = try #require(
        try Row.fetchOne(db, sql: "SELECT Z_ENT, Z_OPT, ZDETAILS FROM ZFAILEDBANKINFO WHERE Z_PK = 9001"))
      #expect(info[0] as Int == 1 && info[1] as Int == 1 && info[2] as Int == 9_001)
      let details = try #require(
        try Row.fetchOne(db, sql: "SELECT Z_ENT, Z_OPT, ZINFO, ZCLOSEDATE FROM ZFAILEDBANKDETAILS WHERE Z_PK = 9001"))
      #expect(details[0] as Int == 2 && details[1] as Int == 1 && details[2] as Int == 9_001)
      #expect(details[3] as Double == 1_000_000_000 - 978_307_200)
      let version = try Int.fetchOne(
        db, sql: "SELECT Z_OPT FROM ZFAILEDBANKDETAILS WHERE Z_PK = ?", arguments: [banks[updated]!])
      #expect(version == 2)
      #expect(
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ZFAILEDBANKINFO WHERE Z_PK = ?", arguments: [deleted]) == 0)
      #expect(try Int.fetchAll(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [9_001, 9_001])
    }
    try db.close()
  }

  /// The keys are allocated in a transaction of their own, before the rows': a save whose rows
  /// fail (a key taken twice) leaves `Z_MAX` raised and no row written, as Core Data's does.
  @Test func theKeysAreAllocatedBeforeTheRowsTransaction() throws {
    let (store, _) = try CoreDataFixture.shared.writableStore()
    let db = try DatabaseQueue(path: store.path)
    let (before, taken) = try db.read { db in
      (
        try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1") ?? 0,
        try Int64.fetchOne(db, sql: "SELECT min(Z_PK) FROM ZFAILEDBANKINFO") ?? 0
      )
    }
    try db.close()
    #expect(throws: (any Error).self) {
      try store.commit([
        .insert(entity: "FailedBankInfo", values: ["id": .integer(before + 500), "name": .string("New")]),
        .insert(entity: "FailedBankInfo", values: ["id": .integer(taken), "name": .string("Twice")]),
      ])
    }
    let after = try DatabaseQueue(path: store.path)
    try after.read { db in
      let raised = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1")
      let written = try Int.fetchOne(
        db, sql: "SELECT count(*) FROM ZFAILEDBANKINFO WHERE Z_PK = ?", arguments: [before + 500])
      #expect(raised == before + 500 && written == 0, "Z_MAX \(raised ?? -1), rows \(written ?? -1)")
    }
    try after.close()
  }

  /// With persistent history on, each save adds one transaction row and one change row per
  /// object it changed (an object inserted and deleted in one save is none), in the save's own
  /// transaction; the raw writer writes the same.
  @Test func historyTrackingRecordsATransactionAndAChangePerObject() throws {
    let (store, writes) = try CoreDataFixture.shared.writableStore()
    let banks = try BankWorkload.banks(of: store, infoKey: writes.attributeName("infoID", of: "FailedBankDetails"))
    let updated = banks.keys.sorted()[2]
    try store.trackHistory()
    let name = { (n: String) in ["name": Value.string(n), "city": .string("Austin"), "state": .string("TX")] }
    try store.commit(
      writes.operations([
        .insert(entity: "FailedBankInfo", values: ["id": .integer(9_101)].merging(name("A")) { a, _ in a }),
        .insert(entity: "FailedBankInfo", values: ["id": .integer(9_102)].merging(name("B")) { a, _ in a }),
        .update(entity: "FailedBankInfo", id: updated, values: ["name": .string("Renamed")]),
      ]))
    try store.commit(
      writes.operations([
        .insert(entity: "FailedBankInfo", values: ["id": .integer(9_103)].merging(name("C")) { a, _ in a }),
        .delete(entity: "FailedBankInfo", id: 9_103), .delete(entity: "FailedBankInfo", id: 9_101),
      ]))
    // The raw writer appends to the change log, as the load test's writers do.
    try store.enableChangeLog()
    let raw = try SQLiteRawWriter(path: store.path, model: store.model, save: try store.coreDataSave(), historyTracking: true)
    try raw.commit(
      writes.operations([.update(entity: "FailedBankInfo", id: 9_102, values: ["name": .string("Raw")])]), payload: "")
    let db = try DatabaseQueue(path: store.path)
    try db.read { db in
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ATRANSACTION") == 3)
      let rows = try Row.fetchAll(
        db, sql: "SELECT ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK FROM ACHANGE ORDER BY Z_PK")
      let changes = rows.map { [$0[0] as Int64, $0[1] as Int64, $0[2] as Int64, $0[3] as Int64] }
      #expect(
        changes == [[1, 0, 1, 9_101], [1, 0, 1, 9_102], [1, 1, 1, updated], [2, 2, 1, 9_101], [3, 1, 1, 9_102]],
        "\(changes)")
      #expect(try String.fetchAll(db, sql: "SELECT ZNAME FROM ATRANSACTIONSTRING") == ["fetchbench"])
    }
    try db.close()
    // A file that is not Core Data's has no history to keep.
    let plain = try SQLiteStore(path: EngineFixture.shared.path(.banks), model: DatasetModels.banks, mode: .immutable)
    #expect(throws: FetchError.self) { try plain.trackHistory() }
  }

  /// The statements' shapes, as Core Data's SQL debug log shows them, and the raw writer's
  /// form, which reads no version first.
  @Test func theStatementsAreCoreDatas() throws {
    let model = CoreDataFixture.shared.model
    let save = CoreDataSave(entityNumbers: ["FailedBankInfo": 1, "FailedBankDetails": 2])
    let update = try save.statement(
      .update(entity: "FailedBankDetails", id: 7, values: ["closedate": .date(5)]), model: model, version: 3)
    #expect(update.sql == "UPDATE ZFAILEDBANKDETAILS SET ZCLOSEDATE = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?")
    #expect(update.arguments == [.date(5), .integer(4), .integer(7), .integer(3)])
    let delete = try save.statement(.delete(entity: "FailedBankInfo", id: 7), model: model, version: 3)
    #expect(
      delete.sql == "DELETE FROM ZFAILEDBANKINFO WHERE Z_PK = ? AND Z_OPT = ?"
        && delete.arguments == [.integer(7), .integer(3)])
    let insert = try save.statement(
      .insert(entity: "FailedBankInfo", values: ["id": .integer(8), "name": .string("N")]), model: model, version: nil)
    #expect(insert.sql == "INSERT INTO ZFAILEDBANKINFO (Z_ENT, Z_OPT, Z_PK, ZNAME) VALUES (?, ?, ?, ?)")
    #expect(insert.arguments == [.integer(1), .integer(1), .integer(8), .string("N")])
    let raw = try save.statement(
      .update(entity: "FailedBankInfo", id: 7, values: ["name": .string("M")]), model: model, version: nil)
    #expect(raw.sql == "UPDATE ZFAILEDBANKINFO SET ZNAME = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
    let largest = save.largestInsertedKeys([
      .insert(entity: "FailedBankDetails", values: ["id": .integer(12)]),
      .insert(entity: "FailedBankInfo", values: ["id": .integer(11)]),
      .insert(entity: "FailedBankInfo", values: ["id": .integer(10)]),
    ])
    #expect(largest.map(\.entity) == [1, 2] && largest.map(\.key) == [11, 12])
    #expect(CoreDataSave.maxQuery(2).sql == "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
    let raise = CoreDataSave.raise(2, from: 9, to: 12)
    #expect(raise.sql == "UPDATE OR FAIL Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX = ?")
    #expect(raise.arguments == [.integer(12), .integer(2), .integer(9)])

    // The raw writer keeps the same bookkeeping on the file.
    let (store, writes) = try CoreDataFixture.shared.writableStore()
    try store.enableChangeLog()
    let save2 = try #require(try store.coreDataSave())
    #expect(save2 == save)
    let id = try BankWorkload.banks(of: store, infoKey: "info").keys.sorted()[0]
    let writer = try SQLiteRawWriter(path: store.path, model: store.model, save: save2)
    try writer.commit(
      writes.operations([.update(entity: "FailedBankInfo", id: id, values: ["name": .string("Raw")])]), payload: "")
    let db = try DatabaseQueue(path: store.path)
    #expect(
      try db.read { try Int.fetchOne($0, sql: "SELECT Z_OPT FROM ZFAILEDBANKINFO WHERE Z_PK = ?", arguments: [id]) }
        == 2)
    try db.close()
  }

  /// Random transactions on the Core Data file, whose list rows hold the key to their details
  /// (`ZDETAILS`): every change set passes UIKit's rules and equals a fresh fetch, with no
  /// refetch, deleted details included.
  @Test(arguments: [false, true], [0, 20])
  func changeTrackingOnTheCoreDataFileEqualsAFreshFetch(sections: Bool, batchSize: Int) throws {
    let kind = try CoreDataFixture.shared.kind()
    let request =
      sections
      ? kind.definition.sectionedRequest(batchSize: batchSize) : kind.definition.defaultRequest(batchSize: batchSize)
    var checked = 0
    for seed in UInt64(1)...4 {
      let (store, writes) = try CoreDataFixture.shared.writableStore()
      var writer = BankWorkload(
        banks: try BankWorkload.banks(of: store, infoKey: "info"), seed: seed, firstID: 50_000_000, idStep: 1)
      let controller = FetchedResultsController(fetchRequest: request, store: store)
      let recorder = Recorder()
      controller.delegate = recorder
      try controller.performFetch()
      var mirror = controller.snapshot()
      let random = (0..<30).map { step in writes.operations(writer.randomTransaction(big: step % 8 == 7).ops) }
      // Then details deleted alone: their bank's key is left naming a row that is gone.
      let alone = writer.banks.keys.sorted().prefix(3).map {
        [WriteOperation.delete(entity: "FailedBankDetails", id: writer.banks[$0]!)]
      }
      for (step, ops) in (random + alone).enumerated() {
        recorder.changes = []
        try store.commit(ops)
        if let c = recorder.changes.first { mirror = try BatchUpdateValidator.apply(c, to: mirror) }
        let fresh = FetchedResultsController(fetchRequest: request, store: store)
        try fresh.performFetch()
        #expect(mirror.sameRows(as: fresh.snapshot()), "seed \(seed) step \(step)")
        checked += 1
      }
      #expect(controller.trackingStats.refetches == 0)
    }
    #expect(checked == 4 * 33)
  }
}
