// Sorted IDs with the sort keys packed as they are read. The columns keep the bounds of their
// sort words as values are written (`WordBounds`), so the packing of a request's keys into one
// 64-bit word is known before any row is read: each key's field goes straight into the packed
// word, the radix sort orders those words, and the sorted words become the IDs in place. No
// array per key, no row list when nothing filters, no pass to find the spans and no pass to
// pack: at millions of rows each array not allocated is pages the kernel does not fault in and
// zero, and each pass not made is tens of megabytes not moved.
extension MemoryStore {
  /// `orderedIDs` when the request's keys fit one packed word by their columns' bounds (the
  /// last key is the primary key, as it always is after `resolve`); nil otherwise, for the
  /// general path. With `section` (the first sort's key path), the section counts too, from
  /// the runs of the leading field in the sorted words: sections cost one pass over what the
  /// sort produced. O(n · varying key bytes), with the IDs and the sort's scratch as its only
  /// arrays of n.
  func packedIDs(_ request: ResolvedRequest, section: ResolvedKeyPath? = nil) throws(FetchError) -> (
    ids: [Int64], sections: [SectionCount]
  )? {
    let t = table(request)
    // Without a predicate or a deleted row, the matching rows are every row, in order.
    let all = request.predicate == nil && t.deadCount == 0
    guard let last = request.sorts.last, last.keyPath.relationship == nil, last.keyPath.attribute.name == "id",
      let keys = packedKeys(request, t, inverse: all), let packing = WordPacking(bounds: keys.map(\.bounds))
    else { return nil }
    let rows = all ? [] : try matchingRows(request)
    let n = all ? t.ids.count : rows.count
    var ids = [Int64](unsafeUninitializedCapacity: n) { _, initialized in initialized = n }
    // Each section's first position and its count.
    var runs: [(start: Int, count: Int)] = []
    ids.withUnsafeMutableBufferPointer { ids in
      ids.withMemoryRebound(to: UInt64.self) { packed in
        pack(request, t, keys, packing, into: packed, rows: all ? nil : rows)
        // The primary key's field is the lowest, and rows are read in ID order as a rule.
        var scratch: [UInt64] = []
        packed.radixSortWords(
          scratch: &scratch, bits: packing.bits(through: 0), orderedBelow: packing.bits(through: keys.count - 1))
        if section != nil, n > 0 {
          let lead = packing.fields[0]
          var start = 0
          for p in 1..<n where (packed[p] ^ packed[start]) >> lead.shift & lead.mask != 0 {
            runs.append((start, p - start))
            start = p
          }
          runs.append((start, n - start))
        }
        // The primary key's field gives back its word, an order-preserving bijection of the ID.
        let id = keys.count - 1
        let flip = keys[id].flip ^ SortWord.sign
        for p in packed.indices { packed[p] = packing.word(id, of: packed[p]) ^ flip }
      }
    }
    guard let section else { return (ids.window(request), []) }
    let read = reader(section, t)
    return (ids, runs.map { SectionCount(value: read(t.rowOfID[ids[$0.start]]!), count: $0.count) })
  }

  /// Writes the packed words of `rows` (nil: every row of `t`, none deleted) into `packed`, in
  /// an order the sort does not care about, reading each key in the order that reads it
  /// fastest: all of them in the destination's order when a one-to-one join of every row holds
  /// them all (`keysInDestinationOrder`); else a key through such a join first, scattered from
  /// the destination read in order, the others added in row order; else every key in row
  /// order. O(rows · keys).
  func pack(
    _ request: ResolvedRequest, _ t: MemoryTable, _ keys: [PackedKey], _ packing: WordPacking,
    into packed: UnsafeMutableBufferPointer<UInt64>, rows: [Int]?
  ) {
    guard let rows else {
      let n = packed.count
      if let inOrder = keysInDestinationOrder(request, t, keys) {
        for (i, key) in inOrder.enumerated() {
          Self.pack(key, packing.fields[i], into: packed, first: i == 0, rows: 0..<n)
        }
        return
      }
      // The scattered key writes each word whole; the others then add their fields.
      let scattered = keys.firstIndex { $0.source.sources != nil }
      if let j = scattered {
        let (key, field) = (keys[j], packing.fields[j])
        let null = field.bits(of: key.null)
        key.source.forEachWordInHolderOrder { s, w in packed[s] = w.map { field.bits(of: $0 ^ key.flip) } ?? null }
      }
      for (i, key) in keys.enumerated() where i != scattered {
        Self.pack(key, packing.fields[i], into: packed, first: i == 0 && scattered == nil, rows: 0..<n)
      }
      return
    }
    for (i, key) in keys.enumerated() { Self.pack(key, packing.fields[i], into: packed, first: i == 0, rows: rows) }
  }

