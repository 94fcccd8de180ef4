import Catalog
import DatasetStores
import Datasets
import FetchedResults
import Foundation
import Testing
import Vocabulary

/// Core Data's change rules (`ChangeRules.coreData`) beside the minimal ones: a move for every
/// object whose sort key changed, an update otherwise, related objects not followed.
@Suite struct CoreDataRules {
  /// Rows of `shown` out of place against `fresh`, recounted without the engine's diff: the
  /// rows on one side only, plus the common rows outside a longest common subsequence of the
  /// two orders (quadratic dynamic programming).
  static func recount(_ shown: ListSnapshot, _ fresh: ListSnapshot) -> Int {
    let (a, b) = (shown.allIDs, fresh.allIDs)
    let common = Set(a).intersection(b)
    let (x, y) = (a.filter(common.contains), b.filter(common.contains))
    var row = [Int](repeating: 0, count: y.count + 1)
    for i in 0..<x.count {
      var diagonal = 0
      for j in 0..<y.count {
        let up = row[j + 1]
        row[j + 1] = x[i] == y[j] ? diagonal + 1 : max(row[j + 1], row[j])
        diagonal = up
      }
    }
    return (a.count - common.count) + (b.count - common.count) + (common.count - row[y.count])
  }

  static func configs() -> [TrackingConfig] { TrackingConfig.all.filter { $0.batchSize == 20 } }

  /// Random transactions under Core Data's rules: every change set replays under UIKit's rules
  /// to the controller's own results, and the rows those leave out of place equal a recount
  /// against a fresh fetch. A re-dated bank (a related object) is never moved, so some rows go
  /// stale; an own change that moves a row is followed.
  @Test(arguments: configs())
  func changeSetsValidateAndStaleRowsEqualARecount(config: TrackingConfig) throws {
    var staleSeen = 0
    var nonEmpty = 0
    for seed: UInt64 in 1...3 {
      let store = try writableStore(config.store)
      var writer = try BankWorkload(store: store, seed: seed)
      let controller = FetchedResultsController(fetchRequest: config.request(), store: store)
      controller.changeRules = .coreData
      let recorder = Recorder()
      controller.delegate = recorder
      try controller.performFetch()
      var mirror = controller.snapshot()
      for step in 0..<12 {
        recorder.changes = []
        try store.commit(writer.randomTransaction(big: step % 4 == 3).ops)
        #expect(controller.lastTrackingError == nil && controller.trackingStats.refetches == 0)
        if let c = recorder.changes.first {
          nonEmpty += 1
          #expect(!c.moves.contains { $0.from == $0.to })
          mirror = try BatchUpdateValidator.apply(c, to: mirror)
        }
        #expect(mirror.sameRows(as: controller.snapshot()), "seed \(seed) step \(step)")
        #expect(controller.list!.invariantViolations() == [])
        let fresh = FetchedResultsController(fetchRequest: config.request(), store: store)
        try fresh.performFetch()
        let stale = ListDiff.staleRows(controller.snapshot(), against: fresh.snapshot())
        #expect(stale == Self.recount(controller.snapshot(), fresh.snapshot()), "seed \(seed) step \(step)")
        staleSeen = max(staleSeen, stale)
      }
    }
    #expect(nonEmpty > 0)
    #expect(staleSeen > 0, "re-dated banks were left out of place")
  }

  /// Exact change sets: a re-dated bank moves under the minimal rules and is not reported
  /// under Core Data's (one stale row); a bank renamed in place, in a list sorted by name, is a
  /// reload under the minimal rules and a move (written as delete + insert, its paths being
  /// equal) under Core Data's.
  @Test(arguments: trackedStores)
  func coreDataMovesWhatChangedItsKeyAndIgnoresRelatedObjects(store type: StoreKind) throws {
    let store = try writableStore(type)
    func controller(_ request: FetchRequest, _ rules: ChangeRules) throws -> (FetchedResultsController, Recorder) {
      let c = FetchedResultsController(fetchRequest: request, store: store)
      c.changeRules = rules
      let r = Recorder()
      c.delegate = r
      try c.performFetch()
      return (c, r)
    }
    let byDate = DatasetModels.defaultRequest(for: .banks, batchSize: 20)
    let byName = FetchRequest(
      entityName: "FailedBankInfo", sortDescriptors: [SortDescriptor("name")], fetchBatchSize: 20)
    let (minimalDate, minimalDateChanges) = try controller(byDate, .minimal)
    let (coreDate, coreDateChanges) = try controller(byDate, .coreData)
    let (minimalName, minimalNameChanges) = try controller(byName, .minimal)
    let (coreName, coreNameChanges) = try controller(byName, .coreData)
    let ids = minimalDate.fetchedIDs
    let writer = try BankWorkload(store: store, seed: 3)
    try store.commit([
      .update(entity: "FailedBankDetails", id: writer.banks[ids[0]]!, values: ["closeDate": .date(-2_000_000_000)])
    ])
    #expect(minimalDateChanges.changes.map(\.moves.count) == [1])
    #expect(coreDateChanges.changes.isEmpty, "a related object's change is not observed")
    let fresh = FetchedResultsController(fetchRequest: byDate, store: store)
    try fresh.performFetch()
    #expect(ListDiff.staleRows(coreDate.snapshot(), against: fresh.snapshot()) == 1)
    #expect(ListDiff.staleRows(minimalDate.snapshot(), against: fresh.snapshot()) == 0)

    let names = coreName.fetchedIDs
    func name(_ i: Int) throws -> String { try #require(coreName.object(atGlobalIndex: i)["name"]?.stringValue) }
    // A bank whose name with a space appended still sorts before the next one's.
    var i = names.count / 2
    while try !(name(i) + " " < name(i + 1)) { i += 1 }
    let (target, name) = (names[i], try name(i))
    try store.commit([.update(entity: "FailedBankInfo", id: target, values: ["name": .string(name + " ")])])
    let path = try #require(coreName.indexPath(for: target))
    let minimal = try #require(minimalNameChanges.changes.last)
    #expect(minimal.reloads == [ChangeSet.Row(path, id: target)] && minimal.size == 1)
    let core = try #require(coreNameChanges.changes.last)
    #expect(core.deletes == [ChangeSet.Row(path, id: target)] && core.inserts == [ChangeSet.Row(path, id: target)])
    #expect(core.moves.isEmpty && core.reloads.isEmpty)
    #expect(coreName.fetchedIDs == names && minimalName.fetchedIDs == names)
  }
}
