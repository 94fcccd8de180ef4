import Catalog
import DatasetStores
import FetchedResults
import Foundation
import TestSupport
import Testing
import Vocabulary

/// NSPredicate's `[c]`, `[d]` and `[cd]`: on names with case, accents, ligatures and scripts
/// beyond Latin, each string operator selects on every store the rows Foundation's folding
/// selects, computed in the test; PostgreSQL folds case by `lower()` and refuses `[d]`.
@Suite struct TextFolds {
  static let names = [
    "Café", "CAFE", "café au lait", "Cafeteria", "STRASSE", "Straße", "École", "ecole", "ÉCOLE du Nord", "東京",
    "Москва", "москва", "Ǆemal", "ǆemal", "a[b]c", "A[B]C", "50% off", "item_1",
  ]

  /// The predicates, each with the test's own evaluation of it on a name.
  /// `postgres`: case folded as PostgreSQL's `lower()` folds it under the server's C.UTF-8
  /// ctype, a lowercase mapping (ß stays ß), which Swift's `lowercased()` gives on these names.
  static func cases(postgres: Bool = false) -> [(predicate: String, matches: (String) -> Bool)] {
    func folded(_ s: String, _ options: String.CompareOptions) -> String {
      postgres && options == .caseInsensitive ? s.lowercased() : s.folding(options: options, locale: nil)
    }
    func op(
      _ text: String, _ pattern: String, _ options: String.CompareOptions, _ test: @escaping (String, String) -> Bool
    ) -> (String, (String) -> Bool) {
      (text, { test(folded($0, options), folded(pattern, options)) })
    }
    let c: String.CompareOptions = .caseInsensitive
    let d: String.CompareOptions = .diacriticInsensitive
    let cd: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
    func bytes(_ a: String, _ b: String) -> Bool { Array(a.utf8) == Array(b.utf8) }
    return [
      op("name ==[c] 'cafe'", "cafe", c, bytes),
      op("name ==[d] 'Cafe'", "Cafe", d, bytes),
      op("name ==[cd] 'cafe'", "cafe", cd, bytes),
      op("name BEGINSWITH[cd] 'cafe'", "cafe", cd) { $0.utf8.starts(with: $1.utf8) },
      op("name CONTAINS[c] 'ss'", "ss", c) { $0.contains($1) },
      op("name ENDSWITH[d] 'ecole'", "ecole", d) { $0.hasSuffix($1) },
      op("name CONTAINS[cd] 'ECOLE'", "ECOLE", cd) { $0.contains($1) },
      op("name BEGINSWITH[c] 'МОСК'", "МОСК", c) { $0.utf8.starts(with: $1.utf8) },
      op("name BEGINSWITH[c] 'ǅ'", "ǅ", c) { $0.utf8.starts(with: $1.utf8) },
      op("name LIKE[c] 'a[b]*'", "a[b]*", c) { x, p in x.utf8.starts(with: "a[b]".utf8) },
      op("name LIKE[cd] '?cole*'", "?cole*", cd) { x, _ in x.count >= 5 && x.dropFirst().hasPrefix("cole") },
      ("NOT (name !=[c] 'straße')", { folded($0, c) == folded("straße", c) }),
    ]
  }

  @Test(arguments: [StoreKind.memory, .sqlite, .sqliteCoreData, .postgres])
  func eachModifierSelectsWhatFoundationsFoldingSelects(store kind: StoreKind) throws {
    let store = try writableStore(kind)
    let rows = try SortSelectors.renamed(store, to: Self.names)
    for (text, matches) in Self.cases(postgres: kind == .postgres) {
      let expected = rows.filter { $0.1.map(matches) ?? false }.map(\.0)
      #expect(!expected.isEmpty, "\(text) selects no name: the case tests nothing")
      let request = FetchRequest(
        entityName: "FailedBankInfo", predicate: try QueryParser.predicate(text),
        sortDescriptors: [SortDescriptor("id")])
      let resolved = try request.resolve(in: store.model)
      if kind == .postgres && resolved.predicate?.folds.contains(.diacriticInsensitive) == true {
        #expect(throws: FetchError.self, "\(text)") { try store.fetchIDs(resolved) }
        continue
      }
      #expect(try store.fetchIDs(resolved) == expected, "\(kind): \(text)")
    }
  }
}
