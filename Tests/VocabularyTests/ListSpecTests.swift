import Catalog
import FetchedResults
import Foundation
import Testing
import Vocabulary

/// A list is parsed once, in the command's process, and crosses to a case's process as typed
/// parts: decoding it parses nothing and yields the request the parent checked.
@Suite struct ListSpecTests {
  static let text = ListSpec.Text(
    sort: "state asc, name asc localizedStandardCompare:", section: "state",
    predicate: """
      (state IN {'TX', 'CA'} OR NOT name BEGINSWITH[cd] %@) AND details.closeDate BETWEEN {2001-01-01, \
      2009-12-31} AND city != nil AND city != $CITY AND TRUEPREDICATE
      """, arguments: ["First"], variables: ["CITY": "Austin"], cells: ["name", "city"])

  @Test func aParsedListCrossesAProcessWithoutBeingParsedAgain() throws {
    let counter = ListSpec.ParseCounter()
    try ListSpec.$parseCounter.withValue(counter) {
      let list = try ListSpec(parsing: Self.text)
      #expect(counter.parses == 1)
      let sent = try JSONEncoder().encode(list)
      let received = try JSONDecoder().decode(ListSpec.self, from: sent)
      #expect(counter.parses == 1, "decoding a list must not parse it")
      #expect(received == list)
      let base = DatasetModels.defaultRequest(for: .banks)
      #expect(try received.apply(to: base, of: .banks) == list.apply(to: base, of: .banks))
      #expect(counter.parses == 1, "applying a list must not parse it")
    }
  }

  @Test func itsPartsReplaceTheDatasetListsOwnAndKeepTheRest() throws {
    let list = try ListSpec(parsing: Self.text)
    let base = DatasetModels.defaultRequest(for: .banks, batchSize: 20)
    let r = try list.apply(to: base, of: .banks)
    #expect(
      r.sortDescriptors == [
        SortDescriptor("state"), SortDescriptor("name", selector: .localizedStandardCompare),
      ])
    #expect(r.sectionNameKeyPath == "state")
    #expect(r.predicate == list.predicate && r.predicate != nil)
    #expect(r.fetchBatchSize == 20 && r.relationshipKeyPathsForPrefetching == base.relationshipKeyPathsForPrefetching)
    #expect(list.locale != nil, "a localized selector compares in a locale, recorded with the list")
    #expect(list.withoutSection.section == nil && list.withoutSection.sortDescriptors == list.sortDescriptors)
  }

  @Test func aListWithoutASortOrPredicateKeepsTheDatasets() throws {
    let list = try ListSpec(parsing: .init(cells: ["name"]))
    #expect(!list.changesList && list.sortDescriptors == nil && list.predicate == nil && list.locale == nil)
    let base = DatasetModels.defaultRequest(for: .banks)
    #expect(list.replacingParts(of: base) == base)
  }

  @Test func whatDoesNotParseIsTheParsersError() {
    #expect(throws: FetchError.self) { try ListSpec(parsing: .init(sort: "name sideways")) }
    #expect(throws: FetchError.self) { try ListSpec(parsing: .init(predicate: "name ==")) }
  }
}
