import Catalog
import Datasets
import FetchedResults
import TestSupport
import Testing

/// The typed-model mappings agree with each other and with the rows, and the Codable path
/// fails clearly on what it cannot decode.
@Suite struct Mapping {
  @Test(arguments: [DatasetKind.banks, .wells])
  func codableEqualsTheDirectInitializerOnEveryRow(kind: DatasetKind) throws {
    let store = try EngineFixture.shared.store(kind, "sqlite")
    let c = FetchedResultsController(fetchRequest: DatasetModels.defaultRequest(for: kind, batchSize: 0), store: store)
    try c.performFetch()
    let decoder = FetchedObjectDecoder()
    let layout = try c.object(atGlobalIndex: 0).layout
    var optionalsSeen = 0
    for i in 0..<c.count {
      let o = try c.object(atGlobalIndex: i)
      switch kind {
      case .banks:
        let direct = FailedBank(o, try FailedBank.Indexes(layout))
        #expect(try decoder.decode(FailedBank.self, from: o) == direct)
        #expect(
          direct.id == o.id && direct.name == o["name"]?.stringValue
            && direct.closeDate == o["details.closeDate"]?.numeric)
      case .wells:
        let direct = Well(o, try Well.Indexes(layout))
        #expect(try decoder.decode(Well.self, from: o) == direct)
        #expect(direct.apiNumber == o["apiNumber"]?.stringValue && direct.spudDate == o["spudDate"]?.numeric)
        if direct.spudDate == nil || direct.totalDepth == nil { optionalsSeen += 1 }
      default: Issue.record("no typed model for \(kind)")
      }
    }
    if kind == .wells { #expect(optionalsSeen > 0, "the fixture exercises NULLs into optionals") }
  }

  struct NeedsMissingKey: Decodable {
    var id: Int64
    var nickname: String
  }
  struct NonOptionalNullable: Decodable {
    var id: Int64
    var totalDepth: Int64
  }
  struct WrongType: Decodable { var state: Int }
  enum Status: String, Decodable {
    case active = "ACTIVE"
    case plugged = "PLUGGED"
    case shutIn = "SHUT-IN"
    case permitted = "PERMITTED"
    case abandoned = "ABANDONED"
    case drilling = "DRILLING"
  }
  struct WithEnum: Decodable {
    var status: String
    var wellType: String
  }

  @Test func decodingErrorsNameTheKey() throws {
    let store = try EngineFixture.shared.store(.wells, "memory")
    let c = FetchedResultsController(
      fetchRequest: DatasetModels.defaultRequest(for: .wells, batchSize: 0), store: store)
    try c.performFetch()
    let decoder = FetchedObjectDecoder()
    let o = try c.object(atGlobalIndex: 0)
    #expect { try decoder.decode(NeedsMissingKey.self, from: o) } throws: { error in
      guard case DecodingError.keyNotFound(let key, _) = error else { return false }
      return key.stringValue == "nickname"
    }
    #expect { try decoder.decode(WrongType.self, from: o) } throws: { error in
      guard case DecodingError.typeMismatch(_, let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["state"]
    }
    let nullDepth = try (0..<c.count).map { try c.object(atGlobalIndex: $0) }.first { $0["totalDepth"] == .null }
    let withNull = try #require(nullDepth, "the fixture has a well without a total depth")
    #expect { try decoder.decode(NonOptionalNullable.self, from: withNull) } throws: { error in
      guard case DecodingError.valueNotFound(_, let context) = error else { return false }
      return context.debugDescription.contains("totalDepth' is NULL")
    }
    #expect(try decoder.decode(WithEnum.self, from: o).status == o["status"]?.stringValue)
  }
}
