import FetchedResults

/// A failed bank as a cell shows it: FailedBankInfo with its details, as the seeds map
/// managed objects to Mantle models. Built from a row on access.
public struct FailedBank: TypedRow, Sendable, Equatable, Codable {
  public var id: Int64
  public var name: String
  public var city: String
  public var state: String
  public var closeDate: Double?
  public var updatedDate: Double?
  public var zip: String?
  public var acquiringInstitution: String?

  /// Where the fields sit in a row layout; computed once per layout, not per row.
  public struct Indexes: Sendable {
    let name, city, state: Int
    let closeDate, updatedDate, zip, acquirer: Int?
    public init(_ layout: RowLayout) throws {
      func req(_ k: String) throws -> Int { try layout.requiredIndex(of: k, for: "FailedBank") }
      name = try req("name")
      city = try req("city")
      state = try req("state")
      closeDate = layout.index(of: "details.closeDate")
      updatedDate = layout.index(of: "details.updatedDate")
      zip = layout.index(of: "details.zip")
      acquirer = layout.index(of: "details.acquiringInstitution")
    }
  }

  /// The direct mapping: O(fields), no dictionary, no Codable.
  public init(_ o: FetchedObject, _ ix: Indexes) {
    id = o.id
    name = o.values[ix.name].stringValue ?? ""
    city = o.values[ix.city].stringValue ?? ""
    state = o.values[ix.state].stringValue ?? ""
    closeDate = ix.closeDate.flatMap { o.values[$0].numeric }
    updatedDate = ix.updatedDate.flatMap { o.values[$0].numeric }
    zip = ix.zip.flatMap { o.values[$0].stringValue }
    acquiringInstitution = ix.acquirer.flatMap { o.values[$0].stringValue }
  }

  enum CodingKeys: String, CodingKey {
    case id, name, city, state
    case closeDate = "details.closeDate"
    case updatedDate = "details.updatedDate"
    case zip = "details.zip"
    case acquiringInstitution = "details.acquiringInstitution"
  }
}

/// An oil or gas well as a cell shows it.
public struct Well: TypedRow, Sendable, Equatable, Codable {
  public var id: Int64
  public var apiNumber: String
  public var wellName: String
  public var `operator`: String
  public var county: String
  public var state: String
  public var spudDate: Double?
  public var status: String
  public var totalDepth: Int64?

  public struct Indexes: Sendable {
    let api, name, op, county, state, spud, status, depth: Int
    public init(_ layout: RowLayout) throws {
      func req(_ k: String) throws -> Int { try layout.requiredIndex(of: k, for: "Well") }
      api = try req("apiNumber")
      name = try req("wellName")
      op = try req("operator")
      county = try req("county")
      state = try req("state")
      spud = try req("spudDate")
      status = try req("status")
      depth = try req("totalDepth")
    }
  }

  public init(_ o: FetchedObject, _ ix: Indexes) {
    id = o.id
    apiNumber = o.values[ix.api].stringValue ?? ""
    wellName = o.values[ix.name].stringValue ?? ""
    `operator` = o.values[ix.op].stringValue ?? ""
    county = o.values[ix.county].stringValue ?? ""
    state = o.values[ix.state].stringValue ?? ""
    spudDate = o.values[ix.spud].numeric
    status = o.values[ix.status].stringValue ?? ""
    if case .integer(let d) = o.values[ix.depth] { totalDepth = d } else { totalDepth = nil }
  }
}

extension RowLayout {
  /// The index of `key`, or an error saying that `model` needs it in the row.
  func requiredIndex(of key: String, for model: String) throws -> Int {
    guard let i = index(of: key) else { throw FetchError.invalidRequest("a \(model) needs '\(key)' in the row") }
    return i
  }
}

extension Value {
  /// The string, if the value is one.
  public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
}

/// A dataset's row as a cell shows it, mapped from a fetched row by its direct initializer
/// (field positions computed once per layout) or through `Decodable`.
public protocol TypedRow: Decodable {
  associatedtype Indexes
  static func indexes(_ layout: RowLayout) throws -> Indexes
  init(_ object: FetchedObject, _ ix: Indexes)
  /// The text a cell shows first.
  var title: String { get }
}

extension TypedRow {
  /// Maps `objects` one way or the other and returns the UTF-8 length of their titles, so
  /// that no mapping is optimised away. O(objects).
  public static func map(_ objects: [FetchedObject], codable: Bool) throws -> Int {
    guard let layout = objects.first?.layout else { return 0 }
    var sink = 0
    if codable {
      let decoder = FetchedObjectDecoder()
      for o in objects { sink &+= try decoder.decode(Self.self, from: o).title.utf8.count }
    } else {
      let ix = try indexes(layout)
      for o in objects { sink &+= Self(o, ix).title.utf8.count }
    }
    return sink
  }
}

extension FailedBank {
  public static func indexes(_ layout: RowLayout) throws -> Indexes { try Indexes(layout) }
  public var title: String { name }
}

extension Well {
  public static func indexes(_ layout: RowLayout) throws -> Indexes { try Indexes(layout) }
  public var title: String { wellName }
}
