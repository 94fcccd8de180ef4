import Datasets
import TextFormatting

extension ModelFile {
  /// What `describe --model` prints: the model as read, entity by entity, then the SQLite
  /// schema Core Data creates for it and the rules followed where Core Data's are not
  /// published. O(entities × properties).
  public func describe(_ schema: CoreDataSchema) -> String {
    var out = "\(path)\(version.map { " (version \($0))" } ?? ""): a Core Data model, \(entities.count) entities\n"
    let numbers = Dictionary(uniqueKeysWithValues: schema.entities.map { ($0.name, $0.number) })
    for e in entities.sorted(by: { numbers[$0.name]! < numbers[$1.name]! }) {
      var head = "\nentity \(e.name) (Z_ENT \(numbers[e.name]!)"
      if let parent = e.parent { head += ", a sub-entity of \(parent)" }
      if e.isAbstract { head += ", abstract" }
      head += ", table \(CoreDataSchema.table(root(of: e))))"
      out += head + "\n"
      for a in e.attributes {
        var details = [a.type.rawValue, a.optional ? "optional" : "required"]
        if let d = a.defaultValue { details.append("default \(d)") }
        if a.transient { details.append("transient: no column") }
        if a.derived { details.append("derived") }
        if a.externalStorage { details.append("external storage allowed") }
        out += "  \(a.name): \(details.joined(separator: ", "))\n"
      }
      for r in e.relationships {
        var details = [r.toMany ? (r.ordered ? "ordered to-many" : "to-many") : "to-one", "→ \(r.destination)"]
        if let inverse = r.inverse { details.append("inverse \(inverse)") }
        if let min = r.minCount, min > 0 { details.append("at least \(min)") }
        if let max = r.maxCount, max > 0, r.toMany { details.append("at most \(max)") }
        details.append("delete rule \(r.deletionRule)")
        out += "  \(r.name): \(details.joined(separator: ", "))\n"
      }
      for i in e.fetchIndexes {
        out +=
          "  fetch index \(i.name): "
          + i.elements.map { "\($0.property) \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", ")
          + "\n"
      }
      for c in e.uniquenessConstraints { out += "  unique: \(c.joined(separator: ", "))\n" }
    }
    if !fetchRequests.isEmpty {
      out += "\nfetch request templates (read, not measured): \(fetchRequests.joined(separator: ", "))\n"
    }
    if !configurations.isEmpty {
      out += "configurations (every entity is measured in one store): \(configurations.joined(separator: ", "))\n"
    }
    out += "\nThe SQLite schema Core Data creates for it:\n"
    for statement in schema.statements { out += "  \(statement);\n" }
    out +=
      "  Z_PRIMARYKEY: " + schema.entities.map { "(\($0.number), \($0.name), \($0.parent), 0)" }.joined(separator: " ")
      + "\n"
    for note in schema.skipped { out += String(("- " + note).wrapped(indent: "  ").dropFirst(2)) }
    out += "\nWhere Core Data's own rule is not published, FetchBench follows these:\n"
    for rule in CoreDataSchema.rules { out += String(("- " + rule).wrapped(indent: "  ").dropFirst(2)) }
    return out
  }
}
