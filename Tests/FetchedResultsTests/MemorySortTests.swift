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
    let ints: [Value] = [.null, .integer(.min), .integer(.max), .integer(0), .integer(-1), .integer(1), .null, .integer(.min)]
    let doubles: [Value] = [.double(-0.0), .double(0), .null, .double(-.infinity), .double(.infinity), .double(-1e-300), .double(5), .null]
    let strings: [Value] = [.string("b"), .string(""), .null, .string("é"), .string("e"), .string("B"), .string("b"), .null]
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
    let request = FetchRequest(entityName: "T", sortDescriptors: [SortDescriptor(key, ascending: ascending)], fetchBatchSize: 3)
    let ids = try store.fetchIDs(try request.resolve(in: Self.model))
    #expect(ids == (try Self.expected(store, key, ascending: ascending)))
    // Sections by the same key: one per distinct value, in that order, counts adding up.
    var sectioned = request
    sectioned.sectionNameKeyPath = key
    let sections = try store.sectionCounts(try sectioned.resolve(in: Self.model))
    #expect(sections.reduce(0) { $0 + $1.count } == ids.count)
    let values = sections.map(\.value)
    #expect(zip(values, values.dropFirst()).allSatisfy { ascending ? Value.compare($0, $1) < 0 : Value.compare($0, $1) > 0 })
  }

  /// Past 16,384 rows the radix sort splits by the most significant varying byte first, then
  /// sorts each part by its low bytes: 40,000 random rows (few distinct integers, so long runs
  /// of ties by ID; doubles of every sign and size; strings; nulls) and 10 copies of the edge
  /// rows' 4,000 more come out in `Value.compare`'s order, each key, both directions.
  @Test(arguments: ["n", "d", "s"], [true, false])
  func longListsSortAsValueCompare(key: String, ascending: Bool) throws {
    var generator = SeededGenerator(seed: 7)
    let store = try Self.store(copies: 500)
    let strings = (0..<30).map { _ in
      String((0..<Int.random(in: 0...6, using: &generator)).map { _ in "abcé"[...].randomElement(using: &generator)! })
    }
    for id in 0..<40_000 {
      let n: Value = Int.random(in: 0..<10, using: &generator) == 0 ? .null : .integer(Int64.random(in: -20..<20, using: &generator))
      // Any bit pattern but NaN: every sign, exponent and subnormal.
      let bits = Double(bitPattern: generator.next())
      let d: Value = Int.random(in: 0..<10, using: &generator) == 0 ? .null : .double(bits.isNaN ? 0 : bits)
      let s: Value = Int.random(in: 0..<10, using: &generator) == 0 ? .null : .string(strings.randomElement(using: &generator)!)
      try store.load(entity: "T", id: Int64(100_000 + id), values: [n, d, s])
    }
    let request = FetchRequest(entityName: "T", sortDescriptors: [SortDescriptor(key, ascending: ascending)], fetchBatchSize: 20)
    let ids = try store.fetchIDs(try request.resolve(in: Self.model))
    #expect(ids.count == 44_000)
    #expect(ids == (try Self.expected(store, key, ascending: ascending)))
  }

  /// A window near the top of the list is selected, not sorted (`smallest`): every window of
  /// the 800 edge rows, in each key's order and both directions, is the full order's slice,
  /// on both sides of the eighth where selection gives way to the sort.
  @Test(arguments: ["n", "d", "s"], [true, false])
  func windowsAreSlicesOfTheFullOrder(key: String, ascending: Bool) throws {
    let store = try Self.store(copies: 100)
    let expected = try Self.expected(store, key, ascending: ascending)
    for (offset, limit) in [(0, 1), (0, 20), (7, 13), (80, 20), (99, 1), (100, 1), (0, 100), (300, 20), (790, 20), (800, 5), (900, 5)] {
      let request = FetchRequest(
        entityName: "T", sortDescriptors: [SortDescriptor(key, ascending: ascending)], fetchLimit: limit, fetchOffset: offset)
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
