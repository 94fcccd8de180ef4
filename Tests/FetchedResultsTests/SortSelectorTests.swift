import Catalog
import Collation
import DatasetStores
import FetchedResults
import Foundation
import Testing
import Vocabulary

/// NSSortDescriptor's selectors: banks renamed to names with case, accents, digits and scripts
/// beyond Latin (some twice, so the ID breaks ties) list, on the memory store and SQLite, in
/// full, batched, offset and keyset reads and both directions, in the order Foundation's
/// comparison with each selector's options gives in the test; a controller tracking the list
/// keeps that order through renames.
@Suite struct SortSelectors {
  static let names = [
    "item 10", "item 2", "Item 3", "apple", "Zebra", "école", "ecole", "Ecole", "éclair", "zoo", "Ärger", "arg", "ß",
    "ss", "東京", "Москва", "abc", "ABC", "a-b", "ab", "", "1", "01", "item 2", "apple", "ＡＢＣ",
  ]
  static let locale = Locale(identifier: "en_US")

  /// Foundation's comparison as an app's selector makes it, written here apart from the code
  /// under test.
  static func foundation(_ selector: SortSelector, _ a: String, _ b: String) -> ComparisonResult {
    switch selector {
    case .compare:
      return a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
    case .caseInsensitiveCompare: return a.caseInsensitiveCompare(b)
    case .localizedCompare: return a.compare(b, options: [], range: nil, locale: locale)
    case .localizedCaseInsensitiveCompare: return a.compare(b, options: .caseInsensitive, range: nil, locale: locale)
    case .localizedStandardCompare:
      // Without `.widthInsensitive`, as FetchBench compares (see the canary below).
      return a.compare(b, options: [.caseInsensitive, .numeric, .forcedOrdering], range: nil, locale: locale)
    }
  }

  /// The canary for the one option FetchBench's `localizedStandardCompare:` leaves out:
  /// Foundation's width-insensitive comparison orders ＡＢＣ after Ärger and Ärger after ＡＢＣ
  /// here, so no sort can follow it. When this fails, Foundation is consistent: compare with
  /// `.widthInsensitive` again, as Apple's `localizedStandardCompare:` does.
  @Test func foundationsWidthInsensitiveComparisonIsNotAntisymmetricHere() {
    let options: String.CompareOptions = [.caseInsensitive, .numeric, .widthInsensitive, .forcedOrdering]
    let x = "ＡＢＣ".compare("Ärger", options: options, range: nil, locale: Self.locale)
    let y = "Ärger".compare("ＡＢＣ", options: options, range: nil, locale: Self.locale)
    #expect(x == y, "\(x.rawValue) \(y.rawValue)")
  }

  /// Renames the store's first banks to `names`, and returns every bank's (ID, name).
  static func renamed(_ store: any Store, to names: [String] = names) throws -> [(Int64, String?)] {
    let all = try FetchRequest(entityName: "FailedBankInfo", sortDescriptors: [SortDescriptor("id")])
      .resolve(in: store.model)
    let ids = try store.fetchIDs(all)
    try store.commit(zip(ids, names).map { .update(entity: "FailedBankInfo", id: $0, values: ["name": .string($1)]) })
    let name = try #require(store.model.entity("FailedBankInfo").attributeIndex("name"))
    return try store.fetchObjects(all).map { o in
      if case .string(let s) = o.values[name] { (o.id, s) } else { (o.id, nil) }
    }
  }

  static func expected(_ rows: [(Int64, String?)], _ selector: SortSelector, ascending: Bool) -> [Int64] {
    rows.sorted { x, y in
      let c: ComparisonResult =
        switch (x.1, y.1) {
        case (nil, nil): .orderedSame
        case (nil, _): .orderedAscending
        case (_, nil): .orderedDescending
        case (let a?, let b?): foundation(selector, a, b)
        }
      if c == .orderedSame { return x.0 < y.0 }
      return (c == .orderedAscending) == ascending
    }.map(\.0)
  }

  @Test(arguments: [StoreKind.memory, .sqlite])
  func everyReadListsInFoundationsOrder(store kind: StoreKind) throws {
    let store = try writableStore(kind)
    let rows = try Self.renamed(store)
    for selector in SortSelector.allCases {
      for ascending in [true, false] {
        let request = FetchRequest(
          entityName: "FailedBankInfo",
          sortDescriptors: [SortDescriptor("name", ascending: ascending, selector: selector)])
        let expected = Self.expected(rows, selector, ascending: ascending)
        let what = "\(kind) \(selector.rawValue) \(ascending ? "asc" : "desc")"
        for batch in [0, 20] {
          var r = request
          r.fetchBatchSize = batch
          let c = FetchedResultsController(fetchRequest: r, store: store)
          try c.performFetch()
          #expect(c.fetchedIDs == expected, "\(what), batch \(batch)")
        }
        for strategy in PagingStrategy.allCases {
          let paged = try Pager(request, store: store, pageSize: 7).all(strategy).map(\.id)
          #expect(paged == expected, "\(what), \(strategy)")
        }
      }
    }
  }

