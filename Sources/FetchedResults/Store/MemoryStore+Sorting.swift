// Sorting in the in-memory store: every sort key becomes order-preserving 64-bit words
// (`SortWord`; strings by the rank of their dictionary code; to-one keys through a join column
// built once per table version), and fixed-width items of those words are radix sorted
// (`RadixSort.swift`): a pass per byte that varies, instead of an enum compare per key through
// a closure per row, or a cache miss per merge level of a comparison sort at millions of rows.
extension MemoryStore {
  /// Rows matching the request in its total order, offset and limit applied.
  /// O(n · varying key bytes) for up to three words, O(n log n) comparisons beyond; a window
  /// that ends in the first eighth of the rows (a page near the top of the list) is selected
  /// instead of sorted, in one pass over the keys: O(n + m log m) for its m = offset + limit
  /// rows, O(n log m) at worst.
  func orderedRows(_ request: ResolvedRequest) throws(FetchError) -> [Int] {
    let t = table(request)
    let rows = try matchingRows(request)
    var words = request.sorts.flatMap { sortWords($0, t, rows) }
    let (offset, limit) = (request.request.fetchOffset, request.request.fetchLimit)
    if limit > 0, words.count <= 3, offset < rows.count,
      offset + Swift.min(limit, rows.count - offset) <= rows.count / 8
    {
      return Array(Self.first(offset + Swift.min(limit, rows.count - offset), of: rows, by: words).dropFirst(offset))
    }
    return Self.sorted(rows, by: &words).window(request)
  }

  /// The first `m` of `rows` in the order of `words` (one to three; the last is the primary
  /// key's, so no two rows tie), in that order (`smallest`): a page near the top of a long
  /// list costs one pass over its keys and not their sort, as SQLite's sorter does under a
  /// LIMIT. O(n + m log m) expected, O(n log m) at worst.
  static func first(_ m: Int, of rows: [Int], by words: [[UInt64]]) -> [Int] {
    guard m > 0, !rows.isEmpty else { return [] }
    let (w0, w1, w2) = (words[0], words.count > 1 ? words[1] : [], words.count > 2 ? words[2] : [])
    @inline(__always) func item(_ p: Int) -> Positioned<Triple> {
      Positioned(
        words: Triple(a: w0[p], b: w1.isEmpty ? 0 : w1[p], c: w2.isEmpty ? 0 : w2[p]),
        position: UInt32(truncatingIfNeeded: p))
    }
    let heap = smallest(m, of: rows.indices.lazy.map(item), by: <)
    return heap.map { rows[Int($0.position)] }
  }

  /// The IDs of `orderedRows`, read back from the primary key's sort word (the last sort is
  /// always the primary key, and its word is an order-preserving bijection of the ID) instead
  /// of gathered through positions and rows: at millions of rows those two random gathers
  /// cost about as much as the sort. The items carry no position, so they are 8 bytes
  /// smaller too. O(n · varying key bytes).
  func orderedIDs(_ request: ResolvedRequest) throws(FetchError) -> [Int64] {
    if let packed = try packedIDs(request) { return packed.ids }
    let t = table(request)
    let rows = try matchingRows(request)
    var words = request.sorts.flatMap { sortWords($0, t, rows) }
    return orderedIDs(request, rows: rows, words: &words)
  }

