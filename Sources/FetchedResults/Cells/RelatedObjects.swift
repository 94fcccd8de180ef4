/// The related objects a context has registered for its list's rows: each to-one destination
/// row and each to-many relationship's elements, by the key that reaches them. A relationship
/// not yet registered for a key fires a fault (one query) and stays registered, as in a managed
/// object context's row cache; a prefetch registers a whole batch's in one query per
/// relationship. Keep one per controller (per context).
public final class RelatedObjects {
  /// To-one destinations by relationship name: key → attributes (nil: no such row).
  private var destinations: [String: [Int64: [Value]?]] = [:]
  /// To-many elements by relationship name: the source's key → its elements, by ID.
  private var elements: [String: [Int64: [FetchedObject]]] = [:]
  /// Faults fired: one query each.
  public private(set) var faultsFired = 0

  public init() {}

  /// The destination of the to-one `rel` whose key is `key`, fetched by a fault when not yet
  /// registered. O(1) when registered.
  func destination(_ rel: Relationship, _ key: Int64, store: any Store) throws -> [Value]? {
    if let known = destinations[rel.name]?[key] { return known }
    faultsFired += 1
    let row = try store.fetchDestination(of: rel, key: key)
    destinations[rel.name, default: [:]][key] = .some(row)
    return row
  }

  /// The elements of the to-many `r` of the row whose key is `key` (in its order when ordered,
  /// else by ID), fetched by a
  /// fault when not yet registered. O(1) when registered.
  func elements(_ r: ToManyRelationship, _ key: Int64, store: any Store) throws -> [FetchedObject] {
    if let known = elements[r.name]?[key] { return known }
    faultsFired += 1
    let found = Self.ordered(try store.fetchElements(of: r, keys: [key])[key] ?? [], r)
    elements[r.name, default: [:]][key] = found
    return found
  }

  /// Registers the elements of each of `relationships` for every one of `objects` (rows of
  /// `entity`) not registered yet: one query per relationship, as Core Data's prefetching of
  /// a to-many for a batch. O(objects + elements).
  public func prefetch(
    _ relationships: [ToManyRelationship], of objects: [FetchedObject], entity: Entity, store: any Store
  ) throws {
    for r in relationships {
      guard let link = entity.linkKey(column: r.sourceColumn) else { continue }
      let known = elements[r.name] ?? [:]
      var keys: [Int64] = []
      var seen = Set<Int64>()
      for o in objects {
        guard let k = link.key(id: o.id, values: o.values), known[k] == nil, seen.insert(k).inserted else { continue }
        keys.append(k)
      }
      guard !keys.isEmpty else { continue }
      let found = try store.fetchElements(of: r, keys: keys)
      for k in keys { elements[r.name, default: [:]][k] = Self.ordered(found[k] ?? [], r) }
    }
  }

  /// An ordered relationship's elements as the store gives them (in its order); any other's
  /// by ID, which every store gives alike. O(n log n).
  static func ordered(_ elements: [FetchedObject], _ r: ToManyRelationship) -> [FetchedObject] {
    r.orderColumn == nil ? elements.sorted { $0.id < $1.id } : elements
  }
}