  /// PostgreSQL orders `localizedCompare:` through its predefined ICU collation of the locale
  /// (`"en-US-x-icu"`), in every read, in an order Foundation's comparison allows: where
  /// Foundation finds two names different, they come in its order; where it finds them equal
  /// (`ABC` and the full-width `ＡＢＣ`), ICU's deterministic collation still orders them, so
  /// they need not come by ID as on the other stores. The selectors that need a collation of
  /// their own it refuses.
  @Test func postgreSQLOrdersLocalizedCompareAsFoundationAllows() throws {
    let store = try writableStore(.postgres)
    let rows = try Self.renamed(store)
    let names = Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) })
    func allowed(_ ids: [Int64], ascending: Bool) -> Bool {
      zip(ids, ids.dropFirst()).allSatisfy { a, b in
        guard let x = names[a]!, let y = names[b]! else { return names[a]! == nil || names[b]! != nil }
        let c = Self.foundation(.localizedCompare, x, y)
        return c == .orderedSame || (c == .orderedAscending) == ascending
      }
    }
    var differences: Set<String> = []
    for ascending in [true, false] {
      let request = FetchRequest(
        entityName: "FailedBankInfo",
        sortDescriptors: [SortDescriptor("name", ascending: ascending, selector: .localizedCompare)])
      let expected = Self.expected(rows, .localizedCompare, ascending: ascending)
      var reads: [[Int64]] = []
      for batch in [0, 20] {
        var r = request
        r.fetchBatchSize = batch
        let c = FetchedResultsController(fetchRequest: r, store: store)
        try c.performFetch()
        reads.append(c.fetchedIDs)
      }
      for strategy in PagingStrategy.allCases {
        reads.append(try Pager(request, store: store, pageSize: 7).all(strategy).map(\.id))
      }
      for ids in reads {
        #expect(Set(ids) == Set(expected) && allowed(ids, ascending: ascending), "\(ascending ? "asc" : "desc")")
        #expect(ids == reads[0], "every read the same order")
        for (a, b) in zip(ids, expected) where a != b { differences.insert(names[a]!!) }
      }
    }
    // The one pair of this list Foundation finds equal and ICU orders.
    #expect(differences == ["ABC", "ＡＢＣ"], "\(differences)")
    for selector in [SortSelector.caseInsensitiveCompare, .localizedCaseInsensitiveCompare, .localizedStandardCompare] {
      let request = try FetchRequest(
        entityName: "FailedBankInfo", sortDescriptors: [SortDescriptor("name", selector: selector)]
      ).resolve(in: store.model)
      #expect(throws: FetchError.self, "\(selector)") { try store.fetchIDs(request) }
    }
  }

  /// Tracked under `localizedStandardCompare:`: renames move rows where Foundation's order
  /// puts them, and the list equals a fresh fetch after each save.
  @Test(arguments: [StoreKind.memory, .sqlite])
  func aTrackedListKeepsTheSelectorsOrder(store kind: StoreKind) throws {
    let store = try writableStore(kind)
    _ = try Self.renamed(store)
    let request = FetchRequest(
      entityName: "FailedBankInfo", sortDescriptors: [SortDescriptor("name", selector: .localizedStandardCompare)],
      fetchBatchSize: 20)
    let controller = FetchedResultsController(fetchRequest: request, store: store)
    let recorder = Recorder()
    controller.delegate = recorder
    try controller.performFetch()
    let ids = controller.fetchedIDs
    for (k, name) in ["item 11", "Item 1", "ÉCOLE", "zz", "item 2"].enumerated() {
      try store.commit([.update(entity: "FailedBankInfo", id: ids[k * 37], values: ["name": .string(name)])])
      let fresh = FetchedResultsController(fetchRequest: request, store: store)
      try fresh.performFetch()
      #expect(controller.fetchedIDs == fresh.fetchedIDs, "after renaming to \(name)")
    }
    let all = try FetchRequest(entityName: "FailedBankInfo").resolve(in: store.model)
    let name = try #require(store.model.entity("FailedBankInfo").attributeIndex("name"))
    let rows = try store.fetchObjects(all).map { o -> (Int64, String?) in
      if case .string(let s) = o.values[name] { (o.id, s) } else { (o.id, nil) }
    }
    #expect(controller.fetchedIDs == Self.expected(rows, .localizedStandardCompare, ascending: true))
    #expect(recorder.changes.count == 5 && recorder.changes.allSatisfy { $0.moves.count + $0.reloads.count == 1 })
  }

  /// The locale decides: Swedish puts ä and ö after z, English beside a and o.
  @Test func theLocaleOrdersTheLetters() throws {
    let names = ["zebra", "ärlig", "apa", "Örn", "ost"]
    func order(_ locale: String) throws -> [String] {
      let model = Model(
        entities: [Entity(name: "P", table: "p", attributes: [Attribute("name", .string)])],
        collation: FoundationCollation(locale: locale))
      let store = MemoryStore(model: model)
      for (i, n) in names.enumerated() { try store.load(entity: "P", id: Int64(i + 1), values: [.string(n)]) }
      let request = try FetchRequest(
        entityName: "P", sortDescriptors: [SortDescriptor("name", selector: .localizedStandardCompare)]
      ).resolve(in: model)
      return try store.fetchIDs(request).map { names[Int($0) - 1] }
    }
    #expect(try order("en_US") == ["apa", "ärlig", "Örn", "ost", "zebra"])
    #expect(try order("sv_SE") == ["apa", "ost", "zebra", "ärlig", "Örn"])
  }

  /// A selector orders strings; on a number it is an error, and so is a selector FetchBench
  /// does not know.
  @Test func aSelectorOrdersStringsOnly() throws {
    let request = FetchRequest(
      entityName: "FailedBankDetails", sortDescriptors: [SortDescriptor("cert", selector: .localizedCompare)])
    #expect(throws: FetchError.self) { try request.resolve(in: DatasetModels.banks) }
    #expect(
      try QueryParser.sortDescriptors("name asc localizedStandardCompare:, state desc")
        == [SortDescriptor("name", selector: .localizedStandardCompare), SortDescriptor("state", ascending: false)])
    #expect(
      try QueryParser.sortDescriptors("name caseInsensitiveCompare") == [
        SortDescriptor("name", selector: .caseInsensitiveCompare)
      ])
    #expect(throws: FetchError.self) { try QueryParser.sortDescriptors("name asc naturalCompare:") }
  }
}
