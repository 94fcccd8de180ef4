/// Core Data's in-memory store: every table in typed columns, predicates and sorts evaluated
/// in Swift.
///
/// Not thread-safe: use one store from one thread at a time, as one managed object context.
public final class MemoryStore: Store {
  public let model: Model
  public internal(set) var counters = StoreCounters()
  var tables: [String: MemoryTable] = [:]
  /// Each to-one join's column (`JoinColumn`), by `Entity.relationship`.
  var joinCache: [String: JoinColumn] = [:]
  /// Each many-to-many relationship's pairs of source and destination keys.
  var joinRows: [JoinTable: [(source: Int64, destination: Int64)]] = [:]
  /// Each to-many relationship's elements by source key, at its destination's version.
  var elementCache: [String: (version: Int, rows: [Int64: [Int32]])] = [:]
  /// The last batch fault's request, its layout and row plan, with the versions of the tables
  /// they read: a scroll-through faults thousands of batches of one request.
  var batchPlan: (request: FetchRequest, versions: [Int], layout: RowLayout, plan: RowPlan)?
  private var sequence = 0
  public let observers = TransactionObservers()

  /// An empty store for `model`.
  public init(model: Model) {
    self.model = model
    for e in model.entities { tables[e.name] = MemoryTable(entity: e) }
  }

  public func resetCounters() { counters = StoreCounters() }

  /// Appends rows without reporting a transaction: for bulk loading. `values` follow the
  /// entity's attribute order. O(1) amortized per row.
  public func load(entity: String, id: Int64, values: [Value]) throws {
    guard let t = tables[entity] else { throw FetchError.unknownEntity(entity, known: model.entities.map(\.name)) }
    try t.append(id: id, values: values)
  }

  /// Adds one row of a many-to-many relationship's join table, without reporting a
  /// transaction: for bulk loading. O(1) amortized.
  public func load(join: JoinTable, source: Int64, destination: Int64) {
    joinRows[join, default: []].append((source, destination))
  }

  public func fetchJoinRows(_ table: JoinTable) throws -> [(source: Int64, destination: Int64)] {
    counters.queries += 1
    return joinRows[table] ?? []
  }

  /// Rows of `entity`, deleted rows excluded.
  public func rowCount(_ entity: String) -> Int { tables[entity]?.liveCount ?? 0 }

  public func fetchIDs(_ request: ResolvedRequest) throws -> [Int64] {
    counters.queries += 1
    return try orderedIDs(request)
  }

