/// What a list's cells read of each row — key paths of the entity's attributes and through its
/// to-one relationships — and the relationship faults reading them fires.
///
/// A value the row holds (its own attribute, or a prefetched relationship's) is read from the
/// row. A value through a relationship the request does not prefetch fires a fault, as a
/// managed object context does when a cell touches `bank.details.closeDate`: one query per
/// related object not yet registered (`Store.fetchDestination(of:key:)`), which then stays
/// registered for the cells' lifetime, as in a context's row cache. Keep one `Cells` per
/// controller (per context); a new one starts with nothing registered.
public final class Cells {
  /// Where a key path's value comes from.
  enum Source: Equatable {
    /// The row's value at this index of its layout.
    case row(Int)
    /// The attribute at `attribute` of the destination row found through `relationship`,
    /// whose key the source row keeps at `link`.
    case fault(Relationship, link: LinkKey, attribute: Int)
  }

  /// The key paths in the model's spelling, in the order given.
  public var keyPaths: [String] { layout.keys }
  /// A cell's values as a row: the key paths and their types.
  public let layout: RowLayout
  let sources: [Source]
  let store: any Store
  /// Registered destinations per relationship name: key → attributes (nil: no such row).
  private var registered: [String: [Int64: [Value]?]] = [:]
  /// Faults fired since the cells were made: one query each.
  public private(set) var faultsFired = 0

  /// Resolves `keyPaths` against `request` (its entity, model and prefetched relationships).
  /// Throws for a key path that is not an attribute or a to-one relationship's attribute,
  /// or whose relationship's key the entity's rows do not hold. O(key paths × attributes).
  public init(_ keyPaths: [String], request: ResolvedRequest, store: any Store) throws(FetchError) {
    let layout = request.rowLayout
    var names: [String] = []
    var types: [AttributeType] = []
    var sources: [Source] = []
    for keyPath in keyPaths {
      let resolved = try request.model.resolve(keyPath, from: request.entity)
      names.append(resolved.keyPath)
      types.append(resolved.attribute.type)
      if let i = layout.index(of: resolved.keyPath) {
        sources.append(.row(i))
        continue
      }
      guard let rel = resolved.relationship, let link = request.entity.linkKey(of: rel),
        let attribute = resolved.entity.attributeIndex(resolved.attribute.name)
      else {
        throw .invalidRequest("a cell reads attributes and to-one relationships' attributes; '\(keyPath)' is neither")
      }
      sources.append(.fault(rel, link: link, attribute: attribute))
    }
    self.layout = RowLayout(keys: names, types: types)
    self.sources = sources
    self.store = store
  }

  /// The relationships whose values the cells read through faults (not prefetched), each
  /// once, in key path order: what `relationshipKeyPathsForPrefetching` would spare.
  public var faultingRelationships: [String] {
    var out: [String] = []
    for case .fault(let rel, _, _) in sources where !out.contains(rel.name) { out.append(rel.name) }
    return out
  }

  /// The relationships any key path crosses, prefetched or not, each once, in key path order.
  public static func relationships(of keyPaths: [String]) -> [String] {
    var out: [String] = []
    for k in keyPaths {
      let parts = k.split(separator: ".")
      if parts.count > 1, !out.contains(String(parts[0])) { out.append(String(parts[0])) }
    }
    return out
  }

  /// The values a cell shows for `object`, in key path order, firing a fault for each related
  /// object not yet registered. O(key paths), plus one query per fault.
  public func values(of object: FetchedObject) throws -> [Value] {
    var out: [Value] = []
    out.reserveCapacity(sources.count)
    for source in sources {
      switch source {
      case .row(let i):
        out.append(object.values[i])
      case .fault(let rel, let link, let attribute):
        // A row's own attributes come first in its layout, at their entity's indexes.
        guard let key = link.key(id: object.id, values: object.values) else {
          out.append(.null)
          continue
        }
        out.append(try destination(rel, key)?[attribute] ?? .null)
      }
    }
    return out
  }

  /// `object` as its cell shows it: the same ID, the cells' values in `layout`. O(key paths),
  /// plus one query per fault.
  public func cell(_ object: FetchedObject) throws -> FetchedObject {
    FetchedObject(id: object.id, values: try values(of: object), layout: layout)
  }

  /// The registered destination of `rel` with `key`, fetched by a fault when not yet. O(1)
  /// when registered.
  private func destination(_ rel: Relationship, _ key: Int64) throws -> [Value]? {
    if let known = registered[rel.name]?[key] { return known }
    faultsFired += 1
    let row = try store.fetchDestination(of: rel, key: key)
    registered[rel.name, default: [:]][key] = .some(row)
    return row
  }
}
