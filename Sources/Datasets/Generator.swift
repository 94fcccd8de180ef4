import Catalog
import FetchedResults

/// A value of one dataset field.
public enum FieldValue: Sendable, Equatable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
}

/// Produces the rows of one dataset: row `id` of a table is a pure function of
/// (dataset, seed, table, id, row count), so rows stream in any order with no state kept.
///
/// Distributions are skewed on purpose: sections are unequal and sort keys tie, as in the data
/// that apps really show (FDIC failure waves, Texas-heavy well counts).
public struct DatasetGenerator: Sendable {
  public let kind: DatasetKind
  public let rows: Int
  public let seed: UInt64
  /// The affine bijection `details.id → info_id` (banks): detail rows are not in info order,
  /// so a to-one join does real work, yet no permutation table is kept in memory.
  private let permMultiplier: Int
  private let permOffset: Int

  public init(kind: DatasetKind, rows: Int, seed: UInt64) {
    precondition(rows >= 1)
    self.kind = kind
    self.rows = rows
    self.seed = seed
    var a = max(1, rows * 618_034 / 1_000_000)
    while Self.gcd(a, rows) != 1 { a += 1 }
    permMultiplier = a % rows == 0 ? 1 : a
    var rng = SeededRandom(seed: seed, stream: 99, index: 0)
    permOffset = Int(rng.below(UInt64(rows)))
  }

  /// Fills `row` with the fields of row `id` (1-based) of table `table` (an index into
  /// `kind.tables`). O(columns).
  public func fill(table: Int, id: Int, into row: inout [FieldValue]) {
    row.removeAll(keepingCapacity: true)
    switch (kind, table) {
    case (.banks, 0): bankInfo(id, &row)
    case (.banks, _): bankDetails(id, &row)
    case (.wells, _): well(id, &row)
    }
  }

  /// The `info_id` of details row `detailsID`. A bijection of 1...rows. O(1).
  public func infoID(forDetails detailsID: Int) -> Int {
    ((detailsID - 1) * permMultiplier + permOffset) % rows + 1
  }

  // MARK: banks

  private func rng(_ stream: UInt64, _ id: Int) -> SeededRandom {
    SeededRandom(seed: seed, stream: stream, index: UInt64(id))
  }

  private func bankState(info id: Int) -> StateInfo {
    var r = rng(1, id)
    return States.all[States.bankChoice.draw(&r)]
  }

  private func bankName(_ r: inout SeededRandom, city: String) -> String {
    let pattern = r.pick(Words.bankPatterns)
    let word = r.pick(Words.bankWords)
    var name = ""
    for part in pattern {
      switch part {
      case .word: name += word
      case .city: name += city
      case .text(let t): name += t
      }
    }
    return name
  }

  private func bankInfo(_ id: Int, _ row: inout [FieldValue]) {
    var r = rng(1, id)
    let state = States.all[States.bankChoice.draw(&r)]
    let city = r.pick(Words.cities)
    row.append(.integer(Int64(id)))
    row.append(.text(bankName(&r, city: city)))
    row.append(.text(city))
    row.append(.text(state.code))
  }

  /// Days since 1970 from one calendar date through another.
  private static func days(_ y0: Int, _ m0: Int, _ d0: Int, through y1: Int, _ m1: Int, _ d1: Int) -> ClosedRange<Int> {
    CivilDate.days(year: y0, month: m0, day: d0)...CivilDate.days(year: y1, month: m1, day: d1)
  }

  private static let wave1 =
    Self.days(1986, 1, 1, through: 1993, 12, 31)
  private static let wave2 =
    Self.days(2008, 1, 1, through: 2013, 12, 31)
  private static let lastUpdate = CivilDate.days(year: 2025, month: 6, day: 30)
  private static let fdicEra =
    Self.days(1934, 1, 1, through: 2024, 12, 31)

  /// A day in `range`, peaked at its middle (the sum of two uniforms).
  private static func triangular(_ r: inout SeededRandom, _ range: ClosedRange<Int>) -> Int {
    let half = (range.upperBound - range.lowerBound) / 2
    return range.lowerBound + r.int(in: 0...half) + r.int(in: 0...half)
  }

