import FetchedResults
import Testing

/// The in-memory store sorts on order-preserving words (nulls folded into word 0 where no value
/// takes it); these edge values must still come out in `Value.compare`'s order, ties by ID.
@Suite struct MemorySortTests {
  static let model = Model(entities: [
    Entity(
      name: "T", table: "t",
      attributes: [
        Attribute("n", .integer, optional: true), Attribute("d", .double, optional: true),
        Attribute("s", .string, optional: true),
      ])
  ])

  /// The eight edge rows, `copies` times (IDs distinct, so ties break by ID).
  static func store(copies: Int = 1) throws -> MemoryStore {
    let store = MemoryStore(model: model)
    let ints: [Value] = [
      .null, .integer(.min), .integer(.max), .integer(0), .integer(-1), .integer(1), .null, .integer(.min),
    ]
    let doubles: [Value] = [
      .double(-0.0), .double(0), .null, .double(-.infinity), .double(.infinity), .double(-1e-300), .double(5), .null,
    ]
    let strings: [Value] = [
      .string("b"), .string(""), .null, .string("é"), .string("e"), .string("B"), .string("b"), .null,
    ]
    for copy in 0..<copies {
      for i in 0..<ints.count {
        try store.load(entity: "T", id: Int64(100 * copy + 100 - i), values: [ints[i], doubles[i], strings[i]])
      }
    }
    return store
  }

  /// The order `Value.compare` gives, ties by ID ascending.
  static func expected(_ store: MemoryStore, _ key: String, ascending: Bool) throws -> [Int64] {
    let rows = try store.fetchObjects(try FetchRequest(entityName: "T").resolve(in: model))
    let i = rows[0].layout.index(of: key)!
    return rows.sorted { a, b in
      let c = Value.compare(a.values[i], b.values[i])
      return c != 0 ? (ascending ? c < 0 : c > 0) : a.id < b.id
    }.map(\.id)
  }

  /// One copy sorts by comparisons; 100 copies (800 rows) take the radix sort, whose passes
  /// skip the bytes that are equal in every row.
  @Test(arguments: ["n", "d", "s"], [true, false])
  func edgeValuesSortAsValueCompare(key: String, ascending: Bool) throws {
    for copies in [1, 100] { try edgeValuesSort(key: key, ascending: ascending, copies: copies) }
  }

