import Catalog
import FetchedResults

/// An index worth trying for a request on a SQL store, and why.
package struct IndexCandidate: Sendable, Hashable, Codable {
  /// The rule that proposed it, as the report names it.
  package enum Kind: String, Sendable, CaseIterable, Codable {
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
    // A key sorted by a selector other than `compare:` orders through a collation, which a
    // binary index does not give: the keys up to the first such one only.
    let keys = Array(request.sorts.dropLast().prefix { $0.selector == .compare })
    let ordersAll = keys.count == request.sorts.count - 1
    let entityTable = request.entity.table
    func table(_ k: ResolvedKeyPath) -> String { k.entity.table }
    var out: [IndexCandidate] = []
    func add(_ kind: Kind, _ table: String, _ columns: [IndexSpec.Column]) {
      let spec = IndexSpec(table: table, columns: columns)
      if !columns.isEmpty, !out.contains(where: { $0.index == spec }) {
        out.append(IndexCandidate(index: spec, kind: kind))
      }
    }
    let sorted = request.section == nil || keys.isEmpty ? keys : Array(keys.dropFirst())
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
    if !keys.isEmpty, ordersAll, keys.allSatisfy({ $0.keyPath.relationship == nil }) {
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
    if !equal.isEmpty, ordersAll, keys.allSatisfy({ $0.keyPath.relationship == nil }) {
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
    if let section = request.section, request.sorts.first?.selector == .compare {
      let sameTable = sorted.prefix { $0.keyPath.relationship == section.relationship }
      add(
        sameTable.isEmpty ? .sectionKey : .sectionAndSortKey, table(section),
        [.init(section.attribute.column)] + sameTable.map { .init($0.keyPath.attribute.column) })
    }
    return out
  }

  /// What the advice says of a sort key ordered by a selector other than `compare:` (a
  /// localized sort): no candidate holds it, since a binary index does not give a collation's
  /// order, and the index that would (built with the same collation) is named, not measured.
  /// nil when every key compares bytes. O(sort keys).
  package static func collatedSortNote(for request: ResolvedRequest, coreData: Bool) -> String? {
    guard let key = request.sorts.first(where: { $0.selector != .compare }) else { return nil }
    let selector = key.selector.rawValue
    let column = "\(key.keyPath.entity.table)(\(key.keyPath.attribute.column))"
    let store =
      coreData
      ? """
      Core Data creates a fetch index's columns COLLATE BINARY, so no index of a model gives this order and the \
      statement sorts every matching row
      """
      : """
      in SQLite that is `CREATE INDEX … ON \(key.keyPath.entity.table)(\(key.keyPath.attribute.column) COLLATE \
      fetchbench_\(selector.dropLast()))`, usable only on connections that register that collation (FetchBench's \
      do), and on PostgreSQL one built with the ICU collation the sort names
      """
    return
      """
      The sort by \(key.keyPath.keyPath) uses \(selector), which orders through a collation: a binary index on \
      \(column) does not give that order, so no candidate holds it. Only an index built with the same collation \
      would: \(store). FetchBench does not measure such an index.
      """
  }
}
