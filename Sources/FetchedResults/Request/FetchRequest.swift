/// One sort key: a key path, a direction, and for a string how two compare (NSSortDescriptor's
/// selector).
public struct SortDescriptor: Sendable, Equatable, Codable {
  public var keyPath: String
  public var ascending: Bool
  public var selector: SortSelector

  public init(_ keyPath: String, ascending: Bool = true, selector: SortSelector = .compare) {
    self.keyPath = keyPath
    self.ascending = ascending
    self.selector = selector
  }
}

/// What to fetch and how (NSFetchRequest plus the controller's section key path).
public struct FetchRequest: Sendable, Equatable {
  public var entityName: String
  public var predicate: FetchPredicate?
  /// The primary key is always appended as the final ascending tie-breaker, so the order is
  /// total and the same in every store and every run.
  public var sortDescriptors: [SortDescriptor]
  public var sectionNameKeyPath: String?
  /// 0 fetches every row at once; N > 0 fetches the sorted IDs and loads rows N at a time.
  public var fetchBatchSize: Int
  /// 0 means no limit.
  public var fetchLimit: Int
  public var fetchOffset: Int
  /// Relationships loaded with the rows, as `relationshipKeyPathsForPrefetching`: a to-one's
  /// attributes with each row (one JOIN, no extra query), a to-many's elements by one more
  /// query per batch.
  public var relationshipKeyPathsForPrefetching: [String]

  public init(
    entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [SortDescriptor] = [],
    sectionNameKeyPath: String? = nil, fetchBatchSize: Int = 0, fetchLimit: Int = 0,
    fetchOffset: Int = 0, relationshipKeyPathsForPrefetching: [String] = []
  ) {
    self.entityName = entityName
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
    self.sectionNameKeyPath = sectionNameKeyPath
    self.fetchBatchSize = fetchBatchSize
    self.fetchLimit = fetchLimit
    self.fetchOffset = fetchOffset
    self.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
  }

  /// Checks the request against a model and binds its key paths; stores take only resolved
  /// requests, so they never see an unknown key path or a literal of the wrong type.
  public func resolve(in model: Model) throws(FetchError) -> ResolvedRequest {
    let entity = try model.entity(entityName)
    guard fetchBatchSize >= 0 else { throw .invalidRequest("fetchBatchSize must be ≥ 0, got \(fetchBatchSize)") }
    guard fetchLimit >= 0 else { throw .invalidRequest("fetchLimit must be ≥ 0, got \(fetchLimit)") }
    guard fetchOffset >= 0 else { throw .invalidRequest("fetchOffset must be ≥ 0, got \(fetchOffset)") }
    try checkSize()
    var sorts: [ResolvedSort] = []
    for s in sortDescriptors {
      let keyPath = try model.resolve(s.keyPath, from: entity)
      if s.selector != .compare {
        guard keyPath.attribute.type == .string else {
          throw .invalidRequest("\(s.selector.rawValue) compares strings; \(s.keyPath) is \(keyPath.attribute.type)")
        }
        guard model.collation != nil else {
          throw .invalidRequest(
            "\(s.selector.rawValue) needs the locale's collation, and the store's model has none (Model.collation)")
        }
      }
      sorts.append(
        ResolvedSort(
          keyPath: keyPath, ascending: s.ascending, order: KeyOrder(selector: s.selector, collation: model.collation)))
    }
    let section = try sectionNameKeyPath.map { (k: String) throws(FetchError) -> ResolvedKeyPath in
      try model.resolve(k, from: entity)
    }
    if let section, sorts.first?.keyPath.keyPath != section.keyPath {
      throw .sectionSortMismatch(section: section.keyPath, firstSort: sorts.first?.keyPath.keyPath)
    }
    if sorts.last.map({ $0.keyPath.relationship == nil && $0.keyPath.attribute.name == "id" }) != true {
      sorts.append(ResolvedSort(keyPath: try model.resolve("id", from: entity), ascending: true, order: .values))
    }
    var prefetch: [Relationship] = []
    var prefetchToMany: [ToManyRelationship] = []
    for name in relationshipKeyPathsForPrefetching {
      if let r = entity.toManyRelationship(name) {
        _ = try model.entity(r.destination)
        prefetchToMany.append(r)
        continue
      }
      guard let r = entity.relationship(name) else {
        throw .unknownKeyPath(
          name, entity: entity.name, known: entity.relationships.map(\.name) + entity.toMany.map(\.name))
      }
      _ = try model.entity(r.destination)
      prefetch.append(r)
    }
    let bound = try Self.rowsOf(entity, predicate).map { (p: FetchPredicate) throws(FetchError) -> BoundPredicate in
      try BoundPredicate(p, model: model, entity: entity)
    }
    return ResolvedRequest(
      request: self, entity: entity, model: model, predicate: bound, sorts: sorts,
      section: section, prefetch: prefetch, prefetchToMany: prefetchToMany)
  }
}

