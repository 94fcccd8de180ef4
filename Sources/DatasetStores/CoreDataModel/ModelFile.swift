import SQLQueries

/// An app's Core Data model as its `.xcdatamodel`'s `contents` declares it: the entities with
/// their inheritance, attributes, relationships, fetch indexes and uniqueness constraints. Read
/// by `ModelFile.read(_:version:)`; turned into the SQLite schema Core Data creates for it by
/// `CoreDataSchema`.
public struct ModelFile: Sendable, Equatable {
  /// The file read: the `contents` of the version chosen.
  public var path: String
  /// The version's folder name without `.xcdatamodel` (`MyApp 2`); nil for a lone `contents`.
  public var version: String?
  /// Every entity, in the file's order.
  public var entities: [EntityDeclaration] { didSet { index() } }
  /// Each entity's position in `entities` by its name (the first, where two share one), and
  /// each entity's direct sub-entities in file order: a large model is read in linear time.
  private var positions: [String: Int] = [:]
  private var children: [String: [Int]] = [:]
  /// The fetch request templates (`<fetchRequest>`) by name: read, not measured.
  public var fetchRequests: [String]
  /// The configurations (`<configuration>`) by name: read; every entity is in the store.
  public var configurations: [String]
  /// SHA-256 of the `contents` read: a generated store records it.
  public var checksum = ""

  /// Every to-one relationship's destination by its name, as `--relationship` gives them: the
  /// store's reader names a Core Data column's relationship by it. O(relationships).
  public var toOneRelationships: [String: String] {
    var out: [String: String] = [:]
    for e in entities { for r in e.relationships where !r.toMany && out[r.name] == nil { out[r.name] = r.destination } }
    return out
  }

  public init(
    path: String, version: String?, entities: [EntityDeclaration], fetchRequests: [String], configurations: [String]
  ) {
    (self.path, self.version, self.entities) = (path, version, entities)
    (self.fetchRequests, self.configurations) = (fetchRequests, configurations)
    index()
  }

  /// The entity named `name`. O(1).
  public func entity(_ name: String) -> EntityDeclaration? { positions[name].map { entities[$0] } }

  /// Where the entity named `name` stands in `entities`. O(1).
  func position(of name: String) -> Int { positions[name] ?? entities.count }

  /// The entities whose `parentEntity` is `name`, in the file's order. O(their count).
  public func children(of name: String) -> [EntityDeclaration] { (children[name] ?? []).map { entities[$0] } }

  private mutating func index() {
    positions = [:]
    children = [:]
    for (i, e) in entities.enumerated() {
      if positions[e.name] == nil { positions[e.name] = i }
      if let parent = e.parent { children[parent, default: []].append(i) }
    }
  }
}

/// One `<entity>`.
public struct EntityDeclaration: Sendable, Equatable {
  public var name: String
  public var className: String?
  public var isAbstract: Bool
  /// `parentEntity`: the entity this one inherits from; they share its root's table.
  public var parent: String?
  public var attributes: [AttributeDeclaration]
  public var relationships: [RelationshipDeclaration]
  public var fetchIndexes: [FetchIndexDeclaration]
  /// Each constraint's property names (`<uniquenessConstraint>`).
  public var uniquenessConstraints: [[String]]
}

/// One `<attribute>`.
public struct AttributeDeclaration: Sendable, Equatable {
  public var name: String
  public var type: AttributeKind
  public var optional: Bool
  public var defaultValue: String?
  /// Not stored: no column.
  public var transient: Bool
  /// Computed by Core Data from other properties (`derived`), stored in a column.
  public var derived: Bool
  /// `allowsExternalBinaryDataStorage`: a large value lives in a file beside the store, the
  /// column holding a reference.
  public var externalStorage: Bool
}

/// `attributeType` as the model editor writes it.
public enum AttributeKind: String, Sendable, CaseIterable {
  case integer16 = "Integer 16"
  case integer32 = "Integer 32"
  case integer64 = "Integer 64"
  case decimal = "Decimal"
  case double = "Double"
  case float = "Float"
  case string = "String"
  case boolean = "Boolean"
  case date = "Date"
  case binary = "Binary"
  case uuid = "UUID"
  case uri = "URI"
  case transformable = "Transformable"
  case objectID = "Object ID"
  case undefined = "Undefined"

  /// The column type Core Data declares for it in SQLite.
  public var sqliteType: String {
    switch self {
    case .integer16, .integer32, .integer64, .boolean: "INTEGER"
    case .decimal: "DECIMAL"
    case .double, .float: "FLOAT"
    case .string, .uri: "VARCHAR"
    case .date: "TIMESTAMP"
    case .binary, .uuid, .transformable, .objectID, .undefined: "BLOB"
    }
  }
}

/// One `<relationship>`.
public struct RelationshipDeclaration: Sendable, Equatable {
  public var name: String
  public var destination: String
  public var inverse: String?
  public var toMany: Bool
  public var ordered: Bool
  public var minCount: Int?
  public var maxCount: Int?
  /// `Nullify`, `Cascade`, `Deny` or `No Action`.
  public var deletionRule: String
}

/// One `<fetchIndex>`: its elements in order.
public struct FetchIndexDeclaration: Sendable, Equatable {
  public var name: String
  public var elements: [Element]

  public struct Element: Sendable, Equatable {
    public var property: String
    /// `Binary` (a B-tree) or `R-Tree`.
    public var type: String
    public var ascending: Bool
  }
}

extension ModelFile {
  /// The delete rules a save applies, from each relationship's `deletionRule` whose inverse is
  /// a to-one (its key a column of the destination's table): for the declaring entity and each
  /// of its sub-entities, the destination named by its hierarchy's root (the table's entity).
  /// A to-one whose inverse is to-many, and many-to-many relationships (a join table's rows),
  /// have no key on the other side and give no rule here. O(entities × relationships).
  public var deleteRules: [DeleteRule] {
    var out: [DeleteRule] = []
    for e in entities {
      for r in e.relationships {
        guard let action = DeleteRule.Action(rawValue: r.deletionRule), let inverseName = r.inverse,
          let destination = entity(r.destination),
          let inverse = properties(of: destination).relationships.first(where: { $0.name == inverseName }),
          !inverse.toMany
        else { continue }
        for deleted in [e.name] + descendants(of: e.name) {
          out.append(
            DeleteRule(entity: deleted, dependent: root(of: destination).name, key: inverse.name, action: action))
        }
      }
    }
    return out
  }

  /// The entities that inherit from `name`, at any depth, depth first. O(their count).
  func descendants(of name: String) -> [String] {
    var out: [String] = []
    var next = children(of: name).reversed().map(\.name)
    var seen: Set<String> = [name]
    while let n = next.popLast() {
      guard seen.insert(n).inserted else { continue }
      out.append(n)
      next += children(of: n).reversed().map(\.name)
    }
    return out
  }
}
