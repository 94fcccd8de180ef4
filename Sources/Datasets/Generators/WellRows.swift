import Catalog
import FetchedResults

extension WellsDataset: GeneratableDataset {
  public func generator(rows: Int, seed: UInt64) -> any RowGenerator { WellRows(seed: seed) }
}

/// The rows of the oil and gas wells: Texas-heavy states, skewed operators and fields, spud
/// dates in three eras, some NULLs in every optional column.
public struct WellRows: RowGenerator {
  public let seed: UInt64

  public init(seed: UInt64) { self.seed = seed }

  public func fill(table: Int, id: Int, into row: inout [FieldValue]) { well(id, &row) }

  private static let statuses = [
    "Active", "Plugged", "Shut-In", "Temporarily Abandoned",
    "Permitted", "Inactive",
  ]
  private static let statusChoice = WeightedChoice([40, 33, 10, 5, 4, 8])
  private static let wellTypes = ["Oil", "Gas", "Oil and Gas", "Injection", "Dry Hole", "Disposal"]
  private static let wellTypeChoice = WeightedChoice([45, 30, 10, 7, 5, 3])
  private static let century =
    DayRange.days(1920, 1, 1, through: 2024, 12, 31)
  private static let boom =
    DayRange.days(1975, 1, 1, through: 1986, 12, 31)
  private static let shale =
    DayRange.days(2005, 1, 1, through: 2019, 12, 31)

  /// Zipf-like index: small indexes are much more likely (u³ skew).
  private static func skewed(_ r: inout SeededRandom, _ count: Int) -> Int {
    let u = r.unit()
    return min(count - 1, Int(Double(count) * u * u * u))
  }

  private func well(_ id: Int, _ row: inout [FieldValue]) {
    var r = SeededRandom(seed: seed, stream: 3, index: UInt64(id))
    let state = States.all[States.wellChoice.draw(&r)]
    let counties = state.wellCounties
    let countyIndex = Self.skewed(&r, counties.count)
    let county = counties[countyIndex]
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
}