  /// `orderedIDs` from the matching rows and their sort words (emptied here, so that the
  /// peak holds the sorted items and not the words too). Words whose spans fit in 64 bits are
  /// packed into one (`WordPacking`): 8-byte items instead of 16 or 24.
  func orderedIDs(_ request: ResolvedRequest, rows: [Int], words: inout [[UInt64]]) -> [Int64] {
    let t = table(request)
    guard let last = request.sorts.last, last.keyPath.relationship == nil, last.keyPath.attribute.name == "id",
      (1...3).contains(words.count)
    else { return Self.sorted(rows, by: &words).map { t.ids[$0] }.window(request) }
    let flip = (last.ascending ? 0 : ~0) ^ SortWord.sign
    var ids: [Int64]
    if let packing = WordPacking(words) {
      let id = words.count - 1
      var packed = packing.pack(&words)
      var scratch = words.popLast() ?? []
      words = []
      // The matching rows ascend, and so, as a rule, do their IDs.
      packed.radixSortWords(scratch: &scratch, bits: packing.bits(through: 0), orderedBelow: packing.bits(through: id))
      scratch = []
      return packed.map { Int64(bitPattern: packing.word(id, of: $0) ^ flip) }.window(request)
    }
    switch words.count {
    case 1:
      var w = words[0]
      words = []
      w.radixSort()
      ids = w.map { Int64(bitPattern: $0 ^ flip) }
    case 2:
      let (w0, w1) = (words[0], words[1])
      var items = (0..<rows.count).map { Pair(a: w0[$0], b: w1[$0]) }
      words = []
      items.radixSort()
      ids = items.map { Int64(bitPattern: $0.b ^ flip) }
    default:
      let (w0, w1, w2) = (words[0], words[1], words[2])
      var items = (0..<rows.count).map { Triple(a: w0[$0], b: w1[$0], c: w2[$0]) }
      words = []
      items.radixSort()
      ids = items.map { Int64(bitPattern: $0.c ^ flip) }
    }
    return ids.window(request)
  }

  /// Two sort words compared in order.
  struct Pair: Hashable, Comparable {
    var a: UInt64
    var b: UInt64
    @inline(__always) static func < (l: Pair, r: Pair) -> Bool { l.a != r.a ? l.a < r.a : l.b < r.b }
  }

  /// Three sort words compared in order.
  struct Triple: Comparable {
    var a: UInt64
    var b: UInt64
    var c: UInt64
    @inline(__always) static func < (l: Triple, r: Triple) -> Bool {
      l.a != r.a ? l.a < r.a : l.b != r.b ? l.b < r.b : l.c < r.c
    }
  }

  /// A row's sort words and its position among the matching rows, ordered by the words alone
  /// (24 bytes with a `Pair`, 32 with a `Triple`).
  struct Positioned<Words: Comparable>: Comparable {
    var words: Words
    var position: UInt32
    @inline(__always) static func < (l: Self, r: Self) -> Bool { l.words < r.words }
    @inline(__always) static func == (l: Self, r: Self) -> Bool { l.words == r.words }
  }

  /// Section counts in the order of the section key (the first sort), grouped without
  /// sorting the rows: O(n) for the groups, O(s log s) to order s sections.
  func sections(_ request: ResolvedRequest, _ section: ResolvedKeyPath) throws(FetchError) -> [SectionCount] {
    let rows = try matchingRows(request)
    return sections(request, section, rows: rows, leading: sortWords(request.sorts[0], table(request), rows))
  }

  /// `sections` from the matching rows and the words of the leading sort (`sortWords`'s).
  func sections(_ request: ResolvedRequest, _ section: ResolvedKeyPath, rows: [Int], leading words: [[UInt64]])
    -> [SectionCount]
  {
    let read = reader(section, table(request))
    // Section keys with few distinct words (a string's ranks, small integers) are counted in
    // an array; others in a dictionary.
    if words.count == 1, let lo = words[0].min(), let hi = words[0].max(), hi - lo < 1 << 16 {
      var counts = [Int](repeating: 0, count: Int(hi - lo) + 1)
      var first = [Int](repeating: -1, count: counts.count)
      for (p, w) in words[0].enumerated() {
        let k = Int(w - lo)
        if counts[k] == 0 { first[k] = p }
        counts[k] += 1
      }
      return counts.indices.filter { counts[$0] > 0 }.map {
        SectionCount(value: read(rows[first[$0]]), count: counts[$0])
      }
    }
    var groups: [Pair: (count: Int, first: Int)] = [:]
    for p in rows.indices {
      let k = Pair(a: words[0][p], b: words.count > 1 ? words[1][p] : 0)
      groups[k, default: (0, p)].count += 1
    }
    return groups.sorted { $0.key < $1.key }.map {
      SectionCount(value: read(rows[$0.value.first]), count: $0.value.count)
    }
  }