extension FetchRequest {
  /// The most sort keys a list takes: a keyset page's seek grows with their square, and
  /// SQLite's expression depth bounds it.
  public static let maxSortKeys = 64
  /// The most comparisons a predicate holds, and values it binds: within SQLite's expression
  /// depth (1,000) and its bound parameters (32,766) with room for the row filter and a keyset
  /// page's seek, so that every store takes what one store takes.
  public static let maxComparisons = 500
  public static let maxValues = 30_000

  /// Throws for a request larger than every store can run. O(predicate's size).
  func checkSize() throws(FetchError) {
    guard sortDescriptors.count <= Self.maxSortKeys else {
      throw .invalidRequest(
        "a list sorts by at most \(Self.maxSortKeys) keys; this one gives \(sortDescriptors.count)")
    }
    guard let size = predicate?.size else { return }
    guard size.comparisons <= Self.maxComparisons else {
      throw .invalidRequest(
        """
        a predicate holds at most \(Self.maxComparisons) comparisons, as SQLite's expression depth allows; this one \
        holds \(size.comparisons): put many values of one key path in one IN {…}
        """)
    }
    guard size.values <= Self.maxValues else {
      throw .invalidRequest(
        "a predicate binds at most 30,000 values, as SQLite's parameters allow; this one binds \(size.values)")
    }
  }
}

extension FetchRequest {
  /// `predicate` limited to `entity`'s rows of its table (`Entity.rowFilter`).
  static func rowsOf(_ entity: Entity, _ predicate: FetchPredicate?) -> FetchPredicate? {
    guard let filter = entity.rowFilter else { return predicate }
    return predicate.map { .and([filter, $0]) } ?? filter
  }
}

/// A sort descriptor bound to the model.
public struct ResolvedSort: Sendable, Equatable {
  public var keyPath: ResolvedKeyPath
  public var ascending: Bool
  /// How its values order: `Value.compare`, or the model's collation under a selector.
  public var order: KeyOrder

  public var selector: SortSelector { order.selector }

  public static func == (a: ResolvedSort, b: ResolvedSort) -> Bool {
    a.keyPath == b.keyPath && a.ascending == b.ascending && a.selector == b.selector
  }
}

/// A fetch request checked against a model: what stores execute.
public struct ResolvedRequest: Sendable {
  public var request: FetchRequest
  public var entity: Entity
  public var model: Model
  public var predicate: BoundPredicate?
  /// The request's sort descriptors, with the primary key appended as the last tie-breaker.
  public var sorts: [ResolvedSort]
  public var section: ResolvedKeyPath?
  /// The to-one relationships prefetched: joined into the rows.
  public var prefetch: [Relationship]
  /// The to-many relationships prefetched: their elements registered per batch.
  public var prefetchToMany: [ToManyRelationship] = []

  /// Every relationship a query must join: those in the predicate, sorts, section and
  /// prefetch, each once, in a stable order.
  public var joins: [Relationship] {
    var out: [Relationship] = []
    func add(_ r: Relationship?) {
      if let r, !out.contains(r) { out.append(r) }
    }
    predicate?.keyPaths.forEach { add($0.relationship) }
    sorts.forEach { add($0.keyPath.relationship) }
    add(section?.relationship)
    prefetch.forEach { add($0) }
    return out
  }

  /// The row layout of materialized objects: the entity's attributes, then each prefetched
  /// relationship's attributes as `relationship.attribute`.
  public var rowLayout: RowLayout { RowLayout(entity: entity, prefetch: prefetch, model: model) }
}

