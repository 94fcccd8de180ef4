import FetchedResults

/// A user's own database as a dataset: the model read from its schema (see `DatasetStores`'
/// `UserDatabase`), one entity's list, sorted by the user's sort or by primary key.
public struct DatabaseDataset: DatasetDefinition {
  /// The kind's name for an entity when none is given: lower-case letters, digits and `-`,
  /// never a built-in kind's name (`Flight` → `flight`). O(length).
  public static func kindName(_ entity: String) -> String {
    let name = String(entity.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
    return DatasetKind.allCases.contains { $0.rawValue == name } ? "db-" + name : name
  }

  /// The list's entity as the schema spells it where the kind is named after it; otherwise
  /// the name it was given (`wells-coredata`, a matrix list's name).
  public var displayName: String { Self.displayName(name: name, listEntity: listEntity) }

  /// The name a reader knows a kind `name` listing `listEntity` by (`displayName`). O(length).
  public static func displayName(name: String, listEntity: String) -> String {
    name == kindName(listEntity) ? listEntity : name
  }

  public var name: String
  public var model: Model
  public var listEntity: String
  /// The list's sort; empty: by primary key.
  public var sortDescriptors: [SortDescriptor]
  public var sectionKeyPath: String
  /// Seconds to add to a date column's values for seconds since 1970, by `TABLE.COLUMN`: a
  /// Core Data store's dates count from 2001. The values sort the same either way; only
  /// printing them as dates needs it.
  public var dateOffsets: [String: Double] = [:]
  /// Whether the database is a Core Data store, whose indexes are declared in the model.
  public var isCoreData = false
  /// The relationships the list prefetches, as a cell shows them (a generated dataset's in
  /// Core Data's schema: its own list's); none for a user's.
  public var prefetch: [String] = []
  /// What the list's cell shows (a generated dataset's in Core Data's schema: its own list's);
  /// the row's attributes for a user's.
  public var cells: [String] = []
  public var cellKeyPaths: [String] { cells }

  /// For a Core Data store, `index` as the model editor declares it: a fetch index on the
  /// entity over its attributes (Core Data creates the SQL index itself; `Z_PK` is indexed
  /// already), and the element the model's `contents` holds for it. Nil otherwise.
  /// O(entities × attributes).
  public func coreDataFetchIndex(_ index: IndexSpec) -> String? {
    // The list's own entity where the index is on its table (a sub-entity shares its root's).
    let onTable = model.entities.filter { $0.table == index.table }
    guard isCoreData, let entity = onTable.first(where: { $0.name == listEntity }) ?? onTable.first else { return nil }
    let elements = index.columns.compactMap { c in
      entity.attributes.first { $0.column == c.name && c.name != "Z_ENT" }.map { ($0.name, c.descending) }
    }
    guard !elements.isEmpty else { return nil }
    let words = elements.map { $0.1 ? "\($0.0) (descending)" : $0.0 }
    let name = "by" + elements.map { $0.0.prefix(1).uppercased() + $0.0.dropFirst() }.joined()
    let xml =
      "<fetchIndex name=\"\(name)\">"
      + elements.map {
        "<fetchIndexElement property=\"\($0.0)\" type=\"Binary\" order=\"\($0.1 ? "descending" : "ascending")\"/>"
      }.joined()
      + "</fetchIndex>"
    return
      """
      a fetch index on \(entity.name) over \(words.joined(separator: ", ")) (the entity's Indexes in the model \
      editor, NSFetchIndexDescription; in the model's contents, inside <entity name=\"\(entity.name)\">: \(xml))\
      \(index.columns.first?.name == "Z_ENT" ? Self.entityNumberNote(entity.name) : "")
      """
  }

  /// What the fetch index leaves out of the index measured for a sub-entity's list.
  static func entityNumberNote(_ entity: String) -> String {
    """
    ; the index measured leads with Z_ENT, which tells \(entity)'s rows apart in its tree's table: a model names no \
    such element, and whether Core Data puts Z_ENT in a sub-entity's fetch index is not published
    """
  }

  /// The error to show for `error`: a key path through a to-many relationship is said plainly,
  /// with what to list instead; one through an integer column that no relationship was found
  /// for (a foreign key whose name does not say its entity: Core Data's `ZDETAILS`) names the
  /// option that declares it; any other error is itself, one that names a to-many's key paths
  /// already (a cell's, which may read through one) too. O(relationships + attributes).
  public func explain(_ error: any Error) -> any Error {
    guard case FetchError.unknownKeyPath(let keyPath, let entity, let known) = error,
      let first = keyPath.split(separator: ".").first.map(String.init), keyPath.contains("."),
      !known.contains(where: { $0.hasSuffix(".@count") })
    else { return error }
    let toMany = model.entities.first { $0.name == entity }?.toMany ?? []
    guard
      let link = toMany.first(where: { r in
        // The name as typed, or a plural or singular of it: `flight` finds `flights`.
        let (name, typed) = (r.name.lowercased(), first.lowercased())
        return [name, name + "s", name + "es"].contains(typed) || [typed + "s", typed + "es"].contains(name)
      })
    else {
      // A to-one relationship's name is not a column's, whatever else is wrong with the key path.
      guard let source = model.entities.first(where: { $0.name == entity }), source.relationship(first) == nil,
        let column = source.attribute(first), column.type == .integer
      else { return error }
      let others = model.entities.map(\.name).filter { $0 != entity }
      return FetchError.invalidRequest(
        """
        '\(keyPath)' goes through \(first), which is a column of \(entity) here, not a relationship: FetchBench \
        found none from its name; if it holds another entity's key, declare it with --relationship \(first)=ENTITY \
        (one of \(others.joined(separator: ", ")))
        """
      )
    }
    let rest = keyPath.split(separator: ".").dropFirst().joined(separator: ".")
    return FetchError.invalidRequest(
      """
      '\(keyPath)' goes through \(link.name), a to-many relationship of \(entity): a list sorts and sections \
      through to-one relationships only, and filters through a to-many with ANY \(link.name).\(rest) == …, ALL, \
      NONE or \(link.name).@count
      """
    )
  }

  /// `name` is the kind's name in results (lowercase letters, digits and `-`). O(1).
  public init(
    name: String, model: Model, listEntity: String, sortDescriptors: [SortDescriptor] = [], sectionKeyPath: String
  ) {
    self.name = name
    self.model = model
    self.listEntity = listEntity
    self.sortDescriptors = sortDescriptors
    self.sectionKeyPath = sectionKeyPath
  }

  /// Each entity's table, its primary key first: what index candidates are built from.
  public var tables: [TableSchema] {
    // A sub-entity's table is its root's, listed once with the columns of every entity on it.
    var order: [String] = []
    var byTable: [String: TableSchema] = [:]
    for e in model.entities {
      let columns = e.attributes.filter { $0.column != e.primaryKey }.map { a in
        ColumnSchema(a.column, ColumnType(a.type), nullable: a.isOptional)
      }
      guard var table = byTable[e.table] else {
        order.append(e.table)
        byTable[e.table] = TableSchema(name: e.table, columns: [ColumnSchema(e.primaryKey, .integer)] + columns)
        continue
      }
      table.columns += columns.filter { c in !table.columns.contains { $0.name == c.name } }
      byTable[e.table] = table
    }
    return order.map { byTable[$0]! }
  }

  /// The offset of the date at `keyPath` (from the list's entity), if it is one of
  /// `dateOffsets`. O(key path).
  public func dateOffset(of keyPath: String) -> Double? {
    guard !dateOffsets.isEmpty, let entity = try? model.entity(listEntity),
      let k = try? model.resolve(keyPath, from: entity)
    else {
      return nil
    }
    return dateOffsets["\(k.entity.table).\(k.attribute.column)"]
  }

  public var sortDescription: String {
    sortDescriptors.isEmpty
      ? "primary key"
      : sortDescriptors.map { "`\($0.keyPath)` \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", ")
  }

  public func defaultRequest(batchSize: Int) -> FetchRequest {
    FetchRequest(
      entityName: listEntity, sortDescriptors: sortDescriptors, fetchBatchSize: batchSize,
      relationshipKeyPathsForPrefetching: prefetch)
  }

  /// No typed model exists for a user's rows: sums the length of every string read and
  /// counts every other value. O(objects × attributes).
  public func mapTyped(_ objects: [FetchedObject], codable: Bool) throws -> Int {
    objects.reduce(0) { sum, o in
      o.values.reduce(sum) { s, v in if case .string(let t) = v { s + t.utf8.count } else { s + 1 } }
    }
  }
}

extension ColumnType {
  /// The storage type of an attribute of `type`.
  init(_ type: AttributeType) {
    switch type {
    case .integer, .bool: self = .integer
    case .double: self = .real
    case .date: self = .date
    case .string: self = .text
    }
  }
}
