import Catalog
import Datasets
import FetchedResults
import Foundation
import PostgresStore
import SQLQueries
import SQLiteStore
import TestSupport
import Testing
import Vocabulary

/// The stores' own write limit's path (`fetchbench load --find-max-rate`): `WriteSQL`'s one
/// statement per row, and the raw writers that commit it through the client alone leave the
/// same rows as the stores' own commits, with one change-log row per transaction, and nothing
/// of a transaction that fails.
@Suite struct RawWrites {
  @Test func oneStatementPerRowInEitherDialect() throws {
    let model = DatasetModels.banks
    let update = try WriteSQL.statement(
      .update(entity: "FailedBankDetails", id: 7, values: ["closeDate": .date(5), "zip": .string("1")]), model: model,
      dialect: .sqlite)
    #expect(update.sql == "UPDATE failed_bank_details SET close_date = ?, zip = ? WHERE id = ?")
    #expect(update.arguments == [.date(5), .string("1"), .integer(7)])
    let insert = try WriteSQL.statement(
      .insert(entity: "FailedBankInfo", values: ["state": .string("TX"), "id": .integer(9), "name": .string("A")]),
      model: model,
      dialect: .postgres)
    #expect(insert.sql == "INSERT INTO failed_bank_info (id,name,state) VALUES ($1,$2,$3)")
    #expect(insert.arguments == [.integer(9), .string("A"), .string("TX")])
    let delete = try WriteSQL.statement(.delete(entity: "FailedBankInfo", id: 3), model: model, dialect: .postgres)
    #expect(delete.sql == "DELETE FROM failed_bank_info WHERE id = $1" && delete.arguments == [.integer(3)])
    #expect(throws: FetchError.self) {
      try WriteSQL.statement(
        .update(entity: "FailedBankInfo", id: 1, values: ["nope": .null]), model: model, dialect: .sqlite)
    }
    #expect(
      WriteSQL.payload([
        .delete(entity: "FailedBankInfo", id: 3), .update(entity: "FailedBankDetails", id: 4, values: ["zip": .null]),
      ])
        == "D FailedBankInfo 3\nU FailedBankDetails 4 zip")
  }

  /// Every row of both tables, by ID.
  static func rows(_ store: any Store) throws -> [[Value]] {
    try ["FailedBankInfo", "FailedBankDetails"].flatMap { name in
      var request = FetchRequest(entityName: name)
      request.sortDescriptors = [SortDescriptor("id")]
      return try store.fetchObjects(try request.resolve(in: store.model)).map { [.integer($0.id)] + $0.values }
    }
  }

  /// Twenty seeded transactions, each through `raw` on one copy and the store's commit on
  /// another: the same rows after them, and one log row each.
  static func expectSameRows(
    raw: any Store, own: any Store, commit: ([WriteOperation]) throws -> Void, logRows: () throws -> Int
  ) throws {
    var workload = try BankWorkload(store: own, seed: 31)
    for k in 1...20 {
      let ops = workload.mixed(k)
      try commit(ops)
      try own.commit(ops)
    }
    #expect(try rows(raw) == rows(own))
    #expect(try logRows() == 20)
  }

  @Test func sqlitesRawWriterLeavesTheStoresRows() throws {
    let raw = try writableStore(.sqlite) as! SQLiteStore
    let own = try writableStore(.sqlite) as! SQLiteStore
    try raw.enableChangeLog()
    let writer = try SQLiteRawWriter(path: raw.path, model: raw.model)
    try Self.expectSameRows(raw: raw, own: own, commit: { try writer.commit($0, payload: WriteSQL.payload($0)) }) {
      let reader = try SQLiteStore(path: raw.path, model: raw.model)
      try reader.enableChangeLog()
      return reader.deliveredSequence
    }
    // A failing statement (a second row with an ID in use) rolls the transaction back.
    let before = try Self.rows(raw)
    #expect(throws: SQLiteStoreError.self) {
      try writer.commit(
        [
          .delete(entity: "FailedBankDetails", id: 1),
          .insert(entity: "FailedBankInfo", values: ["id": .integer(2), "name": .string("twice")]),
        ], payload: "x")
    }
    #expect(try Self.rows(raw) == before)
  }

  @Test func postgresRawCommitLeavesTheStoresRows() throws {
    try EngineFixture.shared.requirePostgres()
    let raw = try writableStore(.postgres) as! PostgresStore
    let own = try writableStore(.postgres) as! PostgresStore
    try Self.expectSameRows(raw: raw, own: own, commit: { try raw.rawCommit($0, payload: WriteSQL.payload($0)) }) {
      Int(try raw.scalarText("SELECT count(*)::text FROM \(PostgresStore.changeLog)") ?? "") ?? -1
    }
    let before = try Self.rows(raw)
    #expect(throws: PostgresStoreError.self) {
      try raw.rawCommit(
        [
          .delete(entity: "FailedBankDetails", id: 1),
          .insert(entity: "FailedBankInfo", values: ["id": .integer(2), "name": .string("twice")]),
        ], payload: "x")
    }
    #expect(try Self.rows(raw) == before)
    #expect(
      try raw.scalarText("SELECT count(*)::text FROM \(PostgresStore.changeLog)") == "20",
      "nothing logged of the failed one")
    try raw.ping()
  }
}
