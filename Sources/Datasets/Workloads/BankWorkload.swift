import FetchedResults

/// Seeded transactions on the banks tables: the write workload of the diff benchmark, the
/// load test and the gate (`mixed`, `edit`), and of the engine's property tests
/// (`randomTransaction`).
///
/// The workload never runs dry. An operation that changes an existing bank becomes an insert
/// when every bank of this writer is already changed in the transaction, and a delete becomes
/// an insert while the writer holds `minimumBanks` or fewer. So a writer over a one-row
/// partition keeps working, and a run of any length on a small table cannot delete its last
/// row. On a table with more banks than a transaction touches nothing is turned, so the
/// sequence (and every counter the gate keeps) does not depend on the rule.
public struct BankWorkload: Sendable {
  /// At or below this many banks, deletes become inserts.
  public static let minimumBanks = 4
  static let states = ["TX", "CA", "IL", "GA", "FL", "ZZ"]

  var rng: SeededRandom
  /// Banks not yet changed in the current transaction (and every bank between transactions).
  var infos: [Int64]
  var detailsOf: [Int64: Int64]
  var nextID: Int64 = 50_000_000
  /// New IDs are `nextID + idStep`, `+ 2·idStep`, …: writers that share a store take
  /// disjoint IDs (writer w of W starts at 50,000,000 + w and steps by W).
  var idStep: Int64 = 1
  /// Banks changed (not deleted) in the current transaction, given back at its end.
  private var touched: [(info: Int64, details: Int64)] = []

  /// A writer over the given banks only (info ID → details ID), so that writers sharing a
  /// store never touch one row from two transactions.
  public init(banks: [Int64: Int64], seed: UInt64, firstID: Int64, idStep: Int64) {
    rng = SeededRandom(seed: seed)
    detailsOf = banks
    infos = banks.keys.sorted()
    nextID = firstID
    self.idStep = idStep
  }

  /// A writer over every bank of the store. One full fetch of the details.
  public init(store: any Store, seed: UInt64) throws {
    let banks = try Self.banks(of: store)
    self.init(banks: banks, seed: seed, firstID: 50_000_000, idStep: 1)
  }

  /// Every bank of the store: info ID → details ID, read from the details' `infoKey` (its
  /// name for the bank's ID). One full fetch of the details.
  public static func banks(of store: any Store, infoKey: String = "infoID") throws -> [Int64: Int64] {
    let request = try FetchRequest(entityName: "FailedBankDetails").resolve(in: store.model)
    guard let i = request.rowLayout.index(of: infoKey) else {
      throw FetchError.unknownKeyPath(
        infoKey, entity: "FailedBankDetails", known: request.entity.attributes.map(\.name))
    }
    var out: [Int64: Int64] = [:]
    for o in try store.fetchObjects(request) {
      if case .integer(let info) = o.values[i] { out[info] = o.id }
    }
    return out
  }

  /// Banks this writer holds now, changed in this transaction or not.
  public var liveBanks: Int { infos.count + touched.count }

  /// The banks this writer holds: info ID → details ID.
  public var banks: [Int64: Int64] {
    var out = detailsOf
    for (info, details) in touched { out[info] = details }
    return out
  }

  mutating func date() -> Value { .date(Double(-1_000_000_000 + Int64(rng.below(2_700_000_000)))) }

  /// Removes and returns a random bank not yet changed in this transaction (O(1): swap with
  /// the last); nil when there is none.
  private mutating func takeRandom() -> (info: Int64, details: Int64)? {
    guard !infos.isEmpty else { return nil }
    let i = Int(rng.below(UInt64(infos.count)))
    infos.swapAt(i, infos.count - 1)
    let info = infos.removeLast()
    return (info, detailsOf.removeValue(forKey: info)!)
  }

  /// A bank to update: given back to the writer when the transaction ends.
  private mutating func takeForUpdate() -> (info: Int64, details: Int64)? {
    guard let bank = takeRandom() else { return nil }
    touched.append(bank)
    return bank
  }

  /// A bank to delete, or nil while the writer is at its floor.
  private mutating func takeForDelete() -> (info: Int64, details: Int64)? {
    liveBanks > Self.minimumBanks ? takeRandom() : nil
  }

  /// Ends a transaction: the banks it updated can be changed again.
  private mutating func endTransaction() {
    for (info, details) in touched {
      infos.append(info)
      detailsOf[info] = details
    }
    touched.removeAll(keepingCapacity: true)
  }

  mutating func insertOps() -> [WriteOperation] {
    let state = Self.states[Int(rng.below(6))]
    return insert(name: "Bank", state: state, closeDate: date())
  }

  /// A new bank and its details, under the writer's next ID.
  private mutating func insert(name: String, state: String, closeDate: Value) -> [WriteOperation] {
    nextID += idStep
    infos.append(nextID)
    detailsOf[nextID] = nextID
    return [
      .insert(
        entity: "FailedBankInfo",
        values: [
          "id": .integer(nextID), "name": .string("\(name) \(nextID)"), "city": .string("Town"),
          "state": .string(state),
        ]),
      .insert(
        entity: "FailedBankDetails",
        values: [
          "id": .integer(nextID), "infoID": .integer(nextID), "closeDate": closeDate,
          "updatedDate": .date(1_700_000_000),
          "zip": .string("00000"),
          "cert": .integer(nextID), "acquiringInstitution": .string("None"), "fund": .integer(1),
        ]),
    ]
  }

