/// Conversions between days since 1970-01-01 (UTC) and calendar dates.
///
/// Hand-written on purpose: dataset bytes must not depend on a locale, a time zone database or
/// Foundation's formatters. Algorithms from Howard Hinnant's "chrono-compatible low-level date
/// algorithms" (public domain).
public enum CivilDate {
  public static let secondsPerDay = 86_400

  /// Days since 1970-01-01 of a proleptic Gregorian date. O(1).
  public static func days(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// The calendar date of a day number. O(1).
  public static func date(days z0: Int) -> (year: Int, month: Int, day: Int) {
    let z = z0 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }

  /// Day of week, 0 = Sunday … 6 = Saturday. O(1).
  public static func weekday(days: Int) -> Int { ((days % 7) + 11) % 7 }

  /// Appends `seconds` since the epoch as ISO 8601 UTC, `YYYY-MM-DDTHH:MM:SSZ`. O(1).
  public static func appendISO8601(seconds: Int64, to out: inout [UInt8]) {
    let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    let secs = Int(seconds - Int64(days) * 86_400)
    let (y, m, d) = date(days: days)
    appendPadded(y, width: 4, to: &out)
    out.append(UInt8(ascii: "-"))
    appendPadded(m, width: 2, to: &out)
    out.append(UInt8(ascii: "-"))
    appendPadded(d, width: 2, to: &out)
    out.append(UInt8(ascii: "T"))
    appendPadded(secs / 3600, width: 2, to: &out)
    out.append(UInt8(ascii: ":"))
    appendPadded(secs / 60 % 60, width: 2, to: &out)
    out.append(UInt8(ascii: ":"))
    appendPadded(secs % 60, width: 2, to: &out)
    out.append(UInt8(ascii: "Z"))
  }

  /// Appends a non-negative integer in decimal, zero-padded to `width` digits. O(digits).
  public static func appendPadded(_ value: Int, width: Int, to out: inout [UInt8]) {
    precondition(value >= 0)
    var divisor = 1
    var digits = 1
    while digits < width || value / divisor >= 10 {
      divisor *= 10
      digits += 1
    }
    while divisor > 0 {
      out.append(UInt8(48 + value / divisor % 10))
      divisor /= 10
    }
  }
}