  /// The words of one sort key for `rows`, in the sort's direction. A null is the word just
  /// below the least value's (0 being below every value's: a string's is its rank + 1; a
  /// double's never 0; an integer's only for Int64.min), so nulls sort first ascending and
  /// last descending, as `Value.compare` has them, in one word; only when a null meets an
  /// Int64.min does a null word go first. O(rows).
  func sortWords(_ sort: ResolvedSort, _ t: MemoryTable, _ rows: [Int]) -> [[UInt64]] {
    let flip: UInt64 = sort.ascending ? 0 : ~0
    let key = keySource(sort, t)
    var values = [UInt64](repeating: flip, count: rows.count)
    // Whether a null or a word 0 was seen, and the least word of a value before the XOR
    // (`.max` without values).
    var (sawNull, sawZero, least) = (false, false, UInt64.max)
    values.withUnsafeMutableBufferPointer { values in
      key.forEachWord(rows) { p, w in
        // A null's (or a missing holder row's) word stays 0 before the XOR, which no other
        // word is unless `sawZero`.
        guard let w else {
          sawNull = true
          return
        }
        if w == 0 { sawZero = true }
        least = Swift.min(least, w)
        values[p] = w ^ flip
      }
    }
    guard sawNull && sawZero else {
      guard sawNull, least != .max else { return [values] }
      // Nulls take the word just before the least value's instead of 0: the same place in the
      // order, and a span no wider than the values', which `WordPacking` can pack.
      let null = (least - 1) ^ flip
      values.withUnsafeMutableBufferPointer { values in
        for p in values.indices where values[p] == flip { values[p] = null }
      }
      return [values]
    }
    var nullWords = [UInt64](repeating: 1 ^ (flip & 1), count: rows.count)
    nullWords.withUnsafeMutableBufferPointer { nullWords in
      key.forEachWord(rows) { p, w in if w == nil { nullWords[p] = flip & 1 } }
    }
    return [nullWords, values]
  }

  /// Where one sort key's words come from: the column of the table holding it (through a
  /// to-one join for a key path, with the join's inverse when `inverse` asks and it is a
  /// bijection), its null flags, and the bounds of its words. O(1), or O(rows) to build a
  /// join column (or its inverse) not yet cached.
  func keySource(_ sort: ResolvedSort, _ t: MemoryTable, inverse: Bool = false) -> KeySource {
    let joined = sort.keyPath.relationship.map { joinColumn($0, t, inverse: inverse) }
    let (join, sources) = (joined?.rows, joined?.sources)
    let holder = sort.keyPath.relationship.map { tables[$0.destination]! } ?? t
    let name = sort.keyPath.attribute.name
    guard name != "id", let i = holder.entity.attributeIndex(name) else {
      return KeySource(column: .integers(holder.ids), join: join, sources: sources, nulls: nil, bounds: holder.idBounds)
    }
    let column = holder.columns[i]
    let words: KeySource.Column
    switch column.type {
    case .integer, .bool: words = .integers(column.integers)
    case .double, .date: words = column.fractionalCount == 0 ? .wholeDoubles(column.doubles) : .doubles(column.doubles)
    case .string: words = .ranks(codes: column.codes, ranks: column.ranks(sort.order))
    }
    return KeySource(
      column: words, join: join, sources: sources, nulls: column.optional ? column.nulls : nil,
      bounds: column.sortBounds)
  }

  /// A sort key's column, null flags and join (`keySource`).
  struct KeySource {
    /// A column's values and how each becomes its order-preserving word (`SortWord`).
    enum Column {
      case integers([Int64])
      /// Doubles that are all whole numbers: their integers' words, dozens of bits narrower.
      case wholeDoubles([Double])
      case doubles([Double])
      /// A string's word is its rank among the distinct strings, plus 1.
      case ranks(codes: [UInt32], ranks: [UInt32])
    }
    var column: Column
    /// Each source row's row in the holder table (-1: none), for a key path through a to-one
    /// relationship.
    var join: [Int32]?
    /// Each holder row's source row, when `join` is a bijection (`JoinColumn.sources`).
    var sources: [Int32]?
    var nulls: [Bool]?
    /// The bounds of every word the column can give (`WordBounds`), before any flip.
    var bounds: WordBounds

