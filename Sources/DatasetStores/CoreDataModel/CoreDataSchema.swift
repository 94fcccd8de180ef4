import FetchedResults

/// The SQLite schema Core Data creates for a model (`NSSQLiteStoreType`): one table per
/// inheritance tree, named after its root, holding every sub-entity's columns with `Z_ENT`
/// telling them apart; a to-one as a `Z`-column with its index; a many-to-many as a join
/// table; fetch indexes as the indexes Core Data names for them. Where Core Data's naming or
/// numbering is not published, the rule followed is stated beside it (`rules`).
public struct CoreDataSchema: Sendable, Equatable {
  /// `Z_PRIMARYKEY`'s rows: each entity's number, name and parent's number (0 for a root).
  public var entities: [(number: Int, name: String, parent: Int)] { numbered.map { ($0.number, $0.name, $0.parent) } }
  public var tables: [Table]
  public var indexes: [Index]

  public struct Table: Sendable, Equatable {
    public var name: String
    /// The entities whose rows it holds, the root first.
    public var entities: [String]
    public var columns: [Column]
    public var primaryKey: [String]
  }

  public struct Column: Sendable, Equatable {
    public var name: String
    public var type: String
    /// The entity and property it stores; nil for Core Data's own (`Z_PK`, `Z_ENT`, `Z_OPT`).
    public var property: String?
  }

  public struct Index: Sendable, Equatable {
    public var name: String
    public var table: String
    /// `ZDATE COLLATE BINARY ASC`, as Core Data writes a fetch index's element.
    public var columns: [String]
    public var unique: Bool
    /// What it is for: a to-one's key, a join table's reverse lookup, a fetch index.
    public var purpose: String
  }

  struct Numbered: Sendable, Equatable {
    var number: Int
    var name: String
    var parent: Int
  }
  var numbered: [Numbered]

  /// What of the model the schema leaves out, each a sentence: a fetch index element no
  /// column holds.
  public var skipped: [String] = []

  /// The rules FetchBench follows where no published source gives Core Data's own.
  public static let rules = [
    """
    Entity numbers (Z_ENT): 1, 2, … depth-first through each inheritance tree, roots and siblings in name order, so \
    that an entity's sub-entities hold the numbers right after it (the range a fetch of a parent filters by); \
    published stores show a parent's sub-entities numbered after it, not the order among trees.
    """,
    """
    A property two sub-entities of one tree both declare gets one column each, the later one's name followed by its \
    entity number (ZNAME, ZNAME3).
    """,
    """
    A many-to-many relationship's join table is named after the side whose entity number is lower (or, for an entity \
    related to itself, whose name sorts first): Z_<n><RELATIONSHIP>, with Z_<n><INVERSE> holding that side's Z_PK \
    and Z_<m><RELATIONSHIP> the other's, as published stores show (Z_5TAGS: Z_5NOTES, Z_13TAGS); an ordered one adds \
    Z_FOK_<m><RELATIONSHIP>.
    """,
    """
    A many-to-many that is its own inverse (Person.friends ↔ Person.friends) has one join table, Z_<n><RELATIONSHIP> \
    (Z_<n><RELATIONSHIP>, REFLEXIVE), holding each pair both ways, so that either column reads it.
    """,
    "An ordered to-many with a to-one inverse keeps its order in the destination's Z_FOK_<INVERSE> column.",
    """
    A uniqueness constraint is listed, not created as an index: Core Data checks it during a save, and whether it \
    also creates an SQLite index for it is not published.
    """,
  ]

  /// The schema for `model`. O(entities × depth + properties).
  public init(_ model: ModelFile) {
    numbered = Self.number(model)
    let number = Dictionary(uniqueKeysWithValues: numbered.map { ($0.name, $0.number) })
    var tables: [Table] = []
    var indexes: [Index] = []
    var skipped: [String] = []
    var orderedInto: [String: [RelationshipDeclaration]] = [:]
    for e in model.entities {
      for r in e.relationships where r.toMany && r.ordered { orderedInto[r.destination, default: []].append(r) }
    }
    let roots = model.entities.filter { $0.parent == nil }.sorted { number[$0.name]! < number[$1.name]! }
    for root in roots {
      let members = ([root] + model.subentities(of: root)).sorted { number[$0.name]! < number[$1.name]! }
      var table = Table(
        name: Self.table(root), entities: members.map(\.name),
        columns: [
          Column(name: "Z_PK", type: "INTEGER", property: nil), Column(name: "Z_ENT", type: "INTEGER", property: nil),
          Column(name: "Z_OPT", type: "INTEGER", property: nil),
        ], primaryKey: ["Z_PK"])
      var taken = Set(table.columns.map(\.name))
      func add(_ entity: EntityDeclaration, _ property: String, _ type: String, prefix: String = "Z") {
        var name = prefix + property.uppercased()
        if taken.contains(name) { name += String(number[entity.name]!) }
        taken.insert(name)
        // An order key stores no property of its own.
        table.columns.append(
          Column(name: name, type: type, property: prefix == "Z" ? "\(entity.name).\(property)" : nil))
      }
      for entity in members {
        for r in entity.relationships where !r.toMany {
          add(entity, r.name, "INTEGER")
          let column = table.columns.last!.name
          indexes.append(
            Index(
              name: "\(table.name)_\(column)_INDEX", table: table.name, columns: [column.sqlName], unique: false,
              purpose: "the to-one \(entity.name).\(r.name)"))
        }
        for r in orderedInto[entity.name] ?? [] {
          if let inverse = r.inverse, entity.relationships.contains(where: { $0.name == inverse && !$0.toMany }) {
            add(entity, inverse, "INTEGER", prefix: "Z_FOK_")
          }
        }
        for a in entity.attributes where !a.transient { add(entity, a.name, a.type.sqliteType) }
      }
      tables.append(table)
    }
    for (joins, joinIndexes) in Self.joinTables(model, number: number) {
      tables.append(joins)
      indexes += joinIndexes
    }
    let tableOf = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    for entity in model.entities.sorted(by: { number[$0.name]! < number[$1.name]! }) {
      guard let table = tableOf[Self.table(model.root(of: entity))] else { continue }
      let toMany = Set(model.properties(of: entity).relationships.filter(\.toMany).map(\.name))
      for index in entity.fetchIndexes {
        var columns: [String] = []
        for element in index.elements {
          // Core Data indexes columns: a to-many relationship has none in this table.
          if toMany.contains(element.property) {
            skipped.append(
              """
              \(entity.name)'s fetch index \(index.name): its element \(element.property) is a to-many relationship, \
              which has no column to index; the index is built without it
              """)
            continue
          }
          let owner = model.declarer(of: element.property, in: entity)?.name ?? entity.name
          let column =
            table.columns.first { $0.property == "\(owner).\(element.property)" }?.name
            ?? "Z" + element.property.uppercased()
          columns.append("\(column.sqlName) COLLATE BINARY \(element.ascending ? "ASC" : "DESC")")
        }
        guard !columns.isEmpty else { continue }
        indexes.append(
          Index(
            name: "Z_\(entity.name)_\(index.name)", table: table.name, columns: columns, unique: false,
            purpose: "the fetch index \(entity.name).\(index.name)"))
      }
    }
    self.tables = tables
    self.indexes = indexes
    self.skipped = skipped
  }

