import Collation
import FetchedResults

extension DatabaseSchema {
  /// Core Data's bookkeeping columns: not attributes.
  static let coreDataBookkeeping: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]

  /// A table FetchBench does not make an entity of, and why.
  public struct Skipped: Sendable {
    public var table: String
    public var reason: String
  }

  /// The entities of the schema: each table with an integer primary key (each Core Data
  /// entity), its columns as attributes, and its to-one relationships (declared foreign keys;
  /// in a Core Data store, integer columns named after an entity or named in
  /// `relationships` as `column=Entity`). O(tables × columns).
  public func model(relationships named: [String: String] = [:], toMany declared: [String: [ToManyRelationship]] = [:])
    throws -> (model: Model, skipped: [Skipped])
  {
    var entities: [Entity] = []
    var skipped: [Skipped] = []
    let joins = coreDataJoinTables
    for table in tables {
      if let join = joins.first(where: { $0.table == table.name }) {
        skipped.append(
          Skipped(table: table.name, reason: "Core Data's join table of \(join.description), read as them"))
        continue
      }
      guard let pk = table.primaryKey else {
        skipped.append(
          Skipped(
            table: table.name,
            reason: onServer
              ? """
              no single-column integer primary key: FetchBench lists rows by a stable integer ID; a column `id \
              bigint PRIMARY KEY` makes it usable
              """
              : """
              no INTEGER PRIMARY KEY: FetchBench lists rows by a stable integer ID; a column declared `id INTEGER \
              PRIMARY KEY` makes it usable
              """
          ))
        continue
      }
      if let reason = table.unlistable {
        skipped.append(Skipped(table: table.name, reason: reason))
        continue
      }
      if flavour == .coreData && coreDataEntities[table.name] == nil {
        skipped.append(Skipped(table: table.name, reason: "not an entity of Z_PRIMARYKEY"))
        continue
      }
      var entity = Entity(
        name: entityName(of: table), table: table.name, attributes: attributes(of: table, pk: pk), primaryKey: pk)
      entity.keysIgnoreCase = true
      entities.append(entity)
    }
    for i in entities.indices {
      entities[i].relationships = try toOne(from: entities[i], among: entities, named: named)
    }
    for i in entities.indices {
      entities[i].relationships += inverses(to: entities[i], among: entities)
    }
    for i in entities.indices {
      // A model's declarations first; the store's own join tables for what it does not declare.
      var own = declared[entities[i].name] ?? []
      for join in joins {
        for r in join.relationships(from: entities[i].name) where !own.contains(where: { $0.name == r.name }) {
          own.append(r)
        }
      }
      entities[i].toMany = toMany(to: entities[i], among: entities, declared: own)
    }
    return (Model(entities: entities, collation: FoundationCollation.current), skipped)
  }

  /// `model` with the Core Data sub-entity named `name` (whatever its case) as an entity of
  /// its own: its root's table, attributes and relationships, plus `Z_ENT`, and a row filter
  /// to the entity numbers of its rows, as Core Data's fetch of it filters. nil when the store
  /// has no such sub-entity. The root's attributes include its other sub-entities' columns,
  /// which hold NULL in this one's rows. O(entities).
  public func addingSubentity(_ name: String, to model: Model) -> Model? {
    guard let (entityName, sub) = coreDataSubentities.first(where: { $0.key.lowercased() == name.lowercased() }),
      var entity = model.entities.first(where: { $0.table == sub.table })
    else { return nil }
    entity.name = entityName
    entity.attributes = Self.ownColumns(entity.attributes, lineage: sub.lineage ?? [])
    entity.attributes.append(Attribute(Self.entityNumber, column: Self.entityNumber, .integer))
    entity.rowFilter =
      sub.numbers.count == 1
      ? .comparison(Self.entityNumber, .equal, .integer(Int64(sub.numbers[0])))
      : .in(Self.entityNumber, sub.numbers.map { .integer(Int64($0)) })
    var out = model
    out.entities.append(entity)
    return out
  }

  /// A sub-entity's attributes among its root table's: where Core Data named a column with the
  /// number of the sub-entity or of an ancestor below the root (`ZBODY4`, because `ZBODY` was
  /// another entity's `body`), that column is this entity's attribute of the plain name, in
  /// place of the other's. O(attributes × lineage).
  static func ownColumns(_ attributes: [Attribute], lineage: [Int]) -> [Attribute] {
    var out = attributes
    for number in lineage {
      for (i, a) in out.enumerated() {
        guard a.name.hasSuffix(String(number)), a.name.count > String(number).count else { continue }
        let plain = String(a.name.dropLast(String(number).count))
        guard let other = out.firstIndex(where: { $0.name == plain }) else { continue }
        var own = a
        own.name = plain
        out[i] = own
        out.remove(at: other)
        return ownColumns(out, lineage: lineage)
      }
    }
    return out
  }

  /// The column, and the attribute, that tell a Core Data table's entities apart.
  public static let entityNumber = "Z_ENT"

  /// Core Data's date columns (declared `TIMESTAMP`, seconds since 2001-01-01) by
  /// `TABLE.COLUMN`, with the seconds from 1970 to 2001.
  public var coreDataDateOffsets: [String: Double] {
    guard flavour == .coreData else { return [:] }
    var out: [String: Double] = [:]
    for t in tables {
      for c in t.columns where c.declaredType.uppercased() == "TIMESTAMP" { out["\(t.name).\(c.name)"] = 978_307_200 }
    }
    return out
  }

  /// The to-many relationships of `entity`: those `declared` (a Core Data model's, by name,
  /// one-to-many and many-to-many), then each other entity's to-one relationship that points
  /// at it and no declared one reads, seen from its side and named by the pointing entity
  /// (`flights` ← `flights.plane_id`). A one-to-one's side already named as a to-one is
  /// left out. O(entities × relationships).
  func toMany(to entity: Entity, among entities: [Entity], declared: [ToManyRelationship]) -> [ToManyRelationship] {
    var out = declared.filter { r in entities.contains { $0.name == r.destination } }
    for source in entities {
      for r in source.relationships where r.destination == entity.name && r.sourceColumn != source.primaryKey {
        let link = ToManyRelationship.Link.foreignKey(r.sourceColumn)
        guard !out.contains(where: { $0.destination == source.name && $0.link == link }),
          entity.relationship(source.name) == nil, entity.attribute(source.name) == nil
        else { continue }
        out.append(ToManyRelationship(source.name, to: source.name, sourceColumn: r.destinationColumn, link: link))
      }
    }
    return out
  }

  /// The entity name of `table`: Core Data's, or the table's own.
  public func entityName(of table: Table) -> String { coreDataEntities[table.name] ?? table.name }

  /// A Core Data column's attribute name: without the `Z`, lowercased (`ZTIMEHOUR` →
  /// `timehour`; key paths match it whatever their case, so `timeHour` finds it).
  static func coreDataName(_ column: String) -> String {
    String(column.hasPrefix("Z") ? column.dropFirst() : Substring(column)).lowercased()
  }

  func attributes(of table: Table, pk: String) -> [Attribute] {
    table.columns.compactMap { c in
      guard c.name != pk, !(flavour == .coreData && Self.coreDataBookkeeping.contains(c.name)),
        let type = c.attributeType
      else {
        return nil
      }
      let name = flavour == .coreData ? Self.coreDataName(c.name) : c.name
      // A store without the generated column's expression (in memory) leaves it empty.
      return Attribute(name, column: c.name, type, optional: c.nulls > 0 || c.generated, derived: c.generated)
    }
  }

  /// The to-one relationships whose foreign key is a column of `entity`'s table.
  func toOne(from entity: Entity, among entities: [Entity], named: [String: String]) throws -> [Relationship] {
    guard let table = table(entity.table) else { return [] }
    if flavour == .app {
      return table.foreignKeys.compactMap { fk in
        guard let destination = entities.first(where: { $0.table.lowercased() == fk.destinationTable.lowercased() })
        else { return nil }
        return Relationship(
          Self.relationshipName(fk.column), to: destination.name, sourceColumn: fk.column,
          destinationColumn: fk.destinationColumn)
      }
    }
    return try table.columns.compactMap { c -> Relationship? in
      guard !Self.coreDataBookkeeping.contains(c.name), c.attributeType == .integer else { return nil }
      let name = Self.coreDataName(c.name)
      let target: String
      if let given = named.first(where: { $0.key.lowercased() == name })?.value {
        guard let e = entities.first(where: { $0.name.lowercased() == given.lowercased() }) else {
          throw UserDatabaseError.unknownEntity(given, known: entities.map(\.name))
        }
        target = e.name
      } else if let e = entities.first(where: { $0.name.lowercased() == name }) {
        target = e.name
      } else {
        return nil
      }
      return Relationship(name, to: target, sourceColumn: c.name, destinationColumn: "Z_PK")
    }
  }

  /// In an app's schema, the other side of each one-to-one (a UNIQUE foreign key) that points
  /// at `entity`, named after the table that holds the key.
  func inverses(to entity: Entity, among entities: [Entity]) -> [Relationship] {
    guard flavour == .app else { return [] }
    return entities.flatMap { source in
      (table(source.table)?.foreignKeys ?? []).filter { fk in
        fk.unique && fk.destinationTable.lowercased() == entity.table.lowercased()
          && !entity.relationships.contains { $0.name == source.table }
      }.map { fk in
        Relationship(source.table, to: source.name, sourceColumn: fk.destinationColumn, destinationColumn: fk.column)
      }
    }
  }

  /// `plane_id` → `plane`, `planeId` → `plane`, `plane` → `plane`.
  static func relationshipName(_ column: String) -> String {
    for suffix in ["_id", "_ID", "Id", "ID"] where column.hasSuffix(suffix) && column.count > suffix.count {
      return String(column.dropLast(suffix.count))
    }
    return column
  }
}

