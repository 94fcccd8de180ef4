/// How a list without an ID list reads its rows, a page at a time.
public enum PagingStrategy: String, Sendable, CaseIterable {
  /// `LIMIT n OFFSET k` (Android Room with Paging 3, most web APIs): any page directly, but a
  /// page's cost grows with its depth, since the store walks past the k rows before it.
  case offset
  /// Past the previous page's last sort key and primary key (keyset pagination, "the seek
  /// method"): each page costs the same at any depth, but a page is reachable only from the
  /// one before it; a jump reads its first page by offset, then seeks on.
  case keyset
}

/// Reads a request's rows page by page, one query per page, in the request's total order (the
/// primary key last). Neither strategy keeps an ID list, so neither gives row-level change sets:
/// after a save the shown pages are read again.
///
/// Keyset pages need each row's sort keys: the relationships of to-one sort keys are prefetched
/// with the rows, so the last row of a page carries what the next page seeks past.
public struct Pager {
  public let store: any Store
  public let pageSize: Int
  /// The request as paged: the caller's, with the sort keys' relationships prefetched.
  public let request: FetchRequest
  let resolved: ResolvedRequest
  /// Where each sort key but the primary key sits in a row.
  let keyColumns: [Int]

  /// Checks `request` for paging. Throws `invalidRequest` when it sets its own limit or
  /// offset, or when `pageSize` is not positive. O(sort keys).
  public init(_ request: FetchRequest, store: any Store, pageSize: Int) throws {
    guard pageSize > 0 else { throw FetchError.invalidRequest("a page must hold at least one row, got \(pageSize)") }
    guard request.fetchLimit == 0 && request.fetchOffset == 0 else {
      throw FetchError.invalidRequest(
        """
        paging sets the limit and offset itself; the request has fetchLimit \(request.fetchLimit), fetchOffset \
        \(request.fetchOffset)
        """
      )
    }
    var paged = request
    paged.fetchBatchSize = 0
    for sort in try request.resolve(in: store.model).sorts {
      if let r = sort.keyPath.relationship, !paged.relationshipKeyPathsForPrefetching.contains(r.name) {
        paged.relationshipKeyPathsForPrefetching.append(r.name)
      }
    }
    let resolved = try paged.resolve(in: store.model)
    let layout = resolved.rowLayout
    var keyColumns: [Int] = []
    for sort in resolved.sorts.dropLast() {
      guard let i = layout.index(of: sort.keyPath.keyPath) else {
        throw FetchError.invalidRequest(
          "keyset paging needs every sort key in the row; '\(sort.keyPath.keyPath)' is not")
      }
      keyColumns.append(i)
    }
    (self.store, self.pageSize, self.request, self.resolved, self.keyColumns) = (
      store, pageSize, paged, resolved, keyColumns
    )
  }

  /// The page of rows `offset ..< offset + pageSize` by `LIMIT` and `OFFSET`. One query;
  /// O(offset + pageSize) on the SQL stores without an index that gives the order.
  public func page(at offset: Int) throws -> [FetchedObject] {
    var r = resolved
    r.request.fetchLimit = pageSize
    r.request.fetchOffset = offset
    return try store.fetchObjects(r)
  }

  /// The page after `last` (the first page when nil), by seeking past its sort key and
  /// primary key. One query (two when `last` was read by another request's layout); with an
  /// index on the sort keys O(log n + pageSize) at any depth.
  public func page(after last: FetchedObject?) throws -> [FetchedObject] {
    guard let last else { return try page(at: 0) }
    // A row read by another request (a controller's, without the sort's relationships
    // prefetched) is read again by the pager's own, which holds every sort key: one query more.
    let row = last.layout == resolved.rowLayout ? last : try store.fetchObjects(resolved, ids: [last.id][...]).first
    guard let row else {
      throw FetchError.invalidRequest("the row to page after (ID \(last.id)) is no longer in the list's entity")
    }
    var r = request
    let seek = seekPredicate(after: row)
    r.predicate = r.predicate.map { .and([$0, seek]) } ?? seek
    r.fetchLimit = pageSize
    return try store.fetchObjects(try r.resolve(in: store.model))
  }

  /// Every row in order, read page by page with `strategy`. O(n / pageSize) queries.
  public func all(_ strategy: PagingStrategy) throws -> [FetchedObject] {
    var out: [FetchedObject] = []
    while true {
      let page = try strategy == .offset ? page(at: out.count) : page(after: out.last)
      out += page
      if page.count < pageSize { return out }
    }
  }

  /// The rows ordered after `last`: for each sort key in turn, equal on the keys before it and
  /// after on it. Nulls come first ascending and last descending, as `Value.compare` and the
  /// stores' ORDER BY have them, and `= nil` tests for NULL, so a null key seeks as well.
  func seekPredicate(after last: FetchedObject) -> FetchPredicate {
    var terms: [FetchPredicate] = []
    var equalBefore: [FetchPredicate] = []
    for (i, sort) in resolved.sorts.enumerated() {
      let value: Value = i < keyColumns.count ? last.values[keyColumns[i]] : .integer(last.id)
      let path = sort.keyPath.keyPath
      let compare = Self.comparison(sort)
      // Descending, nothing comes after a null but other nulls: no term.
      let after: FetchPredicate? =
        switch (sort.ascending, value.isNull) {
        case (true, true): .comparison(path, .notEqual, .null)
        case (true, false): compare(.greater, value)
        case (false, true): nil
        case (false, false): .or([compare(.less, value), .comparison(path, .equal, .null)])
        }
      if let after { terms.append(equalBefore.isEmpty ? after : .and(equalBefore + [after])) }
      equalBefore.append(value.isNull ? .comparison(path, .equal, .null) : compare(.equal, value))
    }
    // The same rows, with the leading key's range said on its own: a disjunction alone does
    // not let SQLite start an index on that key at the last row (`k <= ? AND (k < ? OR …)`
    // does). Row values `(k, id) < (?, ?)` would say it in one term, but only when every key
    // runs in one direction; the lists here sort by date descending and ID ascending.
    guard let lead = resolved.sorts.first, resolved.sorts.count > 1 else { return .or(terms) }
    let value: Value = keyColumns.isEmpty ? .integer(last.id) : last.values[keyColumns[0]]
    let path = lead.keyPath.keyPath
    let compare = Self.comparison(lead)
    let bound: FetchPredicate? =
      switch (lead.ascending, value.isNull) {
      case (true, true), (false, true): nil
      case (true, false): compare(.greaterOrEqual, value)
      case (false, false): .or([compare(.lessOrEqual, value), .comparison(path, .equal, .null)])
      }
    return bound.map { .and([$0, .or(terms)]) } ?? .or(terms)
  }

  /// A comparison with a sort key's value in the sort's order: its selector's, when it has one.
  static func comparison(_ sort: ResolvedSort) -> (ComparisonOperator, Value) -> FetchPredicate {
    let path = sort.keyPath.keyPath
    return { op, value in
      sort.selector == .compare ? .comparison(path, op, value) : .ordered(path, op, value, sort.selector)
    }
  }
}