  private func bankDetails(_ id: Int, _ row: inout [FieldValue]) {
    var r = rng(2, id)
    let infoID = infoID(forDetails: id)
    let state = bankState(info: infoID)
    let wave = r.below(100)
    var day =
      wave < 45
      ? Self.triangular(&r, Self.wave1)
      : wave < 80 ? Self.triangular(&r, Self.wave2) : r.int(in: Self.fdicEra)
    // Regulators close banks on Fridays: this is what gives close_date its many ties.
    if r.chance(0.85) { day -= (CivilDate.weekday(days: day) + 2) % 7 }
    // Updated at least 30 days after closing, at most 6000, never after mid-2025.
    let latest = max(day + 30, Self.lastUpdate)
    let updated = day + r.int(in: 30...max(30, min(6000, latest - day)))
    let updatedSeconds = Int64(updated) * 86_400 + Int64(r.int(in: 0...86_399))
    let zip = state.zip3.lowerBound * 100 + r.int(in: 0...((state.zip3.count) * 100 - 1))
    var zipText: [UInt8] = []
    CivilDate.appendPadded(zip, width: 5, to: &zipText)
    let acquirer =
      r.chance(0.2) ? "No Acquirer" : bankName(&r, city: r.pick(Words.cities))
    row.append(.integer(Int64(id)))
    row.append(.integer(Int64(infoID)))
    row.append(.real(Double(day * 86_400)))
    row.append(.real(Double(updatedSeconds)))
    row.append(.text(String(decoding: zipText, as: UTF8.self)))
    row.append(.integer(Int64(r.int(in: 1...59_999))))
    row.append(.text(acquirer))
    row.append(.integer(Int64(10_000 + id)))
  }

  // MARK: wells

  private static let statuses = [
    "Active", "Plugged", "Shut-In", "Temporarily Abandoned",
    "Permitted", "Inactive",
  ]
  private static let statusChoice = WeightedChoice([40, 33, 10, 5, 4, 8])
  private static let wellTypes = ["Oil", "Gas", "Oil and Gas", "Injection", "Dry Hole", "Disposal"]
  private static let wellTypeChoice = WeightedChoice([45, 30, 10, 7, 5, 3])
  private static let century =
    Self.days(1920, 1, 1, through: 2024, 12, 31)
  private static let boom =
    Self.days(1975, 1, 1, through: 1986, 12, 31)
  private static let shale =
    Self.days(2005, 1, 1, through: 2019, 12, 31)

  /// Zipf-like index: small indexes are much more likely (u³ skew).
  private static func skewed(_ r: inout SeededRandom, _ count: Int) -> Int {
    let u = r.unit()
    return min(count - 1, Int(Double(count) * u * u * u))
  }

  private func well(_ id: Int, _ row: inout [FieldValue]) {
    var r = rng(3, id)
    let state = States.all[States.wellChoice.draw(&r)]
    let countyIndex = Self.skewed(&r, state.counties)
    let county = Words.counties[(state.apiCode * 7 + countyIndex) % Words.counties.count]
    // API-14: state-county-unique-sidetrack-event. The unique and sidetrack parts are taken from
    // the id, so numbers never collide up to maxRows.
    var api: [UInt8] = []
    CivilDate.appendPadded(state.apiCode, width: 2, to: &api)
    api.append(UInt8(ascii: "-"))
    CivilDate.appendPadded(countyIndex * 2 + 1, width: 3, to: &api)
    api.append(UInt8(ascii: "-"))
    CivilDate.appendPadded((id - 1) % 100_000, width: 5, to: &api)
    api.append(UInt8(ascii: "-"))
    CivilDate.appendPadded((id - 1) / 100_000 % 100, width: 2, to: &api)
    api.append(contentsOf: "-00".utf8)

    let lease = r.pick(Words.leaseWords)
    let suffix = r.pick(Words.leaseSuffixes)
    let horizontal = r.chance(0.25) ? "H" : ""
    let wellName = "\(lease) \(suffix) \(r.int(in: 1...60))-\(r.int(in: 1...12))\(horizontal)"
    let op = Words.operators[Self.skewed(&r, Words.operators.count)]
    let field: FieldValue = r.chance(0.12) ? .null : .text(Words.fields[Self.skewed(&r, Words.fields.count)])
    let located = !r.chance(0.03)
    let lat = r.int(in: state.latMicro)
    let lon = r.int(in: state.lonMicro)
    let era = r.below(100)
    let spudDay =
      era < 30
      ? r.int(in: Self.boom) : era < 60 ? r.int(in: Self.shale) : r.int(in: Self.century)
    let spud: FieldValue = r.chance(0.04) ? .null : .real(Double(spudDay * 86_400))
    let status = Self.statuses[Self.statusChoice.draw(&r)]
    let type = Self.wellTypes[Self.wellTypeChoice.draw(&r)]
    let depth: FieldValue =
      r.chance(0.06) ? .null : .integer(Int64(600 + Self.skewed(&r, 21_400)))

    row.append(.integer(Int64(id)))
    row.append(.text(String(decoding: api, as: UTF8.self)))
    row.append(.text(wellName))
    row.append(.text(op))
    row.append(field)
    row.append(.text(county))
    row.append(.text(state.code))
    row.append(located ? .real(Double(lat) / 1_000_000) : .null)
    row.append(located ? .real(Double(lon) / 1_000_000) : .null)
    row.append(spud)
    row.append(.text(status))
    row.append(.text(type))
    row.append(depth)
  }

  private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
