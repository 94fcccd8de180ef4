/// The type of an attribute, as NSAttributeType names them.
public enum AttributeType: String, Sendable, CaseIterable, Codable {
  case integer, double, string, date, bool
}

/// One attribute of an entity: a camelCase key over a snake_case column.
public struct Attribute: Sendable, Equatable {
  public var name: String
  public var column: String
  public var type: AttributeType
  public var isOptional: Bool
  /// The store computes its value (a SQLite generated column): it is read, never written.
  public var isDerived: Bool

  public init(
    _ name: String, column: String? = nil, _ type: AttributeType, optional: Bool = false, derived: Bool = false
  ) {
    self.name = name
    self.column = column ?? Attribute.snakeCase(name)
    self.type = type
    self.isOptional = optional
    self.isDerived = derived
  }

  /// `closeDate` → `close_date`, `infoID` → `info_id`.
  public static func snakeCase(_ name: String) -> String {
    var out = ""
    var previousLower = false
    for c in name {
      if c.isUppercase {
        if previousLower { out.append("_") }
        out.append(contentsOf: c.lowercased())
        previousLower = false
      } else {
        out.append(c)
        previousLower = true
      }
    }
    return out
  }
}

/// A to-one relationship, joined as `destination.destinationColumn = source.sourceColumn`.
///
/// Both directions of a one-to-one are expressed this way: FailedBankInfo.details joins
/// `details.info_id = info.id`, FailedBankDetails.info joins `info.id = details.info_id`.
public struct Relationship: Sendable, Equatable {
  public var name: String
  public var destination: String
  public var sourceColumn: String
  public var destinationColumn: String

  public init(_ name: String, to destination: String, sourceColumn: String, destinationColumn: String) {
    self.name = name
    self.destination = destination
    self.sourceColumn = sourceColumn
    self.destinationColumn = destinationColumn
  }
}

/// A to-many relationship: the destination's rows that name the source row's key, either in a
/// column of their own (a one-to-many, the inverse of a to-one) or through a join table's rows
/// (a many-to-many). A list filters through it (`ANY`, `ALL`, `NONE`, `@count`, `SUBQUERY`);
/// it never sorts or sections by it, as Core Data does not.
public struct ToManyRelationship: Sendable, Equatable, Codable {
  public var name: String
  public var destination: String
  /// The source's column whose value the destination's rows name: its primary key.
  public var sourceColumn: String
  public var link: Link
  /// An ordered relationship's order (Core Data's `Z_FOK_…`): the destination's column for a
  /// one-to-many, the join table's for a many-to-many; nil: unordered.
  public var orderColumn: String? {
    switch link {
    case .foreignKey: foreignKeyOrder
    case .joinTable(let join): join.orderColumn
    }
  }
  /// A one-to-many's order column in the destination's table.
  public var foreignKeyOrder: String?

  /// How a destination row names its source row.
  public enum Link: Sendable, Equatable, Codable {
    /// The destination's column holds the source's key (`notes.folder_id`).
    case foreignKey(String)
    /// A join table's rows pair them (`Z_2TAGS(Z_2ITEMS, Z_5TAGS)`).
    case joinTable(JoinTable)
  }

  public init(_ name: String, to destination: String, sourceColumn: String, link: Link, orderedBy order: String? = nil)
  {
    self.name = name
    self.destination = destination
    self.sourceColumn = sourceColumn
    self.link = link
    if case .foreignKey = link { foreignKeyOrder = order }
  }
}

/// A many-to-many relationship's rows: each pairs a source key with a destination key.
public struct JoinTable: Sendable, Hashable, Codable {
  public var table: String
  /// The column holding the source's key.
  public var sourceColumn: String
  /// The column holding the destination's primary key.
  public var destinationColumn: String
  /// The column of an ordered relationship's order; nil: unordered.
  public var orderColumn: String?

  public init(_ table: String, sourceColumn: String, destinationColumn: String, orderColumn: String? = nil) {
    self.table = table
    self.sourceColumn = sourceColumn
    self.destinationColumn = destinationColumn
    self.orderColumn = orderColumn
  }
}

/// Where a row keeps a relationship's key: its primary key, or the attribute at an index.
public enum LinkKey: Sendable, Equatable {
  case id
  case attribute(Int)