  public func fetchObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
    counters.queries += 1
    let t = table(request)
    let (layout, plan) = batchRowPlan(request)
    var out: [FetchedObject] = []
    out.reserveCapacity(ids.count)
    for id in ids {
      guard let row = t.rowOfID[id] else { continue }
      out.append(FetchedObject(id: id, values: plan.values(row), layout: layout))
    }
    counters.rowsMaterialized += out.count
    return out
  }

  public func fetchObjects(_ request: ResolvedRequest) throws -> [FetchedObject] {
    counters.queries += 1
    let t = table(request)
    let layout = request.rowLayout
    let plan = rowPlan(request, bulk: true)
    let out = try orderedRows(request).map { row in
      FetchedObject(id: t.ids[row], values: plan.values(row), layout: layout)
    }
    counters.rowsMaterialized += out.count
    return out
  }

  public func fetchDestination(of relationship: Relationship, key: Int64) throws -> [Value]? {
    counters.queries += 1
    guard let destination = tables[relationship.destination] else {
      throw FetchError.unknownEntity(relationship.destination, known: tables.keys.sorted())
    }
    guard let row = destination.uniqueIndex(onColumn: relationship.destinationColumn)[key] else { return nil }
    counters.rowsMaterialized += 1
    return destination.columns.map { $0.value(row) }
  }

  public func count(_ request: ResolvedRequest) throws -> Int {
    counters.queries += 1
    if request.request.fetchLimit == 0 && request.request.fetchOffset == 0 {
      return try matchingRows(request).count
    }
    return try orderedRows(request).count
  }

  public func sectionCounts(_ request: ResolvedRequest) throws -> [SectionCount] {
    counters.queries += 1
    return try sectionCounts(request, ordered: nil)
  }

  /// One query, as on SQL stores: the ordered rows once, the sections from the leading key.
  public func fetchIDsAndSections(_ request: ResolvedRequest) throws -> (ids: [Int64], sections: [SectionCount]) {
    counters.queries += 1
    guard request.request.fetchLimit == 0 && request.request.fetchOffset == 0 else {
      let rows = try orderedRows(request)
      let t = table(request)
      return (rows.map { t.ids[$0] }, try sectionCounts(request, ordered: rows))
    }
    guard let section = request.section else {
      throw FetchError.invalidRequest("section counts need a section key path")
    }
    if let packed = try packedIDs(request, section: section) { return packed }
    // One filter and one extraction of the keys for both: the sections are counted from the
    // leading sort's words before the sort consumes them.
    let t = table(request)
    let rows = try matchingRows(request)
    var perSort = request.sorts.map { sortWords($0, t, rows) }
    let counts = sections(request, section, rows: rows, leading: perSort[0])
    var words = perSort.flatMap { $0 }
    perSort = []
    return (orderedIDs(request, rows: rows, words: &words), counts)
  }

  /// Without a limit or offset, counted from the leading key's words with no sort; otherwise
  /// from the runs of the ordered rows (`ordered`, or sorted here).
  private func sectionCounts(_ request: ResolvedRequest, ordered: [Int]?) throws -> [SectionCount] {
    guard let section = request.section else {
      throw FetchError.invalidRequest("section counts need a section key path")
    }
    if request.request.fetchLimit == 0 && request.request.fetchOffset == 0 { return try sections(request, section) }
    let key = reader(section, table(request))
    var out: [SectionCount] = []
    for row in try ordered ?? orderedRows(request) {
      let v = key(row)
      if let last = out.last, last.value == v {
        out[out.count - 1].count += 1
      } else {
        out.append(SectionCount(value: v, count: 1))
      }
    }
    return out
  }

  @discardableResult
  public func commit(_ operations: [WriteOperation]) throws -> StoreTransaction {
    // Validate everything first: a transaction applies whole or not at all.
    var nextIDs: [String: Int64] = [:]
    var plannedInserts: [String: Set<Int64>] = [:]
    for op in operations {
      switch op {
      case .insert(let e, let values):
        let t = try tableNamed(e)
        try t.validate(values, forInsert: true)
        let id: Int64
        if case .integer(let given)? = values["id"] {
          id = given
        } else {
          id = (nextIDs[e] ?? (t.maxID + 1))
        }
        guard t.rowOfID[id] == nil, plannedInserts[e, default: []].insert(id).inserted else {
          throw FetchError.store("\(e): id \(id) already exists")
        }
        nextIDs[e] = max(nextIDs[e] ?? t.maxID + 1, id + 1)
      case .update(let e, let id, let values):
        let t = try tableNamed(e)
        guard t.rowOfID[id] != nil || plannedInserts[e]?.contains(id) == true else {
          throw FetchError.store("\(e): no row with id \(id) to update")
        }
        try t.validate(values, forInsert: false)
      case .delete(let e, let id):
        let t = try tableNamed(e)
        guard t.rowOfID[id] != nil || plannedInserts[e]?.contains(id) == true else {
          throw FetchError.store("\(e): no row with id \(id) to delete")
        }
      }
    }
    // The cached batch plan holds the tables' columns and indexes, stale after this write:
    // released first, so that the writes below modify them in place instead of copying each
    // one they touch whole (copy-on-write; tens of megabytes at millions of rows).
    batchPlan = nil
    var recorder = ChangeRecorder()
    for op in operations {
      switch op {
      case .insert(let e, let values):
        let t = tables[e]!
        let id: Int64
        if case .integer(let given)? = values["id"] { id = given } else { id = t.maxID + 1 }
        try t.append(id: id, values: t.entity.attributes.map { values[$0.name] ?? .null })
        recorder.inserted(e, id, links: links(t, id))
      case .update(let e, let id, let values):
        let t = tables[e]!
        let old = t.update(id: id, values: values)
        recorder.updated(e, id, old: old)
        if !old.isEmpty { recorder.linked(e, id, links(t, id)) }
      case .delete(let e, let id):
        let t = tables[e]!
        let old = t.delete(id: id)
        recorder.deleted(e, id, old: old)
        recorder.linked(e, id, old.filter { k, _ in model.linkAttributes(of: t.entity).contains { $0.name == k } })
      }
    }
    for t in tables.values { t.compactIfNeeded() }
    sequence += 1
    counters.commits += 1
    let transaction = StoreTransaction(sequence: sequence, changes: recorder.changes)
    observers.notify(transaction)
    return transaction
  }

  /// The link attributes of a live row.
  private func links(_ t: MemoryTable, _ id: Int64) -> [String: Value] {
    guard let row = t.rowOfID[id] else { return [:] }
    var out: [String: Value] = [:]
    for a in model.linkAttributes(of: t.entity) { out[a.name] = t.reader(a.name)(row) }
    return out
  }

  public func fetchKeyedIDs(_ request: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs {
    counters.queries += 1
    let t = table(request)
    let readers = request.sorts.dropLast().map { reader($0.keyPath, t) }
    let rows: [Int]
    if let ids {
      let test = request.predicate.map { compile($0, t) }
      rows = try ids.compactMap { id -> Int? in
        guard let row = t.rowOfID[id] else { return nil }
        return try test.map { try $0(row) == true } ?? true ? row : nil
      }
    } else {
      rows = try orderedRows(request)
    }
    return KeyedIDs(ids: rows.map { t.ids[$0] }, keys: readers.map { read in rows.map(read) })
  }

  public func relatedIDs(_ request: ResolvedRequest, through relationship: Relationship, destinationIDs: [Int64]) throws
    -> [Int64]
  {
    counters.queries += 1
    let t = table(request)
    let dest = tables[relationship.destination]!
    // The destination rows' join values, then the source rows holding them.
    let destAttribute = dest.entity.attribute(relationship.destinationColumn.camelCased(in: dest.entity))?.name
    let wanted =
      destAttribute.map { name in Set(destinationIDs.compactMap { dest.rowOfID[$0] }.map(dest.reader(name))) }
      // By primary key: the IDs themselves, so that a key naming a deleted row is found too.
      ?? Set(destinationIDs.map(Value.integer))
    if relationship.sourceColumn == t.entity.primaryKey {
      return wanted.compactMap { if case .integer(let k) = $0, t.rowOfID[k] != nil { k } else { nil } }
    }
    let sourceKey = t.reader(t.entity.attribute(relationship.sourceColumn.camelCased(in: t.entity))?.name ?? "id")
    return t.liveRows.filter { wanted.contains(sourceKey($0)) }.map { t.ids[$0] }
  }

  // MARK: evaluation

  private func tableNamed(_ e: String) throws -> MemoryTable {
    guard let t = tables[e] else { throw FetchError.unknownEntity(e, known: model.entities.map(\.name)) }
    return t
  }

  func table(_ request: ResolvedRequest) -> MemoryTable { tables[request.entity.name]! }

  /// A function reading `keyPath` for a row of `t`, following one to-one relationship.
  func reader(_ keyPath: ResolvedKeyPath, _ t: MemoryTable) -> (Int) -> Value {
    guard let rel = keyPath.relationship else { return t.reader(keyPath.attribute.name) }
    let destination = destinationRow(rel, t, bulk: false)
    let read = tables[rel.destination]!.reader(keyPath.attribute.name)
    return { row in
      let d = destination(row)
      return d < 0 ? .null : read(d)
    }
  }

  func matchingRows(_ request: ResolvedRequest) throws(FetchError) -> [Int] {
    let t = table(request)
    let live = t.liveRows
    guard let predicate = request.predicate else { return live }
    let test = compile(predicate, t)
    var rows: [Int] = []
    for row in live where try test(row) == true { rows.append(row) }
    return rows
  }

  /// A conjunction (`decisive` false) or disjunction (`decisive` true) of three-valued tests:
  /// the first term that gives `decisive` decides; else an unknown term makes it unknown.
  private func decided(by decisive: Bool, _ tests: [RowTest]) -> RowTest {
    { row in
      var unknown = false
      for test in tests {
        switch try test(row) {
        case decisive?: return decisive
        case nil: unknown = true
        default: break
        }
      }
      return unknown ? nil : !decisive
    }
  }

  /// A row's three-valued test: nil is SQL's unknown. It throws where MATCHES's expression ran
  /// past its time limit.
  typealias RowTest = (Int) throws(FetchError) -> Bool?

  /// Compiles a predicate to a three-valued test: nil is SQL's unknown.
  func compile(_ p: BoundPredicate, _ t: MemoryTable) -> RowTest {
    switch p {
    case .collection(let c): return compileCollection(c, t, compile: compile)
    case .constant(let b): return { _ in b }
    case .comparison(let k, let op, let v):
      return compile(.ordered(k, op, v, .values), t)
    case .ordered(let k, let op, let v, let order):
      let read = reader(k, t)
      if v.isNull {
        switch op {
        case .equal: return { read($0).isNull }
        case .notEqual: return { !read($0).isNull }
        default: return { _ in nil }
        }
      }
      return { row in
        let x = read(row)
        if x.isNull { return nil }
        let c = order.compare(x, v)
        switch op {
        case .equal: return c == 0
        case .notEqual: return c != 0
        case .less: return c < 0
        case .lessOrEqual: return c <= 0
        case .greater: return c > 0
        case .greaterOrEqual: return c >= 0
        }
      }
    case .between(let k, let lo, let hi):
      let read = reader(k, t)
      return { row in
        let x = read(row)
        if x.isNull || lo.isNull || hi.isNull { return nil }
        return Value.compare(x, lo) >= 0 && Value.compare(x, hi) <= 0
      }
    case .in(let k, let values):
      let read = reader(k, t)
      let set = Set(values.filter { !$0.isNull })
      let hasNull = values.contains(where: \.isNull)
      return { row in
        let x = read(row)
        if x.isNull { return nil }
        if set.contains(x) { return true }
        return hasNull ? nil : false
      }
    case .text(let k, let op, let pattern, let fold):
      let read = reader(k, t)
      let match = TextMatch(op, pattern, fold: fold, collation: model.collation)
      return { row in
        guard case .string(let s) = read(row) else { return nil }
        return try match.matches(s)
      }
    // SQL's three-valued logic: AND is decided by a false term, OR by a true one; otherwise
    // an unknown (NULL) term makes the whole unknown.
    case .and(let ps): return decided(by: false, ps.map { compile($0, t) })
    case .or(let ps): return decided(by: true, ps.map { compile($0, t) })
    case .not(let q):
      let test = compile(q, t)
      return { row throws(FetchError) in try test(row).map { !$0 } }
    }
  }
}

extension String {
  /// The attribute name whose column is `self` (`info_id` → `infoID`), if the entity has one.
  func camelCased(in entity: Entity) -> String {
    entity.attributes.first { $0.column == self }?.name ?? self
  }
}