/// A predicate whose key paths and literals are checked against the model.
public indirect enum BoundPredicate: Sendable {
  case comparison(ResolvedKeyPath, ComparisonOperator, Value)
  case ordered(ResolvedKeyPath, ComparisonOperator, Value, KeyOrder)
  case between(ResolvedKeyPath, Value, Value)
  case `in`(ResolvedKeyPath, [Value])
  case text(ResolvedKeyPath, TextOperator, String, TextFold)
  case and([BoundPredicate])
  case or([BoundPredicate])
  case not(BoundPredicate)
  case constant(Bool)
  case collection(BoundCollection)

  init(_ p: FetchPredicate, model: Model, entity: Entity) throws(FetchError) {
    func key(_ k: String) throws(FetchError) -> ResolvedKeyPath { try model.resolve(k, from: entity) }
    func lit(_ k: ResolvedKeyPath, _ v: Value) throws(FetchError) -> Value {
      try BoundPredicate.coerce(v, to: k)
    }
    switch p {
    case .comparison(let k, let op, .null) where (op == .equal || op == .notEqual) && entity.relationship(k) != nil:
      // `folder == nil`: whether the row's key names a related row, as Core Data tests its column.
      let r = entity.relationship(k)!
      guard let column = entity.attributes.first(where: { $0.column == r.sourceColumn }) else {
        throw .invalidRequest(
          "'\(k) == nil' tests the key \(entity.name)'s rows hold, and \(k)'s is the destination's: test \(k).id == nil"
        )
      }
      self = .comparison(
        ResolvedKeyPath(keyPath: column.name, relationship: nil, attribute: column, entity: entity), op, .null)
    case .comparison(let k, let op, let v):
      let kp = try key(k)
      self = .comparison(kp, op, try lit(kp, v))
    case .ordered(let k, let op, let v, let selector):
      let kp = try key(k)
      self = .ordered(kp, op, try lit(kp, v), KeyOrder(selector: selector, collation: model.collation))
    case .between(let k, let lo, let hi):
      let kp = try key(k)
      self = .between(kp, try lit(kp, lo), try lit(kp, hi))
    case .in(let k, let vs):
      let kp = try key(k)
      var out: [Value] = []
      for v in vs { out.append(try lit(kp, v)) }
      self = .in(kp, out)
    case .text(let k, let op, let s, let fold):
      let kp = try key(k)
      guard kp.attribute.type == .string else {
        throw .typeMismatch(
          keyPath: k, expected: kp.attribute.type, literal: "'\(s)' (\(op.rawValue)\(fold.modifier), a string operator)"
        )
      }
      guard fold.isEmpty || model.collation != nil else {
        throw .invalidRequest(
          "\(op.rawValue)\(fold.modifier) folds strings through Foundation: a model without a collation cannot")
      }
      if op == .matches {
        guard !fold.contains(.diacriticInsensitive) else {
          throw .invalidRequest(
            "MATCHES\(fold.modifier): FetchBench matches a regular expression ignoring case ([c]) only")
        }
        do {
          _ = try TextMatch.regex(s, fold: fold, collation: model.collation)
        } catch {
          guard case .invalidRequest(let why) = error else { throw error }
          throw .invalidRequest("MATCHES '\(s)' is not a regular expression: \(why)")
        }
      }
      self = .text(kp, op, s, fold)
    case .and(let ps):
      var out: [BoundPredicate] = []
      for q in ps { out.append(try BoundPredicate(q, model: model, entity: entity)) }
      self = .and(out)
    case .or(let ps):
      var out: [BoundPredicate] = []
      for q in ps { out.append(try BoundPredicate(q, model: model, entity: entity)) }
      self = .or(out)
    case .not(let q): self = .not(try BoundPredicate(q, model: model, entity: entity))
    case .constant(let b): self = .constant(b)
    case .collection(let name, let test):
      self = .collection(try BoundCollection(name, test, model: model, entity: entity))
    }
  }

  /// Converts a literal to the attribute's type: integers widen to doubles, dates accept
  /// ISO 8601 text and numbers (seconds), Booleans compare with integers as 1 and 0; anything
  /// else is a type error.
  static func coerce(_ v: Value, to k: ResolvedKeyPath) throws(FetchError) -> Value {
    let t = k.attribute.type
    switch (t, v) {
    case (_, .null): return .null
    case (.integer, .integer), (.double, .double), (.string, .string), (.bool, .bool),
      (.date, .date):
      return v
    case (.double, .integer(let i)): return .double(Double(i))
    // A whole number an Int64 holds compares as one; any other (1.5, 1e19) stays a double,
    // which the stores compare with integers numerically.
    case (.integer, .double(let d)): return Int64(exactly: d).map(Value.integer) ?? v
    case (.date, .integer(let i)): return .date(Double(i))
    case (.date, .double(let d)): return .date(d)
    case (.date, .string(let s)):
      if let secs = ISO8601.parse(Substring(s)) { return .date(Double(secs)) }
    case (.bool, .integer(let i)) where i == 0 || i == 1: return .bool(i == 1)
    // SQLite and Core Data store a Boolean as an integer: `isArchived == NO` is how an app
    // writes the comparison with 0.
    case (.integer, .bool(let b)): return .integer(b ? 1 : 0)
    default: break
    }
    throw .typeMismatch(keyPath: k.keyPath, expected: t, literal: v.literalText)
  }

  /// Every `[c]`/`[d]` modifier its string operators carry, together.
  public var folds: TextFold {
    switch self {
    case .text(_, _, _, let fold): fold
    case .and(let ps), .or(let ps): ps.reduce(into: TextFold()) { $0.formUnion($1.folds) }
    case .not(let p): p.folds
    case .collection(let c): c.test?.folds ?? []
    case .comparison, .ordered, .between, .in, .constant: []
    }
  }

  /// Every key path read of the entity and its to-one destinations, resolved; those read
  /// through a to-many are its `collections`' own.
  public var keyPaths: [ResolvedKeyPath] {
    switch self {
    case .comparison(let k, _, _), .ordered(let k, _, _, _), .between(let k, _, _), .in(let k, _),
      .text(let k, _, _, _):
      [k]
    case .and(let ps), .or(let ps): ps.flatMap(\.keyPaths)
    case .not(let p): p.keyPaths
    case .constant, .collection: []
    }
  }

  /// Every test of a to-many relationship, outermost first.
  public var collections: [BoundCollection] {
    switch self {
    case .collection(let c): [c]
    case .and(let ps), .or(let ps): ps.flatMap(\.collections)
    case .not(let p): p.collections
    case .comparison, .ordered, .between, .in, .text, .constant: []
    }
  }
}

