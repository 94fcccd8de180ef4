extension ModelFile {
  /// Checks the model whole, naming the first element that breaks it: a parent, destination
  /// or inverse that does not exist, a `parentEntity` cycle, a property declared twice in one
  /// lineage, names the store could not tell apart (its tables and columns are the names in
  /// capitals), an index or constraint on a property the entity does not have. O(entities ×
  /// depth + properties).
  func validate() throws {
    func fail(_ problem: String, _ fix: String) -> ModelFileError {
      ModelFileError(path: path, problem: problem, fix: fix)
    }
    var seen: [String: String] = [:]
    for e in entities {
      if let other = seen.updateValue(e.name, forKey: e.name.uppercased()) {
        throw other == e.name
          ? fail("declares the entity \(e.name) twice", "rename one of them in Xcode's model editor")
          : fail(
            "declares the entities \(other) and \(e.name), whose tables would both be Z\(e.name.uppercased())",
            "rename one of them in Xcode's model editor")
      }
      guard e.name.first.map({ $0 != "_" && !$0.isNumber }) ?? false, !e.name.contains("\0") else {
        throw fail(
          "declares the entity \"\(e.name)\", which does not begin with a letter (Core Data's own tables begin Z_)",
          "rename it in Xcode's model editor: entity names begin with a capital letter")
      }
    }
    try checkInheritance()
    // Core Data names a fetch index Z_<Entity>_<index>, one namespace for the whole store.
    var indexOwners: [String: String] = [:]
    for e in entities {
      for index in e.fetchIndexes {
        let name = "Z_\(e.name)_\(index.name)"
        if let other = indexOwners.updateValue("\(e.name)'s \(index.name)", forKey: name.uppercased()),
          !other.hasPrefix("\(e.name)'s ")
        {
          throw fail(
            "gives \(other) and \(e.name)'s \(index.name) fetch indexes that would both be named \(name) in the store",
            "rename one of them")
        }
      }
    }
    for e in entities {
      for r in e.relationships {
        guard let destination = entity(r.destination) else {
          throw fail(
            "gives \(e.name).\(r.name) the destination \(r.destination), which the model does not declare",
            "declare \(r.destination)")
        }
        if let inverse = r.inverse {
          guard let back = properties(of: destination).relationships.first(where: { $0.name == inverse }) else {
            throw fail(
              "gives \(e.name).\(r.name) the inverse \(inverse), which \(r.destination) does not declare",
              "declare \(r.destination).\(inverse) or remove the inverse")
          }
          let sources = Set([e.name] + ancestors(of: e) + descendants(of: e.name))
          guard sources.contains(back.destination) else {
            throw fail(
              """
              gives \(e.name).\(r.name) the inverse \(r.destination).\(inverse), whose destination is \
              \(back.destination), not \(e.name)
              """,
              "make the two relationships each other's inverse, or remove the inverse")
          }
        }
      }
      let (attributes, relationships) = properties(of: e)
      var declared: [String: String] = [:]
      for name in attributes.map(\.name) + relationships.map(\.name) {
        if let other = declared.updateValue(name, forKey: name.uppercased()) {
          throw other == name
            ? fail(
              "gives \(e.name) two properties named \(name) (its own or inherited)",
              "rename one of them in Xcode's model editor")
            : fail(
              "gives \(e.name) the properties \(other) and \(name), whose columns would both be Z\(name.uppercased())",
              "rename one of them in Xcode's model editor")
        }
      }
      let names = Set(declared.values)
      var indexNames: Set<String> = []
      for index in e.fetchIndexes {
        guard indexNames.insert(index.name.uppercased()).inserted else {
          throw fail("gives \(e.name) two fetch indexes named \(index.name)", "rename one of them")
        }
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

  /// Every `parentEntity` names a declared entity, and no chain of them comes back to where it
  /// began. Each entity is walked once. O(entities).
  private func checkInheritance() throws {
    enum State { case walking, done }
    var state: [String: State] = [:]
    for start in entities where state[start.name] == nil {
      var chain: [String] = []
      var next: EntityDeclaration? = start
      while let e = next, state[e.name] == nil {
        state[e.name] = .walking
        chain.append(e.name)
        guard let parent = e.parent else { break }
        guard let p = entity(parent) else {
          throw ModelFileError(
            path: path, problem: "gives \(e.name) the parentEntity \(parent), which the model does not declare",
            fix: "declare \(parent) or remove the parent")
        }
        if state[p.name] == .walking {
          let cycle = chain[chain.firstIndex(of: p.name)!...] + [p.name]
          throw ModelFileError(
            path: path, problem: "has a parentEntity cycle: \(cycle.joined(separator: " → "))",
            fix: "break the cycle in Xcode's model editor")
        }
        next = p
      }
      for name in chain { state[name] = .done }
    }
  }

  /// An entity's own and inherited properties, the root's first. O(depth × properties).
  public func properties(of e: EntityDeclaration) -> (
    attributes: [AttributeDeclaration], relationships: [RelationshipDeclaration]
  ) {
    let lineage = [e] + ancestors(of: e).compactMap(entity)
    return (lineage.reversed().flatMap(\.attributes), lineage.reversed().flatMap(\.relationships))
  }

  /// The entity among `e` and its ancestors that declares `property`: the one whose column
  /// holds it. O(depth × properties).
  public func declarer(of property: String, in e: EntityDeclaration) -> EntityDeclaration? {
    ([e] + ancestors(of: e).compactMap(entity)).first { d in
      d.attributes.contains { $0.name == property } || d.relationships.contains { $0.name == property }
    }
  }

  /// The root of `e`'s inheritance tree: its table's entity. O(depth).
  public func root(of e: EntityDeclaration) -> EntityDeclaration { ancestors(of: e).last.flatMap(entity) ?? e }

  /// The entities that inherit from `e`, directly or not, in the file's order. O(their count
  /// × log).
  public func subentities(of e: EntityDeclaration) -> [EntityDeclaration] {
    descendants(of: e.name).compactMap(entity).sorted { position(of: $0.name) < position(of: $1.name) }
  }

  /// The names of the entities `e` inherits from, its parent first. O(depth).
  func ancestors(of e: EntityDeclaration) -> [String] {
    var out: [String] = []
    var seen: Set<String> = [e.name]
    var next = e.parent
    while let p = next, seen.insert(p).inserted {
      out.append(p)
      next = entity(p)?.parent
    }
    return out
  }
}
