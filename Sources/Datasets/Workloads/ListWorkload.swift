import FetchedResults

/// Seeded transactions on any list entity (a user's own database): the diff benchmark's
/// workload where the banks' own does not apply. Each operation updates one or two of a row's
/// attributes to values other rows hold (so sort keys move and tie), deletes a row, or
/// inserts a copy of another row's values under a new ID; foreign keys are copied, never
/// invented, so relationships stay valid. A row is changed at most once per transaction.
public struct ListWorkload: Sendable {
  let entity: Entity
  /// The attributes a write may set: the entity's own, not its foreign keys nor those the
  /// store computes.
  let updatable: [Attribute]
  var rng: SeededRandom
  var live: [Int64]
  /// Each attribute's values as the rows held them when the workload began.
  let pools: [String: [Value]]
  let rowsSeen: [[String: Value]]
  var nextID: Int64

  /// Reads every row of `entity` from `store` once. O(rows × attributes).
  public init(store: any Store, entity name: String, seed: UInt64) throws {
    rng = SeededRandom(seed: seed)
    let entity = try store.model.entity(name)
    self.entity = entity
    let request = try FetchRequest(entityName: name).resolve(in: store.model)
    // Nor what tells the entity's rows apart in a shared table (Core Data's Z_ENT): a row
    // keeps its entity, and an insert copies it from a row of the entity.
    // The request of the whole entity has no predicate but that.
    let fixed = Set(
      store.model.linkAttributes(of: entity).map(\.name) + (request.predicate?.keyPaths ?? []).map(\.attribute.name))
    updatable = entity.attributes.filter { !fixed.contains($0.name) && !$0.isDerived }
    let objects = try store.fetchObjects(request)
    live = objects.map(\.id)
    rowsSeen = objects.map { o in
      Dictionary(uniqueKeysWithValues: entity.attributes.compactMap { a in o[a.name].map { (a.name, $0) } })
    }
    var pools: [String: [Value]] = [:]
    for a in entity.attributes { pools[a.name] = objects.compactMap { $0[a.name] } }
    self.pools = pools
    nextID = (live.max() ?? 0) + 1_000_000
  }

  /// `k` operations: 60 % updates, 20 % deletes, 20 % inserts (deletes become inserts while
  /// fewer than four rows are left). O(k).
  public mutating func mixed(_ k: Int) -> [WriteOperation] {
    var ops: [WriteOperation] = []
    var changed = Set<Int64>()
    for _ in 0..<k {
      let roll = rng.below(10)
      if roll < 6, let at = pick(avoiding: changed) {
        changed.insert(live[at])
        ops.append(update(live[at]))
      } else if roll < 8, live.count > 4, let at = pick(avoiding: changed) {
        let id = live[at]
        changed.insert(id)
        // Order does not matter to a uniform pick: O(1) instead of a search.
        live.swapAt(at, live.count - 1)
        live.removeLast()
        ops.append(.delete(entity: entity.name, id: id))
      } else {
        ops.append(insert())
      }
    }
    return ops
  }

  /// Follows what `transaction` deleted beyond this workload's own deletes (a model's delete
  /// rules cascade to rows of the entity), so that no later operation names a row that is
  /// gone. O(live) when the transaction deleted rows of the entity, else O(1).
  public mutating func committed(_ transaction: StoreTransaction) {
    guard let deleted = transaction.changes(for: entity.name)?.deleted, !deleted.isEmpty else { return }
    let gone = Set(deleted)
    live.removeAll { gone.contains($0) }
  }

  /// A tenth of `n` rows changed as `mixed` changes them.
  public mutating func edit(tenPercentOf n: Int) -> [WriteOperation] { mixed(max(1, n / 10)) }

  /// The index in `live` of a row not yet changed in this transaction. O(1).
  mutating func pick(avoiding changed: Set<Int64>) -> Int? {
    guard !live.isEmpty else { return nil }
    for _ in 0..<8 {
      let at = Int(rng.below(UInt64(live.count)))
      if !changed.contains(live[at]) { return at }
    }
    return nil
  }

  mutating func update(_ id: Int64) -> WriteOperation {
    var values: [String: Value] = [:]
    for _ in 0..<(1 + Int(rng.below(2))) where !updatable.isEmpty {
      let a = updatable[Int(rng.below(UInt64(updatable.count)))]
      if let pool = pools[a.name], !pool.isEmpty { values[a.name] = pool[Int(rng.below(UInt64(pool.count)))] }
    }
    return .update(entity: entity.name, id: id, values: values)
  }

  mutating func insert() -> WriteOperation {
    var values = rowsSeen.isEmpty ? [:] : rowsSeen[Int(rng.below(UInt64(rowsSeen.count)))]
    for a in entity.attributes where a.isDerived { values[a.name] = nil }
    values["id"] = .integer(nextID)
    live.append(nextID)
    nextID += 1
    return .insert(entity: entity.name, values: values)
  }
}