/// A many-to-many of a Core Data store as its join table holds it: `Z_2TAGS (Z_2ITEMS,
/// Z_5TAGS)` holds, for each pair, the key of entity 2 in the column named for the relationship
/// that reaches entity 2 (`items`) and the key of entity 5 in the column named for the one that
/// reaches 5 (`tags`). So entity 2's `tags` and entity 5's `items`, each the other's inverse,
/// read without the model.
struct CoreDataJoinTable {
  struct Side {
    var column: String
    /// The entity whose keys the column holds, the entity the store's reader makes of its
    /// table (its root), and the name of the relationship that reaches it.
    var entity: String
    var root: String
    var relationship: String
  }
  var table: String
  var sides: (Side, Side)

  /// `Item.tags ↔ Tag.items`.
  var description: String {
    "\(sides.0.entity).\(sides.1.relationship) ↔ \(sides.1.entity).\(sides.0.relationship)"
  }

  /// The relationships whose source rows are in the table of `entity` (a root: the store's
  /// reader names entities by their tables), by the model's spelling, lowercased.
  func relationships(from entity: String) -> [ToManyRelationship] {
    // A reflexive table's two directions are one relationship.
    let directions =
      sides.1.column == CoreDataSchema.reflexive ? [(sides.0, sides.1)] : [(sides.0, sides.1), (sides.1, sides.0)]
    return directions.compactMap { (source, destination) in
      guard source.root == entity else { return nil }
      return ToManyRelationship(
        destination.relationship, to: destination.root, sourceColumn: "Z_PK",
        link: .joinTable(JoinTable(table, sourceColumn: source.column, destinationColumn: destination.column)))
    }
  }
}

