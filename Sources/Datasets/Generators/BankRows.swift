import Catalog
import FetchedResults

extension BanksDataset: GeneratableDataset {
  public func generator(rows: Int, seed: UInt64) -> any RowGenerator { BankRows(rows: rows, seed: seed) }
}

/// The rows of the failed banks: `failed_bank_info` (table 0), then `failed_bank_details`.
///
/// States are drawn with unequal weights, close dates cluster in two failure waves and mostly
/// fall on a Friday, so sections are unequal and the sort key ties often.
public struct BankRows: RowGenerator {
  public let rows: Int
  public let seed: UInt64
  /// The affine bijection `details.id → info_id`: detail rows are not in info order, so a
  /// to-one join does real work, yet no permutation table is kept in memory.
  private let permMultiplier: Int
  private let permOffset: Int

  public init(rows: Int, seed: UInt64) {
    precondition(rows >= 1)
    self.rows = rows
    self.seed = seed
    var a = max(1, rows * 618_034 / 1_000_000)
    while Self.gcd(a, rows) != 1 { a += 1 }
    permMultiplier = a % rows == 0 ? 1 : a
    var rng = SeededRandom(seed: seed, stream: 99, index: 0)
    permOffset = Int(rng.below(UInt64(rows)))
  }

  public func fill(table: Int, id: Int, into row: inout [FieldValue]) {
    if table == 0 { info(id, &row) } else { details(id, &row) }
  }

  /// The `info_id` of details row `detailsID`. A bijection of 1...rows. O(1).
  public func infoID(forDetails detailsID: Int) -> Int {
    ((detailsID - 1) * permMultiplier + permOffset) % rows + 1
  }

  private func bankState(info id: Int) -> StateInfo {
    var r = SeededRandom(seed: seed, stream: 1, index: UInt64(id))
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

  private func info(_ id: Int, _ row: inout [FieldValue]) {
    var r = SeededRandom(seed: seed, stream: 1, index: UInt64(id))
    let state = States.all[States.bankChoice.draw(&r)]
    let city = r.pick(state.cities)
    row.append(.integer(Int64(id)))
    row.append(.text(bankName(&r, city: city)))
    row.append(.text(city))
    row.append(.text(state.code))
  }

  private static let wave1 =
    DayRange.days(1986, 1, 1, through: 1993, 12, 31)
  private static let wave2 =
    DayRange.days(2008, 1, 1, through: 2013, 12, 31)
  private static let lastUpdate = CivilDate.days(year: 2025, month: 6, day: 30)
  private static let fdicEra =
    DayRange.days(1934, 1, 1, through: 2024, 12, 31)

  /// A day in `range`, peaked at its middle (the sum of two uniforms).
  private static func triangular(_ r: inout SeededRandom, _ range: ClosedRange<Int>) -> Int {
    let half = (range.upperBound - range.lowerBound) / 2
    return range.lowerBound + r.int(in: 0...half) + r.int(in: 0...half)
  }

  private func details(_ id: Int, _ row: inout [FieldValue]) {
    var r = SeededRandom(seed: seed, stream: 2, index: UInt64(id))
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
      // An acquirer of the same state, as most were.
      r.chance(0.2) ? "No Acquirer" : bankName(&r, city: r.pick(state.cities))
    row.append(.integer(Int64(id)))
    row.append(.integer(Int64(infoID)))
    row.append(.real(Double(day * 86_400)))
    row.append(.real(Double(updatedSeconds)))
    row.append(.text(String(decoding: zipText, as: UTF8.self)))
    row.append(.integer(Int64(r.int(in: 1...59_999))))
    row.append(.text(acquirer))
    row.append(.integer(Int64(10_000 + id)))
  }

  private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
