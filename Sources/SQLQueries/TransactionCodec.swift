import FetchedResults

/// A transaction as text, for stores whose observers live on other connections or in other
/// processes (a change-log row, a notification payload).
///
/// Hand-written rather than Codable: observers decode one per commit on the delivery path.
/// The format is a sequence of tokens, each one letter and its payload: `i<int>;`,
/// `f<hex bits>;` (double), `t<hex bits>;` (date), `b0;`/`b1;`, `n;` and `s<utf8 length>:<bytes>`.
/// Doubles travel as their bit patterns, so a value decodes to exactly what was written.
/// Dictionaries are written with sorted keys, so one transaction always has one encoding.
public enum TransactionCodec {
  /// The changes of `transaction` as text (the sequence number is not part of it: the log
  /// that carries the text assigns it). O(size of the changes).
  public static func encode(_ changes: [EntityChanges]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(256)
    int(Int64(changes.count), &out)
    for c in changes {
      string(c.entity, &out)
      ids(c.inserted, &out)
      int(Int64(c.updated.count), &out)
      for id in c.updated.keys.sorted() {
        int(id, &out)
        let names = c.updated[id]!.sorted()
        int(Int64(names.count), &out)
        for n in names { string(n, &out) }
      }
      ids(c.deleted, &out)
      valueMaps(c.oldValues, &out)
      valueMaps(c.links, &out)
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Reads what `encode` wrote. Throws `FetchError.store` naming the offset of malformed text.
  /// O(text length).
  public static func decode(_ text: String) throws -> [EntityChanges] {
    var r = Reader(bytes: Array(text.utf8))
    var changes: [EntityChanges] = []
    let n = try r.count()
    changes.reserveCapacity(n)
    for _ in 0..<n {
      var c = EntityChanges(entity: try r.string())
      c.inserted = try r.ids()
      for _ in 0..<(try r.count()) {
        let id = try r.int()
        var names = Set<String>()
        for _ in 0..<(try r.count()) { names.insert(try r.string()) }
        c.updated[id] = names
      }
      c.deleted = try r.ids()
      c.oldValues = try r.valueMaps()
      c.links = try r.valueMaps()
      changes.append(c)
    }
    guard r.offset == r.bytes.count else { throw r.error("trailing bytes") }
    return changes
  }

  // MARK: writing

  private static func int(_ v: Int64, _ out: inout [UInt8]) {
    out.append(UInt8(ascii: "i"))
    out.append(contentsOf: String(v).utf8)
    out.append(UInt8(ascii: ";"))
  }

  private static func string(_ s: String, _ out: inout [UInt8]) {
    out.append(UInt8(ascii: "s"))
    out.append(contentsOf: String(s.utf8.count).utf8)
    out.append(UInt8(ascii: ":"))
    out.append(contentsOf: s.utf8)
  }

  private static func ids(_ ids: [Int64], _ out: inout [UInt8]) {
    int(Int64(ids.count), &out)
    for id in ids { int(id, &out) }
  }

  private static func value(_ v: Value, _ out: inout [UInt8]) {
    switch v {
    case .null: out.append(contentsOf: "n;".utf8)
    case .integer(let i): int(i, &out)
    case .double(let d): bits("f", d, &out)
    case .date(let d): bits("t", d, &out)
    case .bool(let b): out.append(contentsOf: (b ? "b1;" : "b0;").utf8)
    case .string(let s): string(s, &out)
    }
  }

  private static func bits(_ tag: Unicode.Scalar, _ d: Double, _ out: inout [UInt8]) {
    out.append(UInt8(ascii: tag))
    out.append(contentsOf: String(d.bitPattern, radix: 16).utf8)
    out.append(UInt8(ascii: ";"))
  }

  private static func valueMaps(_ maps: [Int64: [String: Value]], _ out: inout [UInt8]) {
    int(Int64(maps.count), &out)
    for id in maps.keys.sorted() {
      int(id, &out)
      let map = maps[id]!
      int(Int64(map.count), &out)
      for key in map.keys.sorted() {
        string(key, &out)
        value(map[key]!, &out)
      }
    }
  }

  // MARK: reading

  private struct Reader {
    let bytes: [UInt8]
    var offset = 0

    func error(_ what: String) -> FetchError { .store("malformed transaction text at byte \(offset): \(what)") }

    mutating func tag() throws -> UInt8 {
      guard offset < bytes.count else { throw error("unexpected end") }
      defer { offset += 1 }
      return bytes[offset]
    }

    /// The text up to the next `terminator`, which is consumed.
    mutating func field(until terminator: UInt8) throws -> Substring {
      guard let end = bytes[offset...].firstIndex(of: terminator) else { throw error("unterminated field") }
      defer { offset = end + 1 }
      return Substring(decoding: bytes[offset..<end], as: UTF8.self)
    }

    mutating func int() throws -> Int64 {
      guard try tag() == UInt8(ascii: "i") else { throw error("expected an integer") }
      guard let v = Int64(try field(until: UInt8(ascii: ";"))) else { throw error("bad integer") }
      return v
    }

    mutating func count() throws -> Int {
      let n = try int()
      guard n >= 0, n <= bytes.count else { throw error("bad count \(n)") }
      return Int(n)
    }

    mutating func string() throws -> String {
      guard try tag() == UInt8(ascii: "s") else { throw error("expected a string") }
      guard let n = Int(try field(until: UInt8(ascii: ":"))), n >= 0, offset + n <= bytes.count else {
        throw error("bad string length")
      }
      defer { offset += n }
      return String(decoding: bytes[offset..<offset + n], as: UTF8.self)
    }

    mutating func ids() throws -> [Int64] {
      var out: [Int64] = []
      let n = try count()
      out.reserveCapacity(n)
      for _ in 0..<n { out.append(try int()) }
      return out
    }

    mutating func value() throws -> Value {
      guard offset < bytes.count else { throw error("unexpected end") }
      switch bytes[offset] {
      case UInt8(ascii: "i"): return .integer(try int())
      case UInt8(ascii: "s"): return .string(try string())
      case UInt8(ascii: "n"):
        offset += 1
        _ = try field(until: UInt8(ascii: ";"))
        return .null
      case UInt8(ascii: "b"):
        offset += 1
        return .bool(try field(until: UInt8(ascii: ";")) == "1")
      case UInt8(ascii: "f"), UInt8(ascii: "t"):
        let isDate = bytes[offset] == UInt8(ascii: "t")
        offset += 1
        guard let b = UInt64(try field(until: UInt8(ascii: ";")), radix: 16) else { throw error("bad double") }
        let d = Double(bitPattern: b)
        return isDate ? .date(d) : .double(d)
      default: throw error("unknown value tag")
      }
    }

    mutating func valueMaps() throws -> [Int64: [String: Value]] {
      var out: [Int64: [String: Value]] = [:]
      for _ in 0..<(try count()) {
        let id = try int()
        var map: [String: Value] = [:]
        for _ in 0..<(try count()) {
          let key = try string()
          map[key] = try value()
        }
        out[id] = map
      }
      return out
    }
  }
}