extension DatabaseSchema {
  /// The store's many-to-many join tables: a table of no entity whose first two columns are
  /// `Z_<number><NAME>`, each number an entity of Z_PRIMARYKEY. O(tables × columns).
  var coreDataJoinTables: [CoreDataJoinTable] {
    guard flavour == .coreData, let numbers = coreDataNumbers else { return [] }
    return tables.compactMap { table in
      guard table.primaryKey == nil, table.name.hasPrefix("Z_"), table.columns.count >= 2 else { return nil }
      func side(_ column: Column) -> CoreDataJoinTable.Side? {
        let name = column.name.dropFirst(2)
        guard column.name.hasPrefix("Z_"), let digits = name.firstIndex(where: { !$0.isNumber }),
          let number = Int(name[..<digits]), let entity = numbers[number], let root = coreDataEntities[entity.table]
        else { return nil }
        return .init(
          column: column.name, entity: entity.name, root: root, relationship: String(name[digits...]).lowercased())
      }
      guard let a = side(table.columns[0]) else { return nil }
      // A many-to-many that is its own inverse: both columns hold keys of one entity.
      if table.columns[1].name == CoreDataSchema.reflexive {
        return CoreDataJoinTable(
          table: table.name,
          sides: (
            a, .init(column: CoreDataSchema.reflexive, entity: a.entity, root: a.root, relationship: a.relationship)
          ))
      }
      guard let b = side(table.columns[1]) else { return nil }
      return CoreDataJoinTable(table: table.name, sides: (a, b))
    }
  }
}
