import Catalog
import Datasets
import FetchedResults
import Vocabulary

extension CoreDataFile {
  /// A dataset's transactions (on its FetchBench model) as they are written to its Core Data
  /// file, whose model `UserDatabase` reads from the file:
  /// - an attribute that restates a relationship's key (`infoID`) is the relationship's column
  ///   (`info`, `ZINFO`);
  /// - a date counts seconds from 2001-01-01, not 1970;
  /// - a one-to-one's key is on both sides: inserting a row that points at another sets the
  ///   other's column too (`ZFAILEDBANKINFO.ZDETAILS` for a new `ZFAILEDBANKDETAILS`), in its
  ///   insert when the same save inserts it, else by one update, as Core Data's save does.
  ///
  /// Names are the file's model's own (`closedate`): observers compare the attributes a
  /// transaction changed with those their list is ordered by, by name. The bookkeeping
  /// (`Z_ENT`, `Z_OPT`, `Z_PRIMARYKEY`) is the store's (`CoreDataSave`).
  public struct Writes: Sendable {
    let model: Model
    let target: Model

    /// `kind`'s transactions written into its Core Data file, read as `target`.
    public init(_ kind: DatasetKind, into target: Model) {
      model = kind.definition.model
      self.target = target
    }

    /// The Core Data file's name of `entity`'s attribute `name`. O(attributes).
    public func attributeName(_ name: String, of entity: String) -> String {
      guard let e = try? model.entity(entity), let a = e.attribute(name) else { return name }
      return targetName(keyRelationship(of: a, in: e)?.name ?? name, of: entity)
    }

    /// The target model's own spelling of a key it matches whatever the case.
    func targetName(_ key: String, of entity: String) -> String {
      (try? target.entity(entity))?.attribute(key)?.name ?? key
    }

    /// `operations` in the Core Data file's terms. O(operations × relationships).
    public func operations(_ operations: [WriteOperation]) -> [WriteOperation] {
      var out: [WriteOperation] = []
      for op in operations {
        switch op {
        case .insert(let name, let values):
          out.append(.insert(entity: name, values: translated(values, of: name)))
          if case .integer(let id) = values["id"] { pointBack(at: name, id, values, into: &out) }
        case .update(let name, let id, let values):
          out.append(.update(entity: name, id: id, values: translated(values, of: name)))
        case .delete: out.append(op)
        }
      }
      return out
    }

    /// The relationship whose key `attribute` holds on its own side, if any.
    func keyRelationship(of attribute: Attribute, in entity: Entity) -> Relationship? {
      entity.relationships.first { $0.sourceColumn == attribute.column && $0.sourceColumn != entity.primaryKey }
    }

    func translated(_ values: [String: Value], of name: String) -> [String: Value] {
      guard let entity = try? model.entity(name) else { return values }
      var out: [String: Value] = [:]
      for (key, value) in values {
        guard let a = entity.attribute(key) else {
          out[key] = value
          continue
        }
        let newKey = targetName(keyRelationship(of: a, in: entity)?.name ?? key, of: name)
        if case .date(let seconds) = value {
          out[newKey] = .date(seconds - CoreDataFile.referenceDate)
        } else {
          out[newKey] = value
        }
      }
      return out
    }

    /// For a new row of `name` that points at another row through a one-to-one, the other
    /// side's key: set in that row's insert earlier in `out`, or one update.
    func pointBack(at name: String, _ id: Int64, _ values: [String: Value], into out: inout [WriteOperation]) {
      guard let entity = try? model.entity(name) else { return }
      for a in entity.attributes {
        guard let r = keyRelationship(of: a, in: entity), case .integer(let target)? = values[a.name],
          let destination = try? model.entity(r.destination),
          let inverse = destination.relationships.first(where: {
            $0.destination == name && $0.sourceColumn == destination.primaryKey
              && $0.destinationColumn == r.sourceColumn
          })
        else { continue }
        let key = targetName(inverse.name, of: destination.name)
        if let at = out.firstIndex(where: { op in
          if case .insert(let e, let v) = op, e == destination.name, v["id"] == .integer(target) { return true }
          return false
        }), case .insert(let e, var v) = out[at] {
          v[key] = .integer(id)
          out[at] = .insert(entity: e, values: v)
        } else {
          out.append(.update(entity: destination.name, id: target, values: [key: .integer(id)]))
        }
      }
    }
  }
}
