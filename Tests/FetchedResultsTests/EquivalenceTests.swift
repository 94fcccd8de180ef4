import Catalog
import Datasets
import FetchedResults
import Foundation
import TestSupport
import Testing

/// One request of the equivalence matrix, in the command line's text form.
struct RequestCase: CustomTestStringConvertible, Sendable {
  var kind: DatasetKind
  var entity: String
  var sort: String
  var section: String? = nil
  var predicate: String? = nil
  var limit = 0
  var offset = 0
  var prefetch: [String] = []

  var testDescription: String {
    "\(kind) \(entity) sort[\(sort)]" + (section.map { " section[\($0)]" } ?? "")
      + (predicate.map { " where[\($0)]" } ?? "") + (limit > 0 ? " limit \(limit)" : "")
      + (offset > 0 ? " offset \(offset)" : "")
  }

  func request(batchSize: Int) throws -> FetchRequest {
    FetchRequest(
      entityName: entity, predicate: try predicate.map { try QueryParser.predicate($0) },
      sortDescriptors: try QueryParser.sortDescriptors(sort), sectionNameKeyPath: section,
      fetchBatchSize: batchSize, fetchLimit: limit, fetchOffset: offset,
      relationshipKeyPathsForPrefetching: prefetch)
  }

  static let all: [RequestCase] = {
    var cases: [RequestCase] = []
    // A sort on every attribute and to-one key path, both directions.
    let bankKeys =
      ["name", "city", "state"]
      + ["closeDate", "updatedDate", "zip", "cert", "acquiringInstitution", "fund", "infoID"].map { "details.\($0)" }
    for k in bankKeys {
      for dir in ["asc", "desc"] {
        cases.append(RequestCase(kind: .banks, entity: "FailedBankInfo", sort: "\(k) \(dir)", prefetch: ["details"]))
      }
    }
    let wellKeys = [
      "apiNumber", "wellName", "operator", "field", "county", "state", "latitude", "longitude", "spudDate", "status",
      "wellType",
      "totalDepth",
    ]
    for k in wellKeys {
      for dir in ["asc", "desc"] { cases.append(RequestCase(kind: .wells, entity: "Well", sort: "\(k) \(dir)")) }
    }
    cases += [
      RequestCase(kind: .banks, entity: "FailedBankInfo", sort: "state asc, name asc", section: "state"),
      RequestCase(
        kind: .banks, entity: "FailedBankInfo", sort: "state desc, details.closeDate desc", section: "state",
        prefetch: ["details"]),
      RequestCase(kind: .banks, entity: "FailedBankInfo", sort: "details.closeDate desc", section: "details.closeDate"),
      RequestCase(
        kind: .banks, entity: "FailedBankInfo", sort: "details.closeDate desc",
        predicate: "state IN {'TX','CA'} AND details.closeDate > 2009-01-01", prefetch: ["details"]),
      RequestCase(
        kind: .banks, entity: "FailedBankInfo", sort: "name asc",
        predicate: "name BEGINSWITH 'First' OR city CONTAINS 'San'"),
      RequestCase(
        kind: .banks, entity: "FailedBankInfo", sort: "city asc", section: nil,
        predicate: "NOT (details.acquiringInstitution = 'No Acquirer') AND details.cert BETWEEN {1000, 20000}"),
      RequestCase(
        kind: .banks, entity: "FailedBankInfo", sort: "name asc",
        predicate: "name ENDSWITH 'Bank' OR city LIKE 'San*' OR name LIKE '*a?e*'"),
      // LIKE's other wildcards taken literally: SQLite's `[`, PostgreSQL's `%` and `_`.
      RequestCase(
        kind: .banks, entity: "FailedBankInfo", sort: "name desc",
        predicate: "name LIKE '*%*' OR name LIKE '*_*' OR name LIKE '[A-Z]*' OR city ENDSWITH ''"),
      RequestCase(kind: .banks, entity: "FailedBankInfo", sort: "details.zip asc", limit: 100, offset: 50),
      RequestCase(
        kind: .banks, entity: "FailedBankInfo", sort: "state asc", section: "state", limit: 500, offset: 1000),
      RequestCase(kind: .banks, entity: "FailedBankInfo", sort: "name asc", predicate: "state = 'ZZ'"),
      RequestCase(
        kind: .banks, entity: "FailedBankDetails", sort: "info.state asc, closeDate desc", section: "info.state",
        prefetch: ["info"]),
      RequestCase(
        kind: .banks, entity: "FailedBankDetails", sort: "info.name desc",
        predicate: "info.city != 'Houston' && closeDate <= 1992-12-31T23:59:59Z"),
      RequestCase(kind: .wells, entity: "Well", sort: "state asc, spudDate desc", section: "state"),
      RequestCase(kind: .wells, entity: "Well", sort: "field asc", section: "field"),
      RequestCase(
        kind: .wells, entity: "Well", sort: "field desc", section: "field",
        predicate: "field = nil OR field BEGINSWITH 'S'"),
      RequestCase(kind: .wells, entity: "Well", sort: "totalDepth desc", predicate: "NOT (totalDepth > 5000)"),
      RequestCase(
        kind: .wells, entity: "Well", sort: "spudDate asc",
        predicate: "spudDate BETWEEN {1980-01-01, 1990-01-01} AND status IN {'Active','Plugged'} AND state != 'TX'"),
      RequestCase(
        kind: .wells, entity: "Well", sort: "latitude desc", predicate: "latitude >= 35.5 OR longitude < -100",
        limit: 250),
      RequestCase(
        kind: .wells, entity: "Well", sort: "wellType asc", section: "wellType",
        predicate: "totalDepth IN {600, 601, 602, nil}"),
      RequestCase(kind: .wells, entity: "Well", sort: "spudDate desc", offset: 2_990),
      // [c]: both sides case-folded (PostgreSQL by lower(), the same on these names).
      RequestCase(
        kind: .banks, entity: "FailedBankInfo", sort: "name asc",
        predicate: "name CONTAINS[c] 'BANK OF' OR city BEGINSWITH[c] 'san' OR city ==[c] 'HOUSTON'"),
      RequestCase(
        kind: .wells, entity: "Well", sort: "wellName asc",
        predicate: "operator CONTAINS[c] 'energy' AND NOT (status !=[c] 'active') AND wellName LIKE[c] '*b ??-?'"),
    ]
    return cases
  }()
}

