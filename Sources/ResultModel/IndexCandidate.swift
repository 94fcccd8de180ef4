import Catalog
import FetchedResults

/// An index worth trying for a request on a SQL store, and why.
package struct IndexCandidate: Sendable, Hashable {
  /// The rule that proposed it, as the report names it.
  package enum Kind: String, Sendable, CaseIterable {
    /// The first sort key (after the section key) alone: what most apps add first.
    case sortKey = "sort key"
    /// A to-one sort key's table on the join column and the sort key: the join's lookup and
    /// the sort key read from one index, without visiting the table.
    case foreignKeyAndSortKey = "foreign key + sort key"
    /// Every sort key in its direction, then the primary key, when all live in the entity's
    /// table: the index is the list's order, so the ID query needs no sort at all.
    case sortOrder = "the list's order"
    /// The section key, then the sort keys of its table that follow it.
    case sectionAndSortKey = "section key + sort key"
    /// The section key alone, when the sort keys that follow it live in another table.
    case sectionKey = "section key"
    /// The columns the predicate holds equal, then the list's order: the index finds the
    /// matching rows already in order.
    case predicateAndOrder = "predicate's equalities + the list's order"
  }

  package var index: IndexSpec
  package var kind: Kind

  /// The candidates for `request`, each index once, in `Kind` order. A pure function of the
  /// request's sort keys and section. O(sort keys).
  package static func all(for request: ResolvedRequest) -> [IndexCandidate] {
    let keys = Array(request.sorts.dropLast())
    let entityTable = request.entity.table
    func table(_ k: ResolvedKeyPath) -> String { k.entity.table }
    var out: [IndexCandidate] = []
    func add(_ kind: Kind, _ table: String, _ columns: [IndexSpec.Column]) {
      let spec = IndexSpec(table: table, columns: columns)
      if !columns.isEmpty, !out.contains(where: { $0.index == spec }) {
        out.append(IndexCandidate(index: spec, kind: kind))
      }
    }
    let sorted = request.section == nil ? keys : Array(keys.dropFirst())
    if let lead = sorted.first {
      add(.sortKey, table(lead.keyPath), [.init(lead.keyPath.attribute.column)])
      if let r = lead.keyPath.relationship {
        add(
          .foreignKeyAndSortKey, table(lead.keyPath),
          [.init(r.destinationColumn), .init(lead.keyPath.attribute.column)])
      }
    }
    // SQLite and PostgreSQL walk an index forwards or backwards: the directions must all
    // agree with the index's or all be reversed. Declaring each column's direction makes
    // the order exact, ties by primary key included.
    if !keys.isEmpty, keys.allSatisfy({ $0.keyPath.relationship == nil }) {
      add(
        .sortOrder, entityTable,
        keys.map { .init($0.keyPath.attribute.column, descending: !$0.ascending) } + [.init(request.entity.primaryKey)])
    }
    // `a = ? AND b = ?` on the entity's own columns (not through a relationship).
    func equalities(_ p: BoundPredicate) -> [ResolvedKeyPath] {
      switch p {
      case .comparison(let k, .equal, let v) where k.relationship == nil && !v.isNull: [k]
      case .and(let terms): terms.flatMap(equalities)
      default: []
      }
    }
    let equal = request.predicate.map(equalities) ?? []
    if !equal.isEmpty, keys.allSatisfy({ $0.keyPath.relationship == nil }) {
      var columns: [IndexSpec.Column] = []
      for k in equal where !columns.contains(where: { $0.name == k.attribute.column }) {
        columns.append(.init(k.attribute.column))
      }
      add(
        .predicateAndOrder, entityTable,
        columns + keys.map { .init($0.keyPath.attribute.column, descending: !$0.ascending) } + [
          .init(request.entity.primaryKey)
        ])
    }
    if let section = request.section {
      let sameTable = sorted.prefix { $0.keyPath.relationship == section.relationship }
      add(
        sameTable.isEmpty ? .sectionKey : .sectionAndSortKey, table(section),
        [.init(section.attribute.column)] + sameTable.map { .init($0.keyPath.attribute.column) })
    }
    return out
  }
}
