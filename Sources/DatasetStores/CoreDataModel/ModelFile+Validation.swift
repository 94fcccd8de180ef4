extension ModelFile {
  /// Checks the model whole, naming the first element that breaks it: a parent, destination
  /// or inverse that does not exist, a `parentEntity` cycle, an index or constraint on a
  /// property the entity does not have. O(entities × properties).
  func validate() throws {
    func fail(_ problem: String, _ fix: String) -> ModelFileError {
      ModelFileError(path: path, problem: problem, fix: fix)
    }
    var seen = Set<String>()
    for e in entities where !seen.insert(e.name).inserted {
      throw fail("declares the entity \(e.name) twice", "rename one of them in Xcode's model editor")
    }
    for e in entities {
      if let parent = e.parent, entity(parent) == nil {
        throw fail(
          "gives \(e.name) the parentEntity \(parent), which the model does not declare",
          "declare \(parent) or remove the parent")
      }
      var chain = [e.name]
      var next = e.parent
      while let p = next {
        guard !chain.contains(p) else {
          throw fail(
            "has a parentEntity cycle: \((chain + [p]).joined(separator: " → "))",
            "break the cycle in Xcode's model editor")
        }
        chain.append(p)
        next = entity(p)?.parent
      }
      for r in e.relationships {
        guard let destination = entity(r.destination) else {
          throw fail(
            "gives \(e.name).\(r.name) the destination \(r.destination), which the model does not declare",
            "declare \(r.destination)")
        }
        if let inverse = r.inverse, !properties(of: destination).relationships.contains(where: { $0.name == inverse }) {
          throw fail(
            "gives \(e.name).\(r.name) the inverse \(inverse), which \(r.destination) does not declare",
            "declare \(r.destination).\(inverse) or remove the inverse")
        }
      }
      let names = Set(properties(of: e).attributes.map(\.name) + properties(of: e).relationships.map(\.name))
      for index in e.fetchIndexes {
        for element in index.elements where !names.contains(element.property) {
          throw fail(
            """
            gives \(e.name)'s fetch index \(index.name) the property \(element.property), which \(e.name) does not \
            have
            """,
            "name one of its properties: \(names.sorted().joined(separator: ", "))")
        }
      }
      for constraint in e.uniquenessConstraints {
        for property in constraint where !names.contains(property) {
          throw fail(
            "gives \(e.name) a uniqueness constraint on \(property), which \(e.name) does not have",
            "name one of its properties: \(names.sorted().joined(separator: ", "))")
        }
      }
    }
  }

  /// An entity's own and inherited properties, the root's first. O(depth × properties).
  public func properties(of e: EntityDeclaration) -> (
    attributes: [AttributeDeclaration], relationships: [RelationshipDeclaration]
  ) {
    let lineage = [e] + ancestors(of: e).compactMap(entity)
    return (lineage.reversed().flatMap(\.attributes), lineage.reversed().flatMap(\.relationships))
  }

  /// The root of `e`'s inheritance tree: its table's entity. O(depth).
  public func root(of e: EntityDeclaration) -> EntityDeclaration { ancestors(of: e).last.flatMap(entity) ?? e }

  /// The entities that inherit from `e`, directly or not. O(entities × depth).
  public func subentities(of e: EntityDeclaration) -> [EntityDeclaration] {
    entities.filter { $0.name != e.name && ancestors(of: $0).contains(e.name) }
  }

  /// The names of the entities `e` inherits from, its parent first. O(depth).
  func ancestors(of e: EntityDeclaration) -> [String] {
    var out: [String] = []
    var next = e.parent
    while let p = next, !out.contains(p) {
      out.append(p)
      next = entity(p)?.parent
    }
    return out
  }
}