    /// Calls `visit` with each of `rows`' positions and its word (nil: a null, or no holder
    /// row), in order. The column's switch is outside the loop and `visit` is inlined into
    /// it: a closure call per row for the join, the null test and the word costs as much as
    /// the sort's passes at millions of rows. O(rows).
    @inline(__always) func forEachWord<Rows: Collection<Int>>(_ rows: Rows, _ visit: (Int, UInt64?) -> Void) {
      switch column {
      case .integers(let values): loop(rows, visit) { SortWord.integer(values[$0]) }
      case .wholeDoubles(let values): loop(rows, visit) { SortWord.integer(Int64(values[$0])) }
      case .doubles(let values): loop(rows, visit) { SortWord.double(values[$0]) }
      case .ranks(let codes, let ranks): loop(rows, visit) { UInt64(ranks[Int(codes[$0])]) + 1 }
      }
    }

    /// Calls `visit` with each holder row's source row and its word (nil: a null), in the
    /// holder's order, which reads the column in order: for a join that is a bijection
    /// (`sources` set), where every source row is visited once. O(rows).
    @inline(__always) func forEachWordInHolderOrder(_ visit: (Int, UInt64?) -> Void) {
      guard let sources else { return }
      inHolderOrder.forEachWord(sources.indices) { d, w in visit(Int(sources[d]), w) }
    }

    /// The key read from its holder table directly: position p is holder row p. O(1).
    var inHolderOrder: KeySource { KeySource(column: column, join: nil, sources: nil, nulls: nulls, bounds: bounds) }

    @inline(__always) private func loop<Rows: Collection<Int>>(
      _ rows: Rows, _ visit: (Int, UInt64?) -> Void, _ word: (Int) -> UInt64
    ) {
      for (p, row) in rows.enumerated() {
        let r = join.map { Int($0[row]) } ?? row
        visit(p, r < 0 || nulls?[r] == true ? nil : word(r))
      }
    }
  }

  /// `rows` ordered by `words` (compared in order; the last sort is the primary key, so no two
  /// rows tie). When the words' spans and the position fit in 64 bits they are packed into one
  /// word (`WordPacking`, 8-byte items); otherwise up to three words radix sort as fixed-width
  /// items (24 bytes for two, 32 for three). `words` is emptied once the items are built, so
  /// the peak holds the items and the rows.
  static func sorted(_ rows: [Int], by words: inout [[UInt64]]) -> [Int] {
    // The position rides in the lowest bits when everything fits in one word: the words
    // before it never tie, so it orders nothing.
    if (1...3).contains(words.count) {
      words.append((0..<UInt64(rows.count)).map { $0 })
      if let packing = WordPacking(words) {
        var packed = packing.pack(&words)
        var scratch = words.popLast() ?? []
        words = []
        let position = packing.fields.count - 1
        // Positions count up; the primary key's field above them ascends too when the rows
        // are in ID order, as they are as a rule.
        packed.radixSortWords(
          scratch: &scratch, bits: packing.bits(through: 0),
          orderedBelow: packing.bits(through: Swift.max(position - 1, 0)))
        scratch = []
        return packed.map { rows[Int(packing.word(position, of: $0))] }
      }
      words.removeLast()
    }
    switch words.count {
    case 0...2:
      let zero = [UInt64](repeating: 0, count: rows.count)
      let (w0, w1) = (words.first ?? zero, words.count > 1 ? words[1] : zero)
      var items = (0..<rows.count).map { Positioned(words: Pair(a: w0[$0], b: w1[$0]), position: UInt32($0)) }
      words = []
      items.radixSort()
      return items.map { rows[Int($0.position)] }
    case 3:
      let (w0, w1, w2) = (words[0], words[1], words[2])
      var items = (0..<rows.count).map {
        Positioned(words: Triple(a: w0[$0], b: w1[$0], c: w2[$0]), position: UInt32($0))
      }
      words = []
      items.radixSort()
      return items.map { rows[Int($0.position)] }
    default:
      let w = words
      return rows.indices.sorted { a, b in
        for k in w where k[a] != k[b] { return k[a] < k[b] }
        return false
      }.map { rows[$0] }
    }
  }
}

extension Array {
  /// The request's offset and limit applied to rows in its order.
  func window(_ request: ResolvedRequest) -> [Element] {
    let offset = Swift.min(request.request.fetchOffset, count)
    // min before adding: a limit of Int.max must not overflow.
    let end = request.request.fetchLimit > 0 ? offset + Swift.min(count - offset, request.request.fetchLimit) : count
    return offset == 0 && end == count ? self : Array(self[offset..<end])
  }
}
