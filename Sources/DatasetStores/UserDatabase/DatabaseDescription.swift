import Datasets
import FetchedResults
import Foundation
import TextFormatting

extension DatabaseSchema {
  /// What was read, for a user to check before measuring: each entity with its row count,
  /// attributes (type, NULL count), relationships and indexes, then the tables not listed and
  /// why. O(tables × columns).
  public func describe(_ model: Model, skipped: [Skipped], opened: String) -> String {
    let what = onServer ? "a PostgreSQL schema" : flavour == .coreData ? "a Core Data store" : "an app's SQLite schema"
    var out = "\(path)\n" + "\(what), \(opened)".wrapped(indent: "  ")
    if let synthetic { out += "\(synthetic)\n" }
    for entity in model.entities {
      guard let table = table(entity.table) else { continue }
      out +=
        """
        \nentity \(entity.name) (table \(table.name), primary key \(entity.primaryKey)): \(table.rowCount.grouped) \
        rows\n
        """
      out += attributeLines(entity, table)
      if !entity.relationships.isEmpty {
        out += "  relationships (to-one):\n"
        for r in entity.relationships {
          out +=
            """
                \(r.name) → \(r.destination) (\(table.name).\(r.sourceColumn) = \
            \(r.destination).\(r.destinationColumn))\n
            """
        }
      }
      if !entity.toMany.isEmpty {
        out += "  relationships (to-many):\n"
        for r in entity.toMany {
          let through =
            switch r.link {
            case .foreignKey(let column): "\(r.destination).\(column) = \(table.name).\(r.sourceColumn)"
            case .joinTable(let join): "join table \(join.table): \(join.sourceColumn) → \(join.destinationColumn)"
            }
          out += "    \(r.name) → \(r.destination) (\(through))\n"
        }
      }
      if !table.indexes.isEmpty {
        out += "  indexes:\n"
        for i in table.indexes {
          out += "    \(i.name) (\(i.columns.joined(separator: ", ")))\(i.unique ? " unique" : "")\n"
        }
      }
      let subentities = coreDataSubentities.filter { $0.value.table == table.name }.sorted { $0.key < $1.key }
      if !subentities.isEmpty {
        out += "  sub-entities (their rows in this table, told apart by Z_ENT; --entity NAME lists one's):\n"
        for (name, sub) in subentities {
          let rows = sub.rowCount.map { ": \($0.grouped) rows" } ?? ""
          out += "    \(name) (Z_ENT \(sub.numbers.map(String.init).joined(separator: ", ")))\(rows)\n"
        }
      }
      if !table.triggers.isEmpty {
        out += "  triggers:\n"
        out +=
          """
          \(table.triggers.joined(separator: ", ")) (diff's private copy runs without them: their writes reach no \
          change report)
          """
          .wrapped(indent: "    ")
      }
    }
    if !skipped.isEmpty {
      out += "\nnot listed:\n"
      for s in skipped { out += "\(s.table): \(s.reason)".wrapped(indent: "  ") }
    }
    return out
  }

  func attributeLines(_ entity: Entity, _ table: Table) -> String {
    let width = entity.attributes.map(\.name.count).max() ?? 0
    var out = "  attributes:\n"
    for a in entity.attributes {
      guard let c = table.columns.first(where: { $0.name == a.column }) else { continue }
      let share = table.rowCount > 0 ? Double(c.nulls) / Double(table.rowCount) * 100 : 0
      let nulls = c.nulls == 0 ? "no NULL" : "\(c.nulls.grouped) NULL (\(String(format: "%.1f", share)) %)"
      let declared = c.declaredType.isEmpty ? "no declared type" : "declared \(c.declaredType)"
      var details = "\(a.type.rawValue), \(declared)\(a.column != a.name ? ", column \(a.column)" : ""), \(nulls)"
      if flavour == .coreData && c.declaredType.uppercased() == "TIMESTAMP" {
        details += ", a date: seconds since 2001-01-01"
      }
      if c.textsWithNUL > 0 {
        details +=
          """
          , \(c.textsWithNUL.grouped) values hold a NUL byte: read whole, and sorted by every byte as SQLite sorts \
          them
          """
      }
      if c.generated { details += ", generated (computed by SQLite; diff's writes leave it to SQLite)" }
      let name = "    " + a.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
      // The details wrap under themselves, beside the name column.
      out += name + String(details.wrapped(indent: String(repeating: " ", count: name.count)).dropFirst(name.count))
    }
    let unread = table.columns.filter { $0.attributeType == nil }.map { c in
      if case .unread(let reason) = c.serverType { "\(c.name) (\(reason))" } else { "\(c.name) (blobs)" }
    }
    if !unread.isEmpty { out += "not attributes: \(unread.joined(separator: ", "))".wrapped(indent: "    ") }
    return out
  }
}
