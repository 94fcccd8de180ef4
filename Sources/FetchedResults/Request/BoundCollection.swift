/// A test of a to-many relationship's destination rows, checked against the model: how many
/// of a row's elements match `elements` (every element when nil), compared with a number.
/// `ANY p` is a count of p's elements above 0, `NONE p` a count of 0, `ALL p` a count of 0 of
/// the elements that do not match p (`negated`), `@count` a count of every element.
public struct BoundCollection: Sendable {
  public var relationship: ToManyRelationship
  /// The entity whose rows are tested.
  public var owner: Entity
  /// The relationship's destination: the elements.
  public var destination: Entity
  /// The destination's own rows among those the relationship links (a sub-entity's `Z_ENT`);
  /// nil: every one.
  public var rows: BoundPredicate?
  /// The inner predicate, over the destination's own attributes; nil: every element counts.
  public var test: BoundPredicate?
  /// Whether the elements that count are those `test` does not make true (ALL's).
  public var negated: Bool
  public var comparison: ComparisonOperator
  public var count: Int64
  /// What the predicate's text said: `ANY`, `ALL`, `NONE`, `@count` or `SUBQUERY`.
  public var form: Form

  public enum Form: String, Sendable {
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
    case count = "@count"
    case subquery = "SUBQUERY"
  }

  init(_ name: String, _ test: CollectionTest, model: Model, entity: Entity) throws(FetchError) {
    let (r, destination) = try model.resolveToMany(name, from: entity)
    (relationship, owner, self.destination) = (r, entity, destination)
    let inner: FetchPredicate?
    switch test {
    case .any(let p): (inner, negated, comparison, count, form) = (p, false, .greater, 0, .any)
    case .none(let p): (inner, negated, comparison, count, form) = (p, false, .equal, 0, .none)
    case .all(let p): (inner, negated, comparison, count, form) = (p, true, .equal, 0, .all)
    case .count(let p, let op, let n):
      (inner, negated, comparison, count, form) = (p, false, op, n, p == nil ? .count : .subquery)
    }
    if let inner { try Self.checkFlat(inner, name: name, form: form) }
    func bind(_ p: FetchPredicate?) throws(FetchError) -> BoundPredicate? {
      guard let p else { return nil }
      return try BoundPredicate(p, model: model, entity: destination)
    }
    rows = try bind(destination.rowFilter)
    self.test = try bind(inner)
  }

  /// Whether an element counts, from whether it is among the destination's rows and what the
  /// test says of it (nil: unknown). O(1).
  public func counts(isRow: Bool, test result: Bool?) -> Bool {
    guard isRow else { return false }
    guard test != nil else { return true }
    return negated ? result != true : result == true
  }

  /// Whether `n` counted elements pass the comparison. O(1).
  public func passes(_ n: Int64) -> Bool {
    switch comparison {
    case .equal: n == count
    case .notEqual: n != count
    case .less: n < count
    case .lessOrEqual: n <= count
    case .greater: n > count
    case .greaterOrEqual: n >= count
    }
  }

  /// Inside a collection test only the destination's own attributes: no relationship, no
  /// nested test.
  static func checkFlat(_ p: FetchPredicate, name: String, form: Form) throws(FetchError) {
    func key(_ k: String) throws(FetchError) {
      guard !k.contains(".") else {
        throw .invalidRequest(
          "inside \(form.rawValue) over \(name), name \(name)'s own attributes; '\(k)' reads through a relationship")
      }
    }
    switch p {
    case .comparison(let k, _, _), .ordered(let k, _, _, _), .between(let k, _, _), .in(let k, _),
      .text(let k, _, _, _):
      try key(k)
    case .and(let ps), .or(let ps): for q in ps { try checkFlat(q, name: name, form: form) }
    case .not(let q): try checkFlat(q, name: name, form: form)
    case .constant: break
    case .collection(let inner, _):
      throw .invalidRequest("\(form.rawValue) over \(name) cannot hold another test of a to-many (\(inner))")
    }
  }
}
