/// What a list's cells read of each row — key paths of the entity's attributes, through its
/// to-one relationships, and of its to-many relationships (`tags.@count`, `tags.name`) — and
/// the relationship faults reading them fires.
///
/// A value the row holds (its own attribute, or a prefetched to-one's) is read from the row.
/// A value through a relationship not yet registered fires a fault, as a managed object
/// context does when a cell touches `bank.details.closeDate` or `note.tags`: one query per
/// related object (`Store.fetchDestination(of:key:)`) or per row's to-many relationship
/// (`Store.fetchElements(of:keys:)`), which then stays registered in `RelatedObjects` (the
/// controller's, so that what its batches prefetched is found there).
public final class Cells {
  /// Where a key path's value comes from.
  enum Source: Equatable {
    /// The row's value at this index of its layout.
    case row(Int)
    /// The attribute at `attribute` of the destination row found through `relationship`,
    /// whose key the source row keeps at `link`.
    case fault(Relationship, link: LinkKey, attribute: Int)
    /// The elements of a to-many relationship of the row, whose key the row keeps at `link`:
    /// their number (`attribute` nil) or one attribute's values listed.
    case elements(ToManyRelationship, link: LinkKey, attribute: Int?)
  }

  /// The key paths in the model's spelling, in the order given.
  public var keyPaths: [String] { layout.keys }
  /// A cell's values as a row: the key paths and their types.
  public let layout: RowLayout
  let sources: [Source]
  let store: any Store
  /// The related objects registered: the controller's, or the cells' own.
  public let related: RelatedObjects
  /// Faults fired since the related objects were made: one query each.
  public var faultsFired: Int { related.faultsFired }

  /// Resolves `keyPaths` against `request` (its entity, model and prefetched relationships).
  /// Throws for a key path that is not an attribute or a to-one relationship's attribute,
  /// or whose relationship's key the entity's rows do not hold. O(key paths × attributes).
  public init(
    _ keyPaths: [String], request: ResolvedRequest, store: any Store, related: RelatedObjects = RelatedObjects()
  ) throws(FetchError) {
    (self.layout, self.sources) = try Self.resolve(keyPaths, request)
    self.store = store
    self.related = related
  }

  /// Whether `keyPaths` are cells of `request`'s list, without a store: the checks `init`
  /// makes, its errors. O(key paths × attributes).
  public static func check(_ keyPaths: [String], of request: ResolvedRequest) throws(FetchError) {
    _ = try resolve(keyPaths, request)
  }

  /// Each key path's name, type and source. O(key paths × attributes).
  static func resolve(_ keyPaths: [String], _ request: ResolvedRequest) throws(FetchError) -> (RowLayout, [Source]) {
    let layout = request.rowLayout
    var names: [String] = []
    var types: [AttributeType] = []
    var sources: [Source] = []
    for keyPath in keyPaths {
      if let (name, type, source) = try Self.toMany(keyPath, request) {
        names.append(name)
        types.append(type)
        sources.append(source)
        continue
      }
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
        throw .invalidRequest(
          """
          a cell reads attributes, to-one relationships' attributes and to-many relationships' @count or \
          attributes; '\(keyPath)' is none of these
          """)
      }
      sources.append(.fault(rel, link: link, attribute: attribute))
    }
    return (RowLayout(keys: names, types: types), sources)
  }

  /// A key path through a to-many relationship of the entity: its count or an attribute's
  /// values. nil for any other. O(attributes).
  static func toMany(_ keyPath: String, _ request: ResolvedRequest) throws(FetchError) -> (
    String, AttributeType, Source
  )? {
    let parts = keyPath.split(separator: ".").map(String.init)
    guard parts.count == 2, let r = request.entity.toManyRelationship(parts[0]) else { return nil }
    guard let link = request.entity.linkKey(column: r.sourceColumn) else {
      throw .invalidRequest("\(r.name): its key \(r.sourceColumn) is not a column \(request.entity.name) reads")
    }
    if parts[1] == "@count" { return ("\(r.name).@count", .integer, .elements(r, link: link, attribute: nil)) }
    let destination = try request.model.entity(r.destination)
    guard let i = destination.attributeIndex(parts[1]) else {
      throw .unknownKeyPath(
        keyPath, entity: request.entity.name,
        known: ["\(r.name).@count"] + destination.attributes.map { "\(r.name).\($0.name)" })
    }
    return ("\(r.name).\(destination.attributes[i].name)", .string, .elements(r, link: link, attribute: i))
  }

  /// The relationships whose values the cells read through faults (not prefetched), each
  /// once, in key path order: what `relationshipKeyPathsForPrefetching` would spare.
  public var faultingRelationships: [String] {
    var out: [String] = []
    for source in sources {
      switch source {
      case .fault(let rel, _, _) where !out.contains(rel.name): out.append(rel.name)
      case .elements(let r, _, _) where !out.contains(r.name): out.append(r.name)
      default: break
      }
    }
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
        out.append(try related.destination(rel, key, store: store)?[attribute] ?? .null)
      case .elements(let r, let link, let attribute):
        guard let key = link.key(id: object.id, values: object.values) else {
          out.append(attribute == nil ? .integer(0) : .string(""))
          continue
        }
        let elements = try related.elements(r, key, store: store)
        guard let attribute else {
          out.append(.integer(Int64(elements.count)))
          continue
        }
        out.append(.string(elements.map { Self.text($0.values[attribute]) }.joined(separator: ", ")))
      }
    }
    return out
  }

  /// A value as a listed element shows it: a string as itself, nil as nothing.
  static func text(_ v: Value) -> String {
    switch v {
    case .string(let s): s
    case .null: ""
    default: v.literalText
    }
  }

  /// `object` as its cell shows it: the same ID, the cells' values in `layout`. O(key paths),
  /// plus one query per fault.
  public func cell(_ object: FetchedObject) throws -> FetchedObject {
    FetchedObject(id: object.id, values: try values(of: object), layout: layout)
  }
}