  /// `Z` + the root entity's name in capitals.
  public static func table(_ entity: EntityDeclaration) -> String { "Z" + entity.name.uppercased() }

  static func number(_ model: ModelFile) -> [Numbered] {
    var out: [Numbered] = []
    func visit(_ e: EntityDeclaration, parent: Int) {
      out.append(Numbered(number: out.count + 1, name: e.name, parent: parent))
      let me = out.count
      for child in model.children(of: e.name).sorted(by: { $0.name < $1.name }) { visit(child, parent: me) }
    }
    for root in model.entities.filter({ $0.parent == nil }).sorted(by: { $0.name < $1.name }) { visit(root, parent: 0) }
    return out
  }

  /// One join table per many-to-many pair (or to-many without an inverse), on the owning side.
  /// A many-to-many that is its own inverse (`Person.friends`) has one table whose second
  /// column is `REFLEXIVE`.
  static func joinTables(_ model: ModelFile, number: [String: Int]) -> [(Table, [Index])] {
    var out: [(Table, [Index])] = []
    for entity in model.entities {
      for r in entity.relationships where r.toMany {
        let inverse = r.inverse.flatMap { name in
          model.entity(r.destination).flatMap { d in model.properties(of: d).relationships.first { $0.name == name } }
        }
        guard inverse == nil || inverse!.toMany else { continue }
        let (n, m) = (number[entity.name]!, number[r.destination]!)
        if let inverse, n > m || (n == m && inverse.name < r.name) { continue }
        let name = "Z_\(n)\(r.name.uppercased())"
        let own = "Z_\(n)\((inverse?.name ?? entity.name).uppercased())"
        let other = Self.isReflexive(r, of: entity, inverse: inverse) ? Self.reflexive : "Z_\(m)\(r.name.uppercased())"
        var columns = [
          Column(name: own, type: "INTEGER", property: nil),
          Column(name: other, type: "INTEGER", property: "\(entity.name).\(r.name)"),
        ]
        if r.ordered {
          columns.append(Column(name: "Z_FOK_\(m)\(r.name.uppercased())", type: "INTEGER", property: nil))
        }
        let table = Table(name: name, entities: [], columns: columns, primaryKey: [own, other])
        let reverse = Index(
          name: "\(name)_\(other)_INDEX", table: name, columns: [other.sqlName, own.sqlName], unique: false,
          purpose: "the many-to-many \(entity.name).\(r.name), from the other side")
        out.append((table, [reverse]))
      }
    }
    return out
  }

  /// The second column of the join table of a many-to-many that is its own inverse.
  public static let reflexive = "REFLEXIVE"

  static func isReflexive(
    _ r: RelationshipDeclaration, of entity: EntityDeclaration, inverse: RelationshipDeclaration?
  ) -> Bool {
    r.destination == entity.name && inverse?.name == r.name
  }

  /// The statements that create it, tables then indexes, then `Z_PRIMARYKEY`'s rows. Every
  /// name is quoted where SQL needs it (`sqlName`): a model's names are the app's, not SQL.
  public var statements: [String] {
    tables.map { t in
      "CREATE TABLE \(t.name.sqlName) ("
        + t.columns.map { c in "\(c.name.sqlName) \(c.type)" + (t.primaryKey == [c.name] ? " PRIMARY KEY" : "") }
        .joined(separator: ", ")
        + (t.primaryKey.count > 1 ? ", PRIMARY KEY (\(t.primaryKey.map(\.sqlName).joined(separator: ", ")))" : "")
        + ")"
    }
      + indexes.map { i in
        "CREATE \(i.unique ? "UNIQUE " : "")INDEX \(i.name.sqlName) ON \(i.table.sqlName) (\(i.columns.joined(separator: ", ")))"
      }
      + [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
      ]
  }

  public static func == (a: CoreDataSchema, b: CoreDataSchema) -> Bool {
    a.tables == b.tables && a.indexes == b.indexes && a.numbered == b.numbered
  }
}