  /// k changed objects, kinds mixed: a third re-sorted, a sixth each renamed, deleted,
  /// inserted, moved to another state. O(k).
  public mutating func mixed(_ k: Int) -> [WriteOperation] {
    var ops: [WriteOperation] = []
    for j in 0..<k {
      switch j % 6 {
      case 0, 1:
        guard let (_, details) = takeForUpdate() else {
          ops += insertOps()
          continue
        }
        ops.append(.update(entity: "FailedBankDetails", id: details, values: ["closeDate": date()]))
      case 2:
        guard let (info, _) = takeForUpdate() else {
          ops += insertOps()
          continue
        }
        ops.append(
          .update(entity: "FailedBankInfo", id: info, values: ["name": .string("Renamed \(rng.below(1_000_000))")]))
      case 3:
        guard let (info, details) = takeForDelete() else {
          ops += insertOps()
          continue
        }
        ops.append(.delete(entity: "FailedBankDetails", id: details))
        ops.append(.delete(entity: "FailedBankInfo", id: info))
      case 4: ops += insertOps()
      default:
        guard let (info, _) = takeForUpdate() else {
          ops += insertOps()
          continue
        }
        ops.append(
          .update(entity: "FailedBankInfo", id: info, values: ["state": .string(Self.states[Int(rng.below(6))])]))
      }
    }
    endTransaction()
    return ops
  }

  /// A 10% edit of n rows: 10% deleted, 10% inserted, 2% re-sorted. O(n).
  public mutating func edit(tenPercentOf n: Int) -> [WriteOperation] {
    var ops: [WriteOperation] = []
    for _ in 0..<(n / 10) {
      guard let (info, details) = takeForDelete() else { break }
      ops.append(.delete(entity: "FailedBankDetails", id: details))
      ops.append(.delete(entity: "FailedBankInfo", id: info))
    }
    for _ in 0..<(n / 50) {
      guard let (_, details) = takeForUpdate() else { break }
      ops.append(.update(entity: "FailedBankDetails", id: details, values: ["closeDate": date()]))
    }
    for _ in 0..<(n / 10) { ops += insertOps() }
    endTransaction()
    return ops
  }

  /// States of the property tests' transactions: three that no generated bank has, so that
  /// sections appear and vanish.
  static let sectionStates = ["TX", "CA", "GA", "ZZ", "YY", "AA"]
  /// Close dates the property tests draw a third of the time, so that sort keys tie.
  static let tieDates: [Double] = [631_152_000, 946_684_800, 1_230_768_000, 1_262_304_000, 1_300_000_000]

  mutating func tieProneDate() -> Value {
    rng.below(3) == 0
      ? .date(Self.tieDates[Int(rng.below(UInt64(Self.tieDates.count)))])
      : .date(Double(600_000_000 + rng.below(800_000_000)))
  }

  /// A transaction for property tests: 1–5 operations (40 when `big`) of seven kinds, drawn
  /// evenly: an insert, a delete, a re-sort, a rename, a move to another section, the seeds'
  /// rename with a re-sort in one save, and an update that often changes nothing. Returns the
  /// banks whose name changed. Below 10 banks every operation is an insert. O(operations).
  public mutating func randomTransaction(big: Bool) -> (ops: [WriteOperation], renamed: Set<Int64>) {
    var ops: [WriteOperation] = []
    var renamed = Set<Int64>()
    for _ in 0..<(big ? 40 : 1 + Int(rng.below(5))) {
      let kind = rng.below(7)
      if kind == 0 || liveBanks < 10 {
        let state = Self.sectionStates[Int(rng.below(UInt64(Self.sectionStates.count)))]
        ops += insert(name: "New", state: state, closeDate: tieProneDate())
        continue
      }
      guard let (info, details) = kind == 1 ? takeForDelete() : takeForUpdate() else { continue }
      switch kind {
      case 1:
        ops.append(.delete(entity: "FailedBankDetails", id: details))
        ops.append(.delete(entity: "FailedBankInfo", id: info))
      case 2: ops.append(.update(entity: "FailedBankDetails", id: details, values: ["closeDate": tieProneDate()]))
      case 3:
        ops.append(
          .update(entity: "FailedBankInfo", id: info, values: ["name": .string("Renamed \(rng.below(1_000_000))")]))
        renamed.insert(info)
      case 4:
        let state = Self.sectionStates[Int(rng.below(UInt64(Self.sectionStates.count)))]
        ops.append(.update(entity: "FailedBankInfo", id: info, values: ["state": .string(state)]))
      case 5:
        // The seeds' case: the title and the sort key change in one save.
        ops.append(
          .update(entity: "FailedBankInfo", id: info, values: ["name": .string("Moved \(rng.below(1_000_000))")]))
        ops.append(.update(entity: "FailedBankDetails", id: details, values: ["closeDate": tieProneDate()]))
        renamed.insert(info)
      default:
        ops.append(.update(entity: "FailedBankInfo", id: info, values: ["city": .string("Town")]))  // often no change
      }
    }
    endTransaction()
    return (ops, renamed)
  }
}
