import FetchedResults

extension CoreDataSchema {
  /// The model's to-many relationships as the store holds them, by the entity of the table of
  /// the entity declaring each (its hierarchy's root, as the store's reader names entities):
  /// a one-to-many by its to-one inverse's column in the destination's table, a many-to-many
  /// (or a to-many without an inverse) by its join table's columns, from either side. The
  /// destination is its hierarchy's root too. O(relationships × columns).
  public func toManyRelationships(_ model: ModelFile) -> [String: [ToManyRelationship]] {
    var out: [String: [ToManyRelationship]] = [:]
    for entity in model.entities {
      for r in entity.relationships where r.toMany {
        guard let destination = model.entity(r.destination), let link = link(of: r, in: entity, model) else { continue }
        var order: String?
        if r.ordered, case .foreignKey = link, let inverse = r.inverse {
          // Core Data keeps the order in the destination's Z_FOK_<INVERSE>.
          order =
            tables.first { $0.name == Self.table(model.root(of: destination)) }?.columns.first {
              $0.name.hasPrefix("Z_FOK_\(inverse.uppercased())")
            }?.name
        }
        out[model.root(of: entity).name, default: []].append(
          ToManyRelationship(
            r.name, to: model.root(of: destination).name, sourceColumn: "Z_PK", link: link, orderedBy: order))
      }
    }
    return out
  }

  /// Where the store keeps `r`'s elements: its inverse's column, or its join table.
  private func link(of r: RelationshipDeclaration, in entity: EntityDeclaration, _ model: ModelFile)
    -> ToManyRelationship.Link?
  {
    guard let destination = model.entity(r.destination) else { return nil }
    let inverse = r.inverse.flatMap { name in model.properties(of: destination).relationships.first { $0.name == name }
    }
    if let inverse, !inverse.toMany {
      // Declared on the destination or one of its ancestors.
      let owners = Set([destination.name] + model.ancestors(of: destination))
      let table = tables.first { $0.name == Self.table(model.root(of: destination)) }
      return table?.columns.first { c in
        c.property.map { p in
          p.hasSuffix(".\(inverse.name)") && owners.contains(String(p.dropLast(inverse.name.count + 1)))
        }
          ?? false
      }.map { .foreignKey($0.name) }
    }
    for table in tables where table.entities.isEmpty && table.columns.count >= 2 {
      let (own, other) = (table.columns[0], table.columns[1])
      if other.property == "\(entity.name).\(r.name)" {
        // An ordered many-to-many's order is the owning side's third column.
        let order = r.ordered ? table.columns.dropFirst(2).first { $0.name.hasPrefix("Z_FOK_") }?.name : nil
        return .joinTable(
          JoinTable(table.name, sourceColumn: own.name, destinationColumn: other.name, orderColumn: order))
      }
      let inverseOwners = [destination.name] + model.ancestors(of: destination)
      if let inverse, inverseOwners.contains(where: { other.property == "\($0).\(inverse.name)" }) {
        return .joinTable(JoinTable(table.name, sourceColumn: other.name, destinationColumn: own.name))
      }
    }
    return nil
  }
}