@Suite struct Equivalence {
  nonisolated(unsafe) static var referenceCache: [String: [Reference.Record]] = [:]
  static let cacheLock = NSLock()

  static func records(_ c: RequestCase) -> [Reference.Record] {
    cacheLock.lock()
    defer { cacheLock.unlock() }
    let key = "\(c.kind)-\(c.entity)"
    if let r = referenceCache[key] { return r }
    let r = Reference.records(c.kind, entity: c.entity)
    referenceCache[key] = r
    return r
  }

  /// Batched order = full order = the reference, section names and counts equal, batched rows
  /// equal full rows, on both stores.
  @Test(arguments: RequestCase.all, EngineFixture.withPostgres(["memory", "sqlite"]))
  func batchedEqualsFullEqualsReference(_ c: RequestCase, store storeType: String) throws {
    if storeType == "postgres" { try EngineFixture.shared.requirePostgres() }
    let expected = Reference.answer(try c.request(batchSize: 0), Self.records(c))
    let store = try EngineFixture.shared.store(c.kind, storeType)

    let full = FetchedResultsController(fetchRequest: try c.request(batchSize: 0), store: store)
    try full.performFetch()
    #expect(firstDifference(full.fetchedIDs, expected.ids) == nil, "full")

    let batched = FetchedResultsController(fetchRequest: try c.request(batchSize: 20), store: store)
    try batched.performFetch()
    #expect(firstDifference(batched.fetchedIDs, expected.ids) == nil, "batched")

    for controller in [full, batched] where c.section != nil || !expected.ids.isEmpty {
      #expect(controller.sections.map(\.numberOfObjects) == expected.sections.map(\.1))
      #expect(controller.sections.map(\.value) == expected.sections.map(\.0))
      #expect(controller.sections.map(\.name) == expected.sections.map { $0.0.sectionName })
    }
    // Every row, read through sections, is the same object in both modes.
    for (s, section) in batched.sections.enumerated() {
      for row in 0..<section.numberOfObjects {
        let path = RowPath(row: row, section: s)
        let a = try batched.object(at: path)
        let b = try full.object(at: path)
        guard a == b else {
          Issue.record("row \(path): batched \(a.id) differs from full \(b.id)")
          return
        }
      }
    }
    #expect(batched.batchArray!.invariantViolations() == [])
  }

  /// Constant predicates compile on every store (PostgreSQL takes no integer as a condition).
  @Test(arguments: EngineFixture.withPostgres(["memory", "sqlite"]))
  func constantPredicatesSelectAllOrNothing(store storeType: String) throws {
    if storeType == "postgres" { try EngineFixture.shared.requirePostgres() }
    let store = try EngineFixture.shared.store(.wells, storeType)
    for (constant, expected) in [(true, EngineFixture.rows), (false, 0)] {
      var request = DatasetModels.defaultRequest(for: .wells, batchSize: 0)
      request.predicate = .or([
        .constant(constant), .and([.constant(constant), .comparison("id", .less, .integer(0))]),
      ])
      let c = FetchedResultsController(fetchRequest: request, store: store)
      try c.performFetch()
      #expect(c.count == expected, "\(constant)")
    }
  }
}

/// Where two ID lists first differ, as a short message; nil when equal. Keeps a failure
/// readable instead of printing two lists of thousands of IDs.
func firstDifference(_ a: [Int64], _ b: [Int64]) -> String? {
  if let i = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) {
    return "position \(i): \(a[i]) vs \(b[i]) (counts \(a.count), \(b.count))"
  }
  return a.count == b.count ? nil : "counts differ: \(a.count) vs \(b.count)"
}