  /// The key of the row with `id` and its own attribute `values` (nil: none, not an integer).
  /// O(1).
  public func key(id: Int64, values: [Value]) -> Int64? {
    switch self {
    case .id: return id
    case .attribute(let i):
      if case .integer(let k) = values[i] { return k }
      return nil
    }
  }
}

/// An entity (NSEntityDescription): a table with an `id INTEGER PRIMARY KEY`, typed
/// attributes and to-one relationships.
public struct Entity: Sendable, Equatable {
  public var name: String
  public var table: String
  public var attributes: [Attribute]
  public var relationships: [Relationship]
  /// The to-many relationships a predicate can read through.
  public var toMany: [ToManyRelationship] = []
  /// The primary-key column; it is also the final sort tie-breaker.
  public var primaryKey: String
  /// Whether key paths match attribute and relationship names whatever their case, as a Core
  /// Data store's columns (`ZTIMEHOUR`) do not keep the model's (`timeHour`).
  public var keysIgnoreCase = false
  /// Which rows of `table` are this entity's, where the table holds other entities' rows too:
  /// a Core Data sub-entity shares its inheritance tree's table, told apart by `Z_ENT`. Every
  /// request of the entity is resolved with it ANDed to its predicate, so every store and the
  /// change tracking read only the entity's rows. nil: every row of the table.
  public var rowFilter: FetchPredicate? = nil

  public init(
    name: String, table: String, attributes: [Attribute], relationships: [Relationship] = [],
    primaryKey: String = "id"
  ) {
    self.name = name
    self.table = table
    self.attributes = attributes
    self.relationships = relationships
    self.primaryKey = primaryKey
  }

  /// The attribute named `name`. O(attributes).
  public func attribute(_ name: String) -> Attribute? { attributes.first { matches($0.name, name) } }
  /// The index of the attribute named `name`. O(attributes).
  public func attributeIndex(_ name: String) -> Int? { attributes.firstIndex { matches($0.name, name) } }
  /// The relationship named `name`. O(relationships).
  public func relationship(_ name: String) -> Relationship? { relationships.first { matches($0.name, name) } }
  /// The to-many relationship named `name`. O(relationships).
  public func toManyRelationship(_ name: String) -> ToManyRelationship? { toMany.first { matches($0.name, name) } }

  /// Where a row of this entity keeps the key that `relationship` matches in its
  /// destination: the row's ID, or one of its attributes. nil when neither holds the
  /// relationship's source column. O(attributes).
  public func linkKey(of relationship: Relationship) -> LinkKey? { linkKey(column: relationship.sourceColumn) }

  /// Where a row of this entity keeps the value of `column`: its ID, or one of its attributes.
  /// O(attributes).
  public func linkKey(column: String) -> LinkKey? {
    if column == primaryKey { return .id }
    return attributes.firstIndex { $0.column == column }.map(LinkKey.attribute)
  }

  private func matches(_ own: String, _ given: String) -> Bool {
    // Uppercased, as Core Data names columns: `größe` and the `grösse` of `ZGRÖSSE` are one.
    own == given || (keysIgnoreCase && own.uppercased() == given.uppercased())
  }
}

/// A set of entities (NSManagedObjectModel).
public struct Model: Sendable, Equatable {
  public var entities: [Entity]
  /// How strings compare under the sort selectors other than `compare:`; nil: a sort with one
  /// is refused.
  public var collation: (any StringCollation)?

  public init(entities: [Entity], collation: (any StringCollation)? = nil) {
    self.entities = entities
    self.collation = collation
  }

  /// Models are equal in their entities and their collation's locale.
  public static func == (a: Model, b: Model) -> Bool {
    a.entities == b.entities && a.collation?.locale == b.collation?.locale
  }

  /// The entity named `name`, or an error listing the known ones. O(entities).
  /// The attributes of `entity` that relationships join on (its foreign keys, and the
  /// columns other entities' relationships point at), primary key excluded. Stores report
  /// their values for every written row, so that observers can find related objects
  /// without a query. O(entities × relationships).
  public func linkAttributes(of entity: Entity) -> [Attribute] {
    var columns = Set(entity.relationships.map(\.sourceColumn))
    for other in entities {
      for r in other.relationships where r.destination == entity.name { columns.insert(r.destinationColumn) }
      for r in other.toMany where r.destination == entity.name {
        if case .foreignKey(let column) = r.link { columns.insert(column) }
      }
    }
    columns.remove(entity.primaryKey)
    return entity.attributes.filter { columns.contains($0.column) }
  }