  /// `keys` read from the destination of a one-to-one join of every row (`JoinColumn.sources`)
  /// in its own order, when each key is there: a key through that join, or the source's ID,
  /// which the destination's join column holds (FailedBankDetails.info_id for banks sorted
  /// by `details.closeDate`). Nil otherwise. Reading every key in order, nothing is gathered
  /// or scattered at random. (Any other key of the source could be gathered through the
  /// join's inverse, but that is slower than scattering the joined key, as banks' sectioned
  /// sort, state first, shows at millions of rows.) O(keys).
  func keysInDestinationOrder(_ request: ResolvedRequest, _ t: MemoryTable, _ keys: [PackedKey]) -> [PackedKey]? {
    guard let j = keys.firstIndex(where: { $0.source.sources != nil }), let rel = request.sorts[j].keyPath.relationship
    else {
      return nil
    }
    let dest = tables[rel.destination]!
    var out = keys
    for (i, sort) in request.sorts.enumerated() {
      if sort.keyPath.relationship == rel {
        out[i].source = out[i].source.inHolderOrder
      } else if sort.keyPath.relationship == nil, sort.keyPath.attribute.name == "id",
        rel.sourceColumn == t.entity.primaryKey,
        let c = dest.entity.attributes.firstIndex(where: { $0.column == rel.destinationColumn }),
        dest.columns[c].type == .integer
      {
        // Under a bijection every destination row holds the ID of its source row: the same
        // words, within the source's ID bounds.
        out[i].source = KeySource(
          column: .integers(dest.columns[c].integers), join: nil, sources: nil, nulls: nil,
          bounds: keys[i].source.bounds)
      } else {
        return nil
      }
    }
    return out
  }

  /// A sort key ready to pack: its source, its direction and the bounds of its words in that
  /// direction, a null's word included.
  struct PackedKey {
    var source: KeySource
    /// 0 ascending, every bit descending: a word XOR `flip` orders as the sort does.
    var flip: UInt64
    /// The word of a null (or of a missing holder row), flipped: the step below the least
    /// value's, so nulls sort first ascending and last descending, as `Value.compare` has them.
    var null: UInt64
    var bounds: WordBounds
  }

  /// The request's keys with their flipped bounds, or nil when a key that can be null has no
  /// word below its least value's (an Int64.min: the general path gives nulls a word of their
  /// own). With `inverse` (every row is packed), keys through a one-to-one join of every row
  /// carry its inverse (`JoinColumn.sources`). O(keys), or O(rows) to build a join column not
  /// yet cached.
  func packedKeys(_ request: ResolvedRequest, _ t: MemoryTable, inverse: Bool) -> [PackedKey]? {
    var keys: [PackedKey] = []
    for sort in request.sorts {
      let source = keySource(sort, t, inverse: inverse)
      let flip: UInt64 = sort.ascending ? 0 : ~0
      var bounds = source.bounds
      var null: UInt64 = 0
      if source.nulls != nil || source.join != nil {
        // One step of the bits every value shares below: the null keeps them, and the field
        // stays as narrow as the values'.
        let step: UInt64 = bounds.varying == 0 ? 1 : 1 << UInt64(bounds.varying.trailingZeroBitCount)
        if !bounds.isEmpty {
          guard bounds.least >= step else { return nil }
          null = bounds.least - step
        }
        bounds.include(null)
      }
      keys.append(PackedKey(source: source, flip: flip, null: null ^ flip, bounds: bounds.flipped(flip)))
    }
    return keys
  }

  /// Writes (`first`) or adds `key`'s field of each of `rows` into `packed`, by position.
  /// O(rows).
  @inline(__always) static func pack<Rows: Collection<Int>>(
    _ key: PackedKey, _ field: WordPacking.Field, into packed: UnsafeMutableBufferPointer<UInt64>, first: Bool,
    rows: Rows
  ) {
    let (flip, null) = (key.flip, field.bits(of: key.null))
    if first {
      key.source.forEachWord(rows) { p, w in packed[p] = w.map { field.bits(of: $0 ^ flip) } ?? null }
    } else {
      key.source.forEachWord(rows) { p, w in packed[p] |= w.map { field.bits(of: $0 ^ flip) } ?? null }
    }
  }
}