extension Value {
  /// How the value reads in a predicate's text.
  public var literalText: String {
    switch self {
    case .null: "nil"
    case .integer(let v): String(v)
    case .double(let v): String(v)
    case .string(let s): "'\(s)'"
    // A date past the years ISO 8601 writes (or Int64's seconds) reads as the CAST it came from.
    case .date(let d) where !(-62_135_596_800...253_402_300_799).contains(d):
      "CAST(\(d - Parser.referenceDate), \"NSDate\")"
    case .date(let d): ISO8601.format(seconds: Int64(d.rounded(.down)))
    case .bool(let b): b ? "TRUE" : "FALSE"
    }
  }
}

/// Where each value of a materialized row sits.
public struct RowLayout: Sendable, Equatable {
  /// `name` or `relationship.name`, in row order.
  public var keys: [String]
  public var types: [AttributeType]

  init(entity: Entity, prefetch: [Relationship], model: Model) {
    keys = entity.attributes.map(\.name)
    types = entity.attributes.map(\.type)
    for r in prefetch {
      guard let dest = try? model.entity(r.destination) else { continue }
      keys += dest.attributes.map { "\(r.name).\($0.name)" }
      types += dest.attributes.map(\.type)
    }
  }

  public init(keys: [String], types: [AttributeType]) {
    self.keys = keys
    self.types = types
  }

  /// A layout with no fields, for values decoded on their own.
  static let empty = RowLayout(keys: [], types: [])

  /// The index of `key` in a row. O(keys).
  public func index(of key: String) -> Int? { keys.firstIndex(of: key) }
}
