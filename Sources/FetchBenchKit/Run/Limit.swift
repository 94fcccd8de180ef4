import FetchedResults

/// The physical limit an in-memory case is held against: the same request's sort keys already
/// extracted into flat typed arrays (numbers as `Double`, strings as their rank among the
/// column's values, nulls first as `Value.compare` has them), in the table's order, sorted by
/// the standard library with one comparator; for full fetch, each row's values then copied out
/// in that order from flat columns; for pages by offset or keyset, each page the case reads
/// selected from those items as the in-memory store selects it (`pages`). What the engine does
/// beyond it (evaluating the request on its store, extracting keys, joining) is its overhead
/// over the pattern.
struct Limit {
  /// One row: its sort keys (up to three; unused ones 0) and its position in the table order.
  struct Item {
    var k0: Double
    var k1: Double
    var k2: Double
    var id: Int64
    var position: Int32
  }

  let items: [Item]
  let ascending: [Bool]
  /// Full fetch: the rows' values by column, in table order; nil for batched.
  let columns: [[Value]]?
  /// Paged cases: the offsets of the pages the case reads, and their size. A page's rows are
  /// the first offset + size items, selected (`smallest`) while those are within an eighth of
  /// the list and sorted beyond, as the in-memory store does; a keyset page, which seeks
  /// instead, is held to the offset page at its depth. nil: the whole sort.
  var pages: (offsets: [Int], size: Int)?

  /// Extracts the keys (and for full fetch the values) of `request`'s rows from `store`,
  /// untimed; nil when the request sorts by more than three keys besides the ID.
  init?(_ request: ResolvedRequest, full: Bool, store: any Store) throws {
    let keyed = try store.fetchKeyedIDs(request, ids: nil)
    let sorts = request.sorts.dropLast()
    guard sorts.count <= 3 else { return nil }
    // Table order (by ID, as the rows were loaded): sorting an already sorted array would
    // flatter the limit.
    let order = keyed.ids.indices.sorted { keyed.ids[$0] < keyed.ids[$1] }
    let columns = keyed.keys.map(Self.numbers)
    items = order.enumerated().map { position, i in
      Item(
        k0: columns.count > 0 ? columns[0][i] : 0, k1: columns.count > 1 ? columns[1][i] : 0,
        k2: columns.count > 2 ? columns[2][i] : 0,
        id: keyed.ids[i], position: Int32(position))
    }
    ascending = sorts.map(\.ascending) + Array(repeating: true, count: 3 - sorts.count)
    if full {
      let rows = try store.fetchObjects(request)
      let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.values) })
      let width = rows.first?.values.count ?? 0
      let inOrder = order.map { byID[keyed.ids[$0]]! }
      self.columns = (0..<width).map { c in inOrder.map { $0[c] } }
    } else {
      self.columns = nil
    }
  }

  /// A key column as numbers in its order: numbers as they are, strings by rank, null below
  /// every value.
  static func numbers(_ values: [Value]) -> [Double] {
    let strings = Set(values.compactMap { if case .string(let s) = $0 { s } else { nil } })
    let rank = Dictionary(
      uniqueKeysWithValues: strings.sorted { Value.compareUTF8($0, $1) < 0 }.enumerated().map { ($1, Double($0)) })
    return values.map { v in
      switch v {
      case .null: -.infinity
      case .string(let s): rank[s]!
      default: v.numeric ?? 0
      }
    }
  }

  /// The timed work: the sort, and for full fetch the rows copied out. Returns a checksum so
  /// that nothing is optimized away.
  func run() -> Int {
    if let pages {
      let less = Self.order(ascending)
      var sink = 0
      for offset in pages.offsets {
        let m = min(offset + pages.size, items.count)
        let first = m <= items.count / 8 ? smallest(m, of: items, by: less) : items.sorted(by: less)
        sink &+= first[min(offset, first.count)..<m].reduce(0) { $0 &+ Int(truncatingIfNeeded: $1.id) }
      }
      return sink
    }
    var sorted = items
    Self.sort(&sorted, ascending: ascending)
    guard let columns else { return Int(truncatingIfNeeded: sorted.first?.id ?? 0) }
    var rows: [[Value]] = []
    rows.reserveCapacity(sorted.count)
    for item in sorted {
      let p = Int(item.position)
      var row: [Value] = []
      row.reserveCapacity(columns.count)
      for c in columns.indices { row.append(columns[c][p]) }
      rows.append(row)
    }
    return rows.count
  }

  /// The stdlib's sort with one comparator: the keys in order (each in its direction), then
  /// the ID ascending. `ascending` has three entries.
  static func sort(_ items: inout [Item], ascending: [Bool]) { items.sort(by: order(ascending)) }

  /// The request's order on items. `ascending` has three entries.
  static func order(_ ascending: [Bool]) -> (Item, Item) -> Bool {
    let (a0, a1, a2) = (ascending[0], ascending[1], ascending[2])
    return { x, y in
      if x.k0 != y.k0 { return a0 ? x.k0 < y.k0 : x.k0 > y.k0 }
      if x.k1 != y.k1 { return a1 ? x.k1 < y.k1 : x.k1 > y.k1 }
      if x.k2 != y.k2 { return a2 ? x.k2 < y.k2 : x.k2 > y.k2 }
      return x.id < y.id
    }
  }
}
