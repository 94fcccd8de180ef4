import Catalog
import Collation
import FetchedResults
import Synchronization

/// A list of the user's own, resolved once: sort descriptors, a section key path, a predicate
/// and a cell, each replacing the dataset list's own (the entity and its prefetched
/// relationships stay). Parsed in the command's process from what the user typed
/// (`ListSpec.Text`) and sent to each case's process already parsed; the text is kept to name
/// the list and to record it.
package struct ListSpec: Sendable, Codable, Equatable, CustomStringConvertible {
  /// The list as the user typed it (`--sort`, `--section`, `--where` with `--arg` and `--var`,
  /// `--cell`).
  package struct Text: Sendable, Codable, Equatable {
    /// `details.closeDate desc, name asc`
    package var sort: String?
    /// A key path; it must be the first sort key.
    package var section: String?
    /// `state IN {'TX','CA'} AND details.closeDate > 2009-01-01`
    package var predicate: String?
    /// What fills the predicate's placeholders (`--arg`, in order) and variables (`--var`).
    package var arguments: [String]?
    package var variables: [String: String]?
    /// What a cell shows (`--cell`), in place of the dataset's cell.
    package var cells: [String]?

    package init(
      sort: String? = nil, section: String? = nil, predicate: String? = nil, arguments: [String]? = nil,
      variables: [String: String]? = nil, cells: [String]? = nil
    ) {
      (self.sort, self.section, self.predicate, self.cells) = (sort, section, predicate, cells)
      (self.arguments, self.variables) = (arguments, variables)
    }

    /// Whether it changes which rows the list shows or their order (a sort, section or
    /// predicate), not only what a cell reads of them.
    package var changesList: Bool { sort != nil || section != nil || predicate != nil }
  }

  /// What the user typed.
  package private(set) var text: Text
  /// The locale its sort's selectors compare in; nil when it sorts by `compare:` alone.
  package var locale: String?
  /// `text.sort` parsed; nil when the list keeps the dataset's sort.
  package private(set) var sortDescriptors: [SortDescriptor]?
  /// `text.predicate` parsed with its arguments and variables; nil without one.
  package private(set) var predicate: FetchPredicate?

  /// The section key path; nil when the list keeps the dataset's.
  package var section: String? { text.section }
  /// What a cell shows; nil for the dataset's cell.
  package var cells: [String]? { text.cells }
  /// Whether it changes which rows the list shows or their order.
  package var changesList: Bool { text.changesList }

  /// Parses `text`: the one place a list's sort and predicate are parsed. Its locale is the
  /// process's when a selector compares in one. Throws the parser's error, the sort's first.
  /// O(text).
  package init(parsing text: Text) throws(FetchError) {
    Self.parseCounter?.count.withLock { $0 += 1 }
    self.text = text
    if let sort = text.sort { sortDescriptors = try QueryParser.sortDescriptors(sort) }
    if let predicate = text.predicate {
      self.predicate = try QueryParser.predicate(
        predicate, arguments: text.arguments ?? [], variables: text.variables ?? [:])
    }
    if sortDescriptors?.contains(where: { $0.selector != .compare }) == true {
      locale = FoundationCollation.current.locale
    }
  }

  /// Counts the lists parsed in the task that binds it (`ListSpec.$parseCounter.withValue`):
  /// what the tests hold the parse to one with.
  @TaskLocal package static var parseCounter: ParseCounter?

  package final class ParseCounter: Sendable {
    let count = Mutex(0)
    package init() {}
    /// The lists parsed so far. O(1).
    package var parses: Int { count.withLock { $0 } }
  }

  /// The list with the dataset's section: what the change benchmark's unsectioned list is.
  package var withoutSection: ListSpec {
    var list = self
    list.text.section = nil
    return list
  }

  /// `request` with this list's sort, section and predicate in place of its own. O(1).
  package func replacingParts(of request: FetchRequest) -> FetchRequest {
    var r = request
    if let sortDescriptors { r.sortDescriptors = sortDescriptors }
    if let section { r.sectionNameKeyPath = section }
    if let predicate { r.predicate = predicate }
    return r
  }

  /// `request` with this list's parts in place of its own, checked against `kind`'s model:
  /// throws the model's error for a key path `kind` does not have. O(key paths).
  package func apply(to request: FetchRequest, of kind: DatasetKind) throws -> FetchRequest {
    let r = replacingParts(of: request)
    let resolved = try r.resolve(in: DatasetModels.model(for: kind))
    if let cells { try Cells.check(cells, of: resolved) }
    return r
  }

  /// `sort: …; section: …; where: …`, the parts given.
  package var description: String {
    let filled =
      (text.arguments ?? []).map { "--arg \($0)" }
      + (text.variables ?? [:]).sorted { $0.key < $1.key }.map {
        "--var \($0.key)=\($0.value)"
      }
    return [
      text.sort.map { "sort: \($0)" }, text.section.map { "section: \($0)" },
      text.predicate.map { "where: \($0)" + (filled.isEmpty ? "" : " (\(filled.joined(separator: ", ")))") },
      locale.map { "locale: \($0)" }, text.cells.map { "cell: \($0.joined(separator: ", "))" },
    ].compactMap { $0 }.joined(separator: "; ")
  }
}