  func edgeValuesSort(key: String, ascending: Bool, copies: Int) throws {
    let store = try Self.store(copies: copies)
    let request = FetchRequest(
      entityName: "T", sortDescriptors: [SortDescriptor(key, ascending: ascending)], fetchBatchSize: 3)
    let ids = try store.fetchIDs(try request.resolve(in: Self.model))
    #expect(ids == (try Self.expected(store, key, ascending: ascending)))
    // Sections by the same key: one per distinct value, in that order, counts adding up.
    var sectioned = request
    sectioned.sectionNameKeyPath = key
    let sections = try store.sectionCounts(try sectioned.resolve(in: Self.model))
    #expect(sections.reduce(0) { $0 + $1.count } == ids.count)
    let values = sections.map(\.value)
    #expect(
      zip(values, values.dropFirst()).allSatisfy { ascending ? Value.compare($0, $1) < 0 : Value.compare($0, $1) > 0 })
  }

  /// Long lists: 40,000 random rows (few distinct integers, so long runs of ties by ID; doubles
  /// of every sign and size, whose words vary in all 64 bits and so are never packed; strings;
  /// nulls) and 500 copies of the edge rows' 4,000 more come out in `Value.compare`'s order,
  /// each key, both directions.
  @Test(arguments: ["n", "d", "s"], [true, false])
  func longListsSortAsValueCompare(key: String, ascending: Bool) throws {
    var generator = SeededGenerator(seed: 7)
    let store = try Self.store(copies: 500)
    let strings = (0..<30).map { _ in
      String((0..<Int.random(in: 0...6, using: &generator)).map { _ in "abcé"[...].randomElement(using: &generator)! })
    }
    for id in 0..<40_000 {
      let n: Value =
        Int.random(in: 0..<10, using: &generator) == 0 ? .null : .integer(Int64.random(in: -20..<20, using: &generator))
      // Any bit pattern but NaN: every sign, exponent and subnormal.
      let bits = Double(bitPattern: generator.next())
      let d: Value = Int.random(in: 0..<10, using: &generator) == 0 ? .null : .double(bits.isNaN ? 0 : bits)
      let s: Value =
        Int.random(in: 0..<10, using: &generator) == 0 ? .null : .string(strings.randomElement(using: &generator)!)
      try store.load(entity: "T", id: Int64(100_000 + id), values: [n, d, s])
    }
    let request = FetchRequest(
      entityName: "T", sortDescriptors: [SortDescriptor(key, ascending: ascending)], fetchBatchSize: 20)
    let ids = try store.fetchIDs(try request.resolve(in: Self.model))
    #expect(ids.count == 44_000)
    #expect(ids == (try Self.expected(store, key, ascending: ascending)))
  }

  /// Keys packed into one word at the edge of fitting: integers varying in 41, 42 or 43 bits
  /// beside IDs varying in 22 give 63, 64 (packed) and 65 bits (not packed, the pair of words
  /// sorted as it is); the IDs (`fetchIDs`) and the rows (`fetchObjects`, whose positions must
  /// fit too) come out in `Value.compare`'s order, both directions.
  @Test(arguments: [41, 42, 43], [true, false])
  func keysPackedAtTheSixtyFourBitEdge(bits: Int, ascending: Bool) throws {
    var generator = SeededGenerator(seed: UInt64(bits))
    let store = try Self.store(copies: 0)
    // The lowest and highest IDs and values pin their varying bits at exactly 22 and `bits`.
    var ids: Set<Int64> = [1 << 22, (1 << 23) - 1]
    while ids.count < 2_000 { ids.insert(Int64.random(in: (1 << 22)..<(1 << 23), using: &generator)) }
    let low: Int64 = 1 << 44
    for (i, id) in ids.enumerated() {
      let n = i == 0 ? low : i == 1 ? low + (1 << bits) - 1 : low + Int64.random(in: 0..<(1 << bits), using: &generator)
      try store.load(entity: "T", id: id, values: [.integer(n), .null, .null])
    }
    let request = try FetchRequest(entityName: "T", sortDescriptors: [SortDescriptor("n", ascending: ascending)])
      .resolve(in: Self.model)
    let expected = try Self.expected(store, "n", ascending: ascending)
    #expect(try store.fetchIDs(request) == expected)
    #expect(try store.fetchObjects(request).map(\.id) == expected)
  }

  /// Rows loaded in ID order sort without passes over the IDs' bits (ties keep the order the
  /// rows are read in); one pair of rows out of ID order anywhere in the list must turn that
  /// off. 3,000 rows, five distinct values (runs of ties a thousand long), both directions, IDs
  /// (`fetchIDs`) and rows (`fetchObjects`, whose positions are skipped the same way); then
  /// after a write that makes the IDs descend.
  @Test(arguments: [true, false])
  func rowsInIDOrderTieByIDAndOneRowOutOfOrderIsNoticed(ascending: Bool) throws {
    for swapped in [nil, 0, 1_500, 2_998] as [Int?] {
      var generator = SeededGenerator(seed: 11)
      let store = try Self.store(copies: 0)
      var ids = (0..<3_000).map { Int64(1_000 + 7 * $0) }
      if let p = swapped { ids.swapAt(p, p + 1) }
      for id in ids {
        try store.load(
          entity: "T", id: id, values: [.integer(Int64.random(in: 0..<5, using: &generator)), .null, .null])
      }
      let request = try FetchRequest(entityName: "T", sortDescriptors: [SortDescriptor("n", ascending: ascending)])
        .resolve(
          in: Self.model)
      var expected = try Self.expected(store, "n", ascending: ascending)
      #expect(try store.fetchIDs(request) == expected, "swapped at \(swapped ?? -1)")
      #expect(try store.fetchObjects(request).map(\.id) == expected, "swapped at \(swapped ?? -1)")
      // A row with a lower ID than any, appended last: read last, it must still sort first among its ties.
      try store.commit([.insert(entity: "T", values: ["id": .integer(1), "n": .integer(2)])])
      expected = try Self.expected(store, "n", ascending: ascending)
      #expect(try store.fetchIDs(request) == expected, "after insert, swapped at \(swapped ?? -1)")
      #expect(try store.fetchObjects(request).map(\.id) == expected, "after insert, swapped at \(swapped ?? -1)")
    }
  }

  /// Doubles that are all whole numbers sort by their integers' words: negatives, -0 beside 0,
  /// ±2^53, nulls, 1,000 rows. Then one row becomes 0.5 (the column sorts by doubles' words
  /// again), then whole again (by integers again): each order is `Value.compare`'s, both
  /// directions, IDs and rows.
  @Test(arguments: [true, false])
  func wholeDoublesSortAsIntegersUntilOneIsNot(ascending: Bool) throws {
    var generator = SeededGenerator(seed: 11)
    let store = try Self.store(copies: 0)
    let edges: [Value] = [
      .double(-0.0), .double(0), .double(9_007_199_254_740_992), .double(-9_007_199_254_740_992), .null, .double(-1),
    ]
    for id in 0..<1_000 {
      let d =
        id < edges.count
        ? edges[id] : .double(Double(Int64.random(in: -1_000_000...1_000_000, using: &generator) * 86_400))
      try store.load(entity: "T", id: Int64(5_000 - id), values: [.null, d, .null])
    }
    let request = try FetchRequest(entityName: "T", sortDescriptors: [SortDescriptor("d", ascending: ascending)])
      .resolve(in: Self.model)
    for value in [0.5, 7.0] {
      let expected = try Self.expected(store, "d", ascending: ascending)
      #expect(try store.fetchIDs(request) == expected)
      #expect(try store.fetchObjects(request).map(\.id) == expected)
      try store.commit([.update(entity: "T", id: 4_990, values: ["d": .double(value)])])
    }
    #expect(try store.fetchIDs(request) == (try Self.expected(store, "d", ascending: ascending)))
  }

  /// Keys packed by the bounds their columns keep as rows are written: dates at whole days
  /// (their low bits shared, nulls a day below the least), through a to-one join whose
  /// destination is missing for some rows, both directions. The order is `Value.compare`'s
  /// after the load, after updates past both ends of the bounds, after deletes (the rows then
  /// listed, not taken whole), after an insert, and under a predicate.
  @Test(arguments: [true, false])
  func packedKeysFollowTheColumnsBoundsThroughWrites(ascending: Bool) throws {
    let model = Model(entities: [
      Entity(
        name: "A", table: "a",
        attributes: [
          Attribute("day", .date, optional: true), Attribute("bID", column: "b_id", .integer, optional: true),
        ],
        relationships: [Relationship("b", to: "B", sourceColumn: "b_id", destinationColumn: "id")]),
      Entity(name: "B", table: "b", attributes: [Attribute("day", .date)]),
    ])
    var generator = SeededGenerator(seed: 3)
    let store = MemoryStore(model: model)
    func day() -> Value { .date(Double(Int64.random(in: 10_000...10_400, using: &generator) * 86_400)) }
    for id in 1...1_500 { try store.load(entity: "B", id: Int64(id), values: [day()]) }
    for id in 1...3_000 {
      let b: Value =
        Int.random(in: 0..<10, using: &generator) == 0
        ? .integer(9_999) : .integer(Int64.random(in: 1...1_500, using: &generator))
      try store.load(
        entity: "A", id: Int64(id), values: [Int.random(in: 0..<10, using: &generator) == 0 ? .null : day(), b])
    }
    func check(_ key: String, _ step: String, predicate: String? = nil) throws {
      var request = FetchRequest(entityName: "A", sortDescriptors: [SortDescriptor(key, ascending: ascending)])
      if let predicate { request.predicate = try QueryParser.predicate(predicate) }
      let resolved = try request.resolve(in: model)
      // The reference: every row read through `fetchObjects`' row plan, the key by hand.
      let days = Dictionary(
        uniqueKeysWithValues: try store.fetchObjects(try FetchRequest(entityName: "B").resolve(in: model)).map {
          ($0.id, $0.values[0])
        })
      let rows = try store.fetchObjects(resolved)
      func value(_ o: FetchedObject) -> Value {
        guard key != "day" else { return o.values[0] }
        if case .integer(let b) = o.values[1] { return days[b] ?? .null }
        return .null
      }
      let expected = rows.sorted { a, b in
        let c = Value.compare(value(a), value(b))
        return c != 0 ? (ascending ? c < 0 : c > 0) : a.id < b.id
      }.map(\.id)
      #expect(try store.fetchIDs(resolved) == expected, "\(key), \(step)")
    }
    for key in ["day", "b.day"] { try check(key, "loaded") }
    try store.commit([
      .update(entity: "A", id: 7, values: ["day": .date(-86_400 * 40_000)]),
      .update(entity: "A", id: 8, values: ["day": .date(86_400 * 90_000)]),
      .update(entity: "B", id: 9, values: ["day": .date(86_400 * 3)]),
    ])
    for key in ["day", "b.day"] { try check(key, "updated past the bounds") }
    try store.commit((20..<60).map { .delete(entity: "A", id: Int64($0)) } + [.delete(entity: "B", id: 11)])
    for key in ["day", "b.day"] { try check(key, "deleted") }
    try store.commit([.insert(entity: "A", values: ["day": .date(86_400 * 5), "bID": .integer(12)])])
    for key in ["day", "b.day"] {
      try check(key, "inserted")
      try check(key, "filtered", predicate: "bID < 700")
    }
  }

  /// A key through a one-to-one join of every row (the banks' `details.closeDate`: the
  /// destination holds the source's ID, its rows in another order) is read in the
  /// destination's order and scattered: the order is `Value.compare`'s, both directions, while
  /// the join pairs every row, after a delete of a pair (rows then listed), and after one
  /// source row loses its destination row.
  @Test(arguments: [true, false])
  func keysThroughAOneToOneJoinOfEveryRowSortAsValueCompare(ascending: Bool) throws {
    let model = Model(entities: [
      Entity(
        name: "Info", table: "info", attributes: [Attribute("name", .string)],
        relationships: [Relationship("details", to: "Details", sourceColumn: "id", destinationColumn: "info_id")]),
      Entity(
        name: "Details", table: "details",
        attributes: [Attribute("infoID", column: "info_id", .integer), Attribute("day", .date)]),
    ])
    var generator = SeededGenerator(seed: 5)
    let store = MemoryStore(model: model)
    let n = 2_000
    for id in 1...n { try store.load(entity: "Info", id: Int64(id), values: [.string("i\(id)")]) }
    for d in 1...n {
      // An affine bijection, as the generator's: details rows are not in info order.
      let info = (d - 1) * 7_919 % n + 1
      let day = Value.date(Double(Int64.random(in: 10_000...10_100, using: &generator) * 86_400))
      try store.load(entity: "Details", id: Int64(d), values: [.integer(Int64(info)), day])
    }
    let request = try FetchRequest(
      entityName: "Info", sortDescriptors: [SortDescriptor("details.day", ascending: ascending)]
    )
    .resolve(in: model)
    func check(_ step: String) throws {
      let days = Dictionary(
        uniqueKeysWithValues: try store.fetchObjects(try FetchRequest(entityName: "Details").resolve(in: model)).map {
          o -> (Int64, Value) in
          guard case .integer(let info) = o.values[0] else { return (-1, .null) }
          return (info, o.values[1])
        })
      let expected = try store.fetchObjects(request).map(\.id).sorted { a, b in
        let c = Value.compare(days[a] ?? .null, days[b] ?? .null)
        return c != 0 ? (ascending ? c < 0 : c > 0) : a < b
      }
      #expect(try store.fetchIDs(request) == expected, "\(step)")
    }
    try check("every row paired")
    try store.commit([.delete(entity: "Info", id: 17), .delete(entity: "Details", id: 3)])
    try check("a pair deleted")
    try store.commit([.update(entity: "Details", id: 9, values: ["infoID": .integer(999_999)])])
    try check("a row unpaired")
  }

  /// A window near the top of the list is selected, not sorted (`smallest`): every window of
  /// the 800 edge rows, in each key's order and both directions, is the full order's slice,
  /// on both sides of the eighth where selection gives way to the sort.
  @Test(arguments: ["n", "d", "s"], [true, false])
  func windowsAreSlicesOfTheFullOrder(key: String, ascending: Bool) throws {
    let store = try Self.store(copies: 100)
    let expected = try Self.expected(store, key, ascending: ascending)
    for (offset, limit) in [
      (0, 1), (0, 20), (7, 13), (80, 20), (99, 1), (100, 1), (0, 100), (300, 20), (790, 20), (800, 5), (900, 5),
    ] {
      let request = FetchRequest(
        entityName: "T", sortDescriptors: [SortDescriptor(key, ascending: ascending)], fetchLimit: limit,
        fetchOffset: offset)
      let ids = try store.fetchObjects(try request.resolve(in: Self.model)).map(\.id)
      let end = min(offset + limit, expected.count)
      #expect(ids == (offset < end ? Array(expected[offset..<end]) : []), "offset \(offset), limit \(limit)")
    }
  }

  /// `smallest` against the sort's prefix: elements in random, ascending and descending order
  /// (every element enters the heap), with duplicates, and m from 0 past the count.
  @Test func smallestIsTheSortedPrefix() {
    var generator = SystemRandomNumberGenerator()
    let random = (0..<2_000).map { _ in Int.random(in: 0..<500, using: &generator) }
    for elements in [random, random.sorted(), random.sorted(by: >), []] {
      for m in [0, 1, 2, 19, 20, 250, 1_999, 2_000, 3_000] {
        #expect(smallest(m, of: elements, by: <) == Array(elements.sorted().prefix(m)), "m \(m)")
        #expect(smallest(m, of: elements, by: >) == Array(elements.sorted(by: >).prefix(m)), "m \(m), descending")
      }
    }
  }
}

/// SplitMix64: the same sequence on every run, so that a failure can be replayed.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
