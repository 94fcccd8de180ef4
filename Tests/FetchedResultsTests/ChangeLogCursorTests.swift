import FetchedResults
import SQLQueries
import Testing

/// The change-log reader both SQL stores use, without a server: order, gaps, repeats and bad
/// payloads, each with the state the cursor keeps afterwards.
@Suite struct ChangeLogCursorTests {
  static func payload(_ id: Int64) -> String {
    var c = EntityChanges(entity: "FailedBankInfo")
    c.inserted = [id]
    c.updated = [id + 1: ["name", "state"]]
    c.deleted = [id + 2]
    c.oldValues = [id + 1: ["name": .string("Old, \"quoted\"\n"), "state": .null], id + 2: ["closeDate": .date(-0.5)]]
    c.links = [id: ["detailsID": .integer(id)], id + 2: ["detailsID": .integer(-1)]]
    return TransactionCodec.encode([c])
  }

  @Test func deliversTheRowsThatFollowInOrder() throws {
    var cursor = ChangeLogCursor(after: 7)
    for seq in 8...10 {
      let t = try cursor.next(sequence: seq, payload: Self.payload(Int64(seq)))
      #expect(t.sequence == seq)
      #expect(t.changes == (try TransactionCodec.decode(Self.payload(Int64(seq)))))
      #expect(t.changes[0].oldValues[Int64(seq) + 1]?["name"] == .string("Old, \"quoted\"\n"))
      #expect(cursor.delivered == seq)
    }
  }

  @Test func aGapIsAnErrorAndTheCursorStays() throws {
    var cursor = ChangeLogCursor(after: 2)
    #expect(throws: ChangeLogCursor.Gap(delivered: 2, found: 4)) {
      try cursor.next(sequence: 4, payload: Self.payload(4))
    }
    #expect(cursor.delivered == 2)
    #expect(ChangeLogCursor.Gap(delivered: 2, found: 4).description == "change log sequence jumps from 2 to 4")
    // The missing row arriving later is accepted: nothing was skipped.
    #expect(try cursor.next(sequence: 3, payload: Self.payload(3)).sequence == 3)
    #expect(cursor.delivered == 3)
  }

  @Test func aRowReadTwiceIsAnError() throws {
    var cursor = ChangeLogCursor(after: 0)
    _ = try cursor.next(sequence: 1, payload: Self.payload(1))
    #expect(throws: ChangeLogCursor.Gap(delivered: 1, found: 1)) {
      try cursor.next(sequence: 1, payload: Self.payload(1))
    }
    #expect(cursor.delivered == 1)
  }

  @Test func aPayloadThatDoesNotDecodeIsAnErrorAndTheCursorStays() throws {
    var cursor = ChangeLogCursor(after: 5)
    #expect(throws: (any Error).self) { try cursor.next(sequence: 6, payload: "i1;s9:Failed") }
    #expect(cursor.delivered == 5)
  }

  @Test func theStatementsNameTheLogAndTheDialectsParameter() {
    #expect(ChangeLogSQL.poll(.sqlite) == "SELECT seq, payload FROM fetchbench_changes WHERE seq > ? ORDER BY seq")
    #expect(ChangeLogSQL.poll(.postgres) == "SELECT seq, payload FROM fetchbench_changes WHERE seq > $1 ORDER BY seq")
  }
}
