import DatasetStores
import Datasets
import FetchedResults
import Foundation
import GRDB
import SQLiteStore
import Testing
import Vocabulary

/// `SQLiteStore.dataVersion`, which validates the section cache: it changes with every commit,
/// however close together, and with a checkpoint, and only then.
@Suite struct DataVersion {
  @Test func everyCommitAndCheckpointGivesANewVersion() throws {
    let store = try writableStore(.sqlite) as! SQLiteStore
    var writer = try BankWorkload(store: store, seed: 4)
    var seen = [try #require(store.dataVersion)]
    #expect(store.dataVersion == seen[0], "nothing written, the same version")
    for step in 0..<12 {
      if step == 6 {
        let other = try DatabaseQueue(path: store.path)
        try other.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try other.close()
      } else {
        try store.commit(writer.randomTransaction(big: false).ops)
      }
      let version = try #require(store.dataVersion)
      #expect(!seen.contains(version), "step \(step): a version seen before")
      seen.append(version)
      #expect(store.dataVersion == version, "read twice, the same")
    }
  }
}
