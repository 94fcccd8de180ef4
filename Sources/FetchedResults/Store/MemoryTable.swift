/// One entity's rows in typed columns: 8 bytes per integer, double or date, 16 per string,
/// plus a null flag per row for optional attributes.
final class MemoryTable {
  let entity: Entity
  private(set) var ids: [Int64] = []
  private(set) var columns: [MemoryColumn]
  private(set) var alive: [Bool] = []
  private(set) var rowOfID: [Int64: Int] = [:]
  private(set) var maxID: Int64 = 0
  /// The bounds of the sort words of every ID ever stored (`MemoryColumn.integerBounds`).
  private(set) var idBounds = WordBounds()
  private(set) var liveCount = 0
  /// Deleted rows still in the columns, until `compactIfNeeded` drops them.
  private(set) var deadCount = 0
  /// value → row, for columns that joins look up; dropped on every write.
  private var indexes: [String: [Int64: Int]] = [:]
  /// Bumped by every change of rows or values: what is derived from the table (a join's row
  /// column) is valid while the version it was built at is current.
  private(set) var version = 0

  init(entity: Entity) {
    self.entity = entity
    columns = entity.attributes.map { MemoryColumn(type: $0.type, optional: $0.isOptional) }
  }

  /// The rows not deleted, in order: one allocation of the exact size. O(rows).
  var liveRows: [Int] { deadCount == 0 ? Array(alive.indices) : alive.indices.filter { alive[$0] } }

  func append(id: Int64, values: [Value]) throws {
    guard values.count == columns.count else {
      throw FetchError.store("\(entity.name): \(values.count) values for \(columns.count) attributes")
    }
    guard rowOfID[id] == nil else { throw FetchError.store("\(entity.name): id \(id) already exists") }
    for (i, v) in values.enumerated() {
      guard columns[i].accepts(v) else {
        throw FetchError.store(
          """
          \(entity.name).\(entity.attributes[i].name): \(v.literalText) does not fit \
          \(columns[i].type.rawValue)\(columns[i].optional ? "" : " (not optional)")
          """
        )
      }
    }
    let row = ids.count
    ids.append(id)
    idBounds.include(SortWord.integer(id))
    alive.append(true)
    for (i, v) in values.enumerated() { columns[i].append(v) }
    rowOfID[id] = row
    maxID = max(maxID, id)
    liveCount += 1
    version += 1
    for (i, a) in entity.attributes.enumerated() { index(row, column: a.column, values[i]) }
  }

  func validate(_ values: [String: Value], forInsert: Bool) throws {
    for (key, v) in values where !(key == "id" && forInsert) {
      guard let i = entity.attributeIndex(key) else {
        throw FetchError.unknownKeyPath(key, entity: entity.name, known: entity.attributes.map(\.name))
      }
      guard columns[i].accepts(v) else {
        throw FetchError.store("\(entity.name).\(key): \(v.literalText) does not fit \(columns[i].type.rawValue)")
      }
    }
    if forInsert {
      for a in entity.attributes where !a.isOptional && values[a.name] == nil {
        throw FetchError.store("\(entity.name).\(a.name) is required")
      }
    }
  }

  /// Sets values and returns the previous values of those that changed.
  func update(id: Int64, values: [String: Value]) -> [String: Value] {
    let row = rowOfID[id]!
    var old: [String: Value] = [:]
    for (key, v) in values {
      let i = entity.attributeIndex(key)!
      let before = columns[i].value(row)
      if before != v {
        unindex(row, column: entity.attributes[i].column, before)
        columns[i].set(row, v)
        index(row, column: entity.attributes[i].column, v)
        old[key] = before
        version += 1
      }
    }
    return old
  }

  /// Marks the row deleted and returns its values.
  func delete(id: Int64) -> [String: Value] {
    let row = rowOfID.removeValue(forKey: id)!
    alive[row] = false
    liveCount -= 1
    deadCount += 1
    version += 1
    var old: [String: Value] = [:]
    for (i, a) in entity.attributes.enumerated() {
      old[a.name] = columns[i].value(row)
      unindex(row, column: a.column, old[a.name]!)
    }
    return old
  }

  /// Drops deleted rows once they are more than a quarter of the table (and over 1,024), so a
  /// store that keeps inserting and deleting stays the size of its live rows. Row numbers
  /// change; nothing outside one query or commit holds them. O(n), every Ω(n) deletes:
  /// amortized O(1) per delete.
  func compactIfNeeded() {
    guard deadCount > 1_024, deadCount * 4 > ids.count else { return }
    var newIDs: [Int64] = []
    newIDs.reserveCapacity(liveCount)
    var newColumns = entity.attributes.map { MemoryColumn(type: $0.type, optional: $0.isOptional) }
    for row in ids.indices where alive[row] {
      newIDs.append(ids[row])
      for i in columns.indices { newColumns[i].append(columns[i].value(row)) }
    }
    ids = newIDs
    idBounds = WordBounds()
    for id in ids { idBounds.include(SortWord.integer(id)) }
    columns = newColumns
    alive = Array(repeating: true, count: ids.count)
    rowOfID = Dictionary(uniqueKeysWithValues: zip(ids, ids.indices))
    indexes = [:]
    deadCount = 0
    version += 1
  }

  // Unique indexes are kept up to date row by row: rebuilding one after each write would
  // make every join after a transaction O(n).
  private func unindex(_ row: Int, column: String, _ v: Value) {
    if case .integer(let k) = v, indexes[column]?[k] == row { indexes[column]![k] = nil }
  }

  private func index(_ row: Int, column: String, _ v: Value) {
    if case .integer(let k) = v, indexes[column] != nil { indexes[column]![k] = row }
  }

  /// Reads attribute `name` (or the primary key, `id`) of a row.
  func reader(_ name: String) -> (Int) -> Value {
    if name == "id" || entity.attribute(name) == nil {
      let ids = self.ids
      return { .integer(ids[$0]) }
    }
    let column = columns[entity.attributeIndex(name)!]
    return { column.value($0) }
  }

  /// value → row for an integer column (or the primary key), live rows only.
  func uniqueIndex(onColumn column: String) -> [Int64: Int] {
    if column == entity.primaryKey { return rowOfID }
    if let cached = indexes[column] { return cached }
    var index: [Int64: Int] = [:]
    if let i = entity.attributes.firstIndex(where: { $0.column == column }) {
      for row in ids.indices where alive[row] {
        if case .integer(let k) = columns[i].value(row) { index[k] = row }
      }
    }
    indexes[column] = index
    return index
  }
}