  public func entity(_ name: String) throws(FetchError) -> Entity {
    guard let e = entities.first(where: { $0.name == name }) else {
      throw .unknownEntity(name, known: entities.map(\.name))
    }
    return e
  }

  /// Resolves `name` or `relationship.name` from `entity`.
  public func resolve(_ keyPath: String, from entity: Entity) throws(FetchError) -> ResolvedKeyPath {
    let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    if parts.count == 1 {
      if keyPath == "id" {
        return ResolvedKeyPath(
          keyPath: keyPath, relationship: nil, attribute: Attribute("id", .integer), entity: entity)
      }
      if let rel = entity.relationship(keyPath), let destination = try? self.entity(rel.destination) {
        // Sorting, sectioning or comparing by an object is not what it seems to be: name its attribute.
        let example = destination.attributes.first.map { ", e.g. \(rel.name).\($0.name)" } ?? ""
        throw .invalidRequest(
          """
          '\(keyPath)' is a to-one relationship of \(entity.name), not an attribute: name one of \
          \(rel.destination)'s attributes\(example)
          """
        )
      }
      if let toMany = entity.toManyRelationship(keyPath) {
        throw Self.toManyAsToOne(toMany, keyPath)
      }
      guard let attribute = entity.attribute(keyPath) else {
        throw .unknownKeyPath(
          keyPath, entity: entity.name,
          known: entity.attributes.map(\.name) + entity.relationships.map { "\($0.name).…" }
            + entity.toMany.map { "\($0.name).@count" })
      }
      // The model's spelling: with `keysIgnoreCase`, `depTime` names `deptime`.
      return ResolvedKeyPath(keyPath: attribute.name, relationship: nil, attribute: attribute, entity: entity)
    }
    if let toMany = entity.toManyRelationship(parts[0]) { throw Self.toManyAsToOne(toMany, keyPath) }
    guard parts.count == 2, let rel = entity.relationship(parts[0]) else {
      throw .unknownKeyPath(
        keyPath, entity: entity.name,
        known: entity.attributes.map(\.name) + entity.relationships.map(\.name)
          + entity.toMany.map { "ANY \($0.name).…" })
    }
    let destination = try self.entity(rel.destination)
    guard let attribute = parts[1] == "id" ? Attribute("id", .integer) : destination.attribute(parts[1]) else {
      throw .unknownKeyPath(
        keyPath, entity: entity.name, known: destination.attributes.map { "\(rel.name).\($0.name)" })
    }
    return ResolvedKeyPath(
      keyPath: "\(rel.name).\(attribute.name)", relationship: rel, attribute: attribute, entity: destination)
  }
}

extension Model {
  /// A key path through a to-many relationship where one value is needed: a sort, a section,
  /// a comparison without ANY, ALL or NONE (Core Data refuses these too).
  static func toManyAsToOne(_ r: ToManyRelationship, _ keyPath: String) -> FetchError {
    let rest = keyPath.split(separator: ".").dropFirst().joined(separator: ".")
    let attribute = rest.isEmpty ? "ATTRIBUTE" : rest
    return .invalidRequest(
      """
      '\(keyPath)' reads through \(r.name), a to-many relationship: it has no single value to sort, section or \
      compare by; filter with ANY \(r.name).\(attribute) == …, ALL, NONE or \(r.name).@count
      """)
  }

  /// The to-many relationship of `entity` named `name`, its destination, and the destination's
  /// own rows (its `rowFilter`), or an error naming the known ones. O(entities).
  public func resolveToMany(_ name: String, from entity: Entity) throws(FetchError) -> (
    ToManyRelationship, Entity
  ) {
    guard let r = entity.toManyRelationship(name) else {
      if entity.relationship(name) != nil {
        throw .invalidRequest(
          "'\(name)' is a to-one relationship of \(entity.name): ANY, ALL, NONE, @count and SUBQUERY need a to-many one"
        )
      }
      throw .unknownKeyPath(name, entity: entity.name, known: entity.toMany.map(\.name))
    }
    return (r, try self.entity(r.destination))
  }
}

/// A key path checked against the model: an attribute of the entity itself, or of the
/// destination of one to-one relationship.
public struct ResolvedKeyPath: Sendable, Equatable {
  public var keyPath: String
  public var relationship: Relationship?
  public var attribute: Attribute
  /// The entity that holds `attribute`.
  public var entity: Entity
}
