/// One attribute value, as the engine sees it.
///
/// Ordering follows SQL stores so every store sorts alike: NULL is smaller than any value,
/// strings compare by UTF-8 bytes (SQLite's BINARY collation), booleans as 0 and 1.
public enum Value: Hashable, Sendable, Codable {
  case null
  case integer(Int64)
  case double(Double)
  case string(String)
  /// Seconds since 1970-01-01 UTC.
  case date(Double)
  case bool(Bool)

  public var isNull: Bool { if case .null = self { true } else { false } }

  /// A number for numeric comparison, if the value is numeric (dates and booleans included).
  @inlinable public var numeric: Double? {
    switch self {
    case .integer(let v): Double(v)
    case .double(let v), .date(let v): v
    case .bool(let v): v ? 1 : 0
    case .null, .string: nil
    }
  }

  /// Total order used by sorts: NULL first, then numbers, then strings.
  /// O(length) for strings, O(1) otherwise.
  @inlinable public static func compare(_ a: Value, _ b: Value) -> Int {
    switch (a, b) {
    case (.null, .null): return 0
    case (.null, _): return -1
    case (_, .null): return 1
    case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
    case (.string(let x), .string(let y)): return compareUTF8(x, y)
    case (.string, _): return 1
    case (_, .string): return -1
    default:
      let x = a.numeric!
      let y = b.numeric!
      return x < y ? -1 : (x == y ? 0 : 1)
    }
  }

  /// Byte-wise comparison of UTF-8, as SQLite's BINARY collation and PostgreSQL's "C" collation.
  @inlinable public static func compareUTF8(_ x: String, _ y: String) -> Int {
    var x = x
    var y = y
    return x.withUTF8 { a in
      y.withUTF8 { b in
        let n = min(a.count, b.count)
        for i in 0..<n where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
      }
    }
  }

  /// The text a section shows for this value (Core Data's section name).
  public var sectionName: String {
    switch self {
    case .null: ""
    case .integer(let v): String(v)
    case .double(let v): String(v)
    case .string(let v): v
    case .bool(let v): v ? "1" : "0"
    case .date(let v):
      ISO8601.format(seconds: Int64(v.rounded(.down)), dateOnly: v.truncatingRemainder(dividingBy: 86_400) == 0)
    }
  }
}

/// ISO 8601 dates without Foundation's formatters, whose output depends on the platform.
public enum ISO8601 {
  /// `2009-02-13T23:31:30Z`, or `2009-02-13` with `dateOnly`. O(1).
  public static func format(seconds: Int64, dateOnly: Bool = false) -> String {
    var out: [UInt8] = []
    CivilDate.appendISO8601(seconds: seconds, to: &out)
    return String(decoding: dateOnly ? out.prefix(10) : out[...], as: UTF8.self)
  }

  /// Parses `YYYY-MM-DD`, optionally with `THH:MM:SS` and a trailing `Z`, as UTC seconds.
  /// Returns nil for anything else, including impossible dates.
  public static func parse(_ text: Substring) -> Int64? {
    let b = Array(text.utf8)
    func num(_ from: Int, _ count: Int) -> Int? {
      guard from + count <= b.count else { return nil }
      var v = 0
      for i in from..<(from + count) {
        guard b[i] >= 48, b[i] <= 57 else { return nil }
        v = v * 10 + Int(b[i] - 48)
      }
      return v
    }
    guard b.count >= 10, b[4] == 45, b[7] == 45, let y = num(0, 4), let m = num(5, 2),
      let d = num(8, 2), (1...12).contains(m), d >= 1
    else { return nil }
    let dayNumber = CivilDate.days(year: y, month: m, day: d)
    guard CivilDate.date(days: dayNumber) == (y, m, d) else { return nil }
    var seconds = Int64(dayNumber) * 86_400
    if b.count == 10 { return seconds }
    guard b.count >= 19, b[10] == UInt8(ascii: "T"), b[13] == 58, b[16] == 58,
      let hh = num(11, 2), let mm = num(14, 2), let ss = num(17, 2), hh < 24, mm < 60, ss < 60
    else { return nil }
    seconds += Int64(hh * 3600 + mm * 60 + ss)
    if b.count == 19 || (b.count == 20 && b[19] == UInt8(ascii: "Z")) { return seconds }
    return nil
  }
}
