/// Decodes a `Decodable` model from a fetched row: the convenient mapping many apps use, kept
/// here so the harness can measure what it costs beside a direct initializer.
///
/// Coding keys are the row's key paths (`name`, `details.closeDate`); `id` is the primary key.
/// Dates decode as `Double` seconds since 1970, as the stores keep them. Decoding Foundation's
/// `Date` is refused with a clear error, because its `Decodable` conformance would read the
/// number as seconds since 2001 and shift every date by 31 years without a word.
///
/// Cost: O(fields × keys) per object, since a keyed container finds each key by a linear search
/// of the layout; plus the existential and generic dispatch Codable implies. Not for hot paths.
public struct FetchedObjectDecoder: Sendable {
  public init() {}

  /// Decodes one `T` from `object`. Throws `DecodingError` naming the key on a missing key
  /// or a type mismatch.
  public func decode<T: Decodable>(_ type: T.Type, from object: FetchedObject) throws -> T {
    try T(from: RowDecoder(object: object, codingPath: [], value: nil))
  }
}

private struct RowDecoder: Decoder {
  let object: FetchedObject
  var codingPath: [any CodingKey]
  /// Set when this decoder stands for one field (a nested `Decodable` such as an enum).
  let value: Value?
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard value == nil else {
      throw DecodingError.typeMismatch(
        [String: Value].self,
        .init(codingPath: codingPath, debugDescription: "a row's field is a single value, not a keyed container"))
    }
    return KeyedDecodingContainer(RowContainer<Key>(object: object, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DecodingError.typeMismatch(
      [Value].self, .init(codingPath: codingPath, debugDescription: "rows have no arrays"))
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    guard let value else {
      throw DecodingError.typeMismatch(
        Value.self, .init(codingPath: codingPath, debugDescription: "a whole row is not a single value"))
    }
    return FieldContainer(value: value, codingPath: codingPath)
  }
}

private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let object: FetchedObject
  let codingPath: [any CodingKey]

  var allKeys: [Key] { (["id"] + object.layout.keys).compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { key.stringValue == "id" || object.layout.index(of: key.stringValue) != nil }

  private func field(_ key: Key) throws -> Value {
    if key.stringValue == "id" { return .integer(object.id) }
    guard let i = object.layout.index(of: key.stringValue) else {
      throw DecodingError.keyNotFound(
        key,
        .init(
          codingPath: codingPath,
          debugDescription: "the row has no '\(key.stringValue)'; it has \(object.layout.keys.joined(separator: ", "))")
      )
    }
    return object.values[i]
  }

  private func container(_ key: Key) throws -> FieldContainer {
    FieldContainer(value: try field(key), codingPath: codingPath + [key])
  }

  func decodeNil(forKey key: Key) throws -> Bool { try field(key) == .null }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try container(key).decode(type) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try container(key).decode(type) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try container(key).decode(type) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try container(key).decode(type) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try container(key).decode(type) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try container(key).decode(type) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try container(key).decode(type) }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try container(key).decode(type) }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    throw DecodingError.typeMismatch(
      [String: Value].self,
      .init(
        codingPath: codingPath + [key],
        debugDescription: "rows are flat; use key paths such as 'details.closeDate' as coding keys"))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw DecodingError.typeMismatch(
      [Value].self, .init(codingPath: codingPath + [key], debugDescription: "rows have no arrays"))
  }

  func superDecoder() throws -> any Decoder { RowDecoder(object: object, codingPath: codingPath, value: nil) }
  func superDecoder(forKey key: Key) throws -> any Decoder {
    RowDecoder(object: object, codingPath: codingPath + [key], value: try field(key))
  }
}

private struct FieldContainer: SingleValueDecodingContainer {
  let value: Value
  let codingPath: [any CodingKey]

  private func mismatch<T>(_ type: T.Type) -> DecodingError {
    let key = codingPath.last?.stringValue ?? "?"
    if value == .null {
      return .valueNotFound(
        type, .init(codingPath: codingPath, debugDescription: "'\(key)' is NULL; declare it optional"))
    }
    return .typeMismatch(
      type, .init(codingPath: codingPath, debugDescription: "'\(key)' holds \(value), not a \(type)"))
  }

  func decodeNil() -> Bool { value == .null }

  func decode(_ type: Bool.Type) throws -> Bool {
    switch value {
    case .bool(let b): return b
    case .integer(let i) where i == 0 || i == 1: return i == 1
    default: throw mismatch(type)
    }
  }

  func decode(_ type: String.Type) throws -> String {
    guard case .string(let s) = value else { throw mismatch(type) }
    return s
  }

  func decode(_ type: Double.Type) throws -> Double {
    switch value {
    case .double(let d), .date(let d): return d
    case .integer(let i): return Double(i)
    default: throw mismatch(type)
    }
  }

  func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

  func decode(_ type: Int64.Type) throws -> Int64 {
    guard case .integer(let i) = value else { throw mismatch(type) }
    return i
  }

  func decode(_ type: Int.Type) throws -> Int { Int(try decode(Int64.self)) }

  func decode(_ type: Int32.Type) throws -> Int32 {
    let i = try decode(Int64.self)
    guard let narrow = Int32(exactly: i) else { throw mismatch(type) }
    return narrow
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    switch type {
    case is Double.Type: return try decode(Double.self) as! T
    case is String.Type: return try decode(String.self) as! T
    case is Int64.Type: return try decode(Int64.self) as! T
    case is Int.Type: return try decode(Int.self) as! T
    case is Bool.Type: return try decode(Bool.self) as! T
    default:
      guard _typeName(type) != "Foundation.Date" else {
        throw DecodingError.typeMismatch(
          type,
          .init(
            codingPath: codingPath,
            debugDescription:
              "decode dates as Double (seconds since 1970); Date's Decodable would read them as seconds since 2001"))
      }
      return try T(
        from: RowDecoder(object: FetchedObject(id: 0, values: [], layout: .empty), codingPath: codingPath, value: value)
      )
    }
  }
}
