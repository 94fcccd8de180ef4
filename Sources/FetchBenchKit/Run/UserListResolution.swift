import Catalog
import DatasetStores
import FetchedResults
import ResultModel
import Vocabulary

extension UserList {
  /// A list of `entity` in `database` as a run measures it: `text` parsed, its kind registered
  /// with the list's sort and section, its table's row count, and the list checked against the
  /// kind's model (nil when it replaces nothing). `sectionLeads`: the section must be the first
  /// sort key (a list's); otherwise it is what the sectioned variant groups by, first (the
  /// change benchmark's). Throws the reader's errors, and the parser's and the model's for
  /// the list, explained. Reads the schema: O(tables × columns).
  package static func resolve(
    _ database: UserDatabase, entity: String, list text: ListSpec.Text, sectionLeads: Bool = true
  ) throws -> (list: UserList, kind: DatasetKind, rows: Int, request: ListSpec?) {
    let list: ListSpec
    do {
      list = try ListSpec(parsing: text)
    } catch {
      throw ListError.notOfTheModel(kind: DatabaseDataset.kindName(entity), detail: "\(error)")
    }
    var userList = UserList(database: database, entity: entity)
    userList.cells = list.cells
    let (kind, schema) = try userList.register(sort: list.sortDescriptors, section: list.section)
    let listEntity = try kind.definition.model.entity(kind.definition.listEntity)
    // A sub-entity's rows, not its root's table's (which holds its siblings' too).
    let rows = max(
      1, schema.coreDataSubentities[listEntity.name]?.rowCount ?? schema.table(listEntity.table)?.rowCount ?? 1)
    guard list.changesList || list.cells != nil else { return (userList, kind, rows, nil) }
    do {
      let checked = sectionLeads ? list : list.withoutSection
      _ = try checked.apply(to: DatasetModels.defaultRequest(for: kind), of: kind)
      if !sectionLeads { _ = try DatasetModels.sectionedRequest(for: kind).resolve(in: kind.definition.model) }
    } catch {
      throw ListError.notOfTheModel(kind: kind.rawValue, detail: "\(kind.definition.explain(error))")
    }
    // Cells alone change no list: the database's own is measured, its cells the user's.
    return (userList, kind, rows, list.changesList ? list : nil)
  }
}
