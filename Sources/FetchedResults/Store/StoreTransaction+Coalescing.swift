extension StoreTransaction {
  /// Several transactions as one, for an observer that fell behind: applying the result is
  /// applying them in order, because change tracking reads the affected objects' current
  /// state. Inserted-then-deleted objects stay in both lists (tracking finds them in
  /// neither the old list nor the store, so they cost nothing); the first old values of an
  /// object win (its state before the first transaction), the last links win, and both are
  /// kept for objects deleted along the way. The sequence is the last one's. O(total size).
  public static func coalescing(_ transactions: [StoreTransaction]) -> StoreTransaction {
    guard let last = transactions.last else { return StoreTransaction(sequence: 0, changes: []) }
    var merged: [EntityChanges] = []
    var index: [String: Int] = [:]
    for t in transactions {
      for c in t.changes {
        guard let i = index[c.entity] else {
          index[c.entity] = merged.count
          merged.append(c)
          continue
        }
        merged[i].inserted += c.inserted
        merged[i].deleted += c.deleted
        merged[i].updated.merge(c.updated) { $0.union($1) }
        merged[i].oldValues.merge(c.oldValues) { first, later in first.merging(later) { a, _ in a } }
        merged[i].links.merge(c.links) { earlier, later in earlier.merging(later) { _, b in b } }
      }
    }
    return StoreTransaction(sequence: last.sequence, changes: merged)
  }
}
