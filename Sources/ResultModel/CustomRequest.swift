import Catalog
import Collation
import FetchedResults
import Foundation

/// A list of the user's own, given as `fetchbench fetch` takes it: sort descriptors, a section
/// key path and a predicate, each replacing the dataset list's own (the entity and its
/// prefetched relationships stay). `run` measures it instead of the dataset's list.
package struct CustomRequest: Sendable, Codable, Equatable, CustomStringConvertible {
  /// `details.closeDate desc, name asc`
  package var sort: String?
  /// A key path; it must be the first sort key.
  package var section: String?
  /// `state IN {'TX','CA'} AND details.closeDate > 2009-01-01`
  package var predicate: String?
  /// What fills the predicate's placeholders (`--arg`, in order) and variables (`--var`).
  package var arguments: [String]?
  package var variables: [String: String]?
  /// The locale its sort's selectors compare in; nil when it sorts by `compare:` alone.
  package var locale: String?
  /// What a cell shows (`--cell`), in place of the dataset's cell.
  package var cells: [String]?

  package init(
    sort: String? = nil, section: String? = nil, predicate: String? = nil, arguments: [String]? = nil,
    variables: [String: String]? = nil, cells: [String]? = nil
  ) {
    (self.sort, self.section, self.predicate, self.cells) = (sort, section, predicate, cells)
    (self.arguments, self.variables) = (arguments, variables)
    let selectors = (try? sort.map(QueryParser.sortDescriptors)) ?? nil
    if selectors?.contains(where: { $0.selector != .compare }) == true { locale = FoundationCollation.current.locale }
  }

  /// Whether it changes which rows the list shows or their order (a sort, section or
  /// predicate), not only what a cell reads of them.
  package var changesList: Bool { sort != nil || section != nil || predicate != nil }

  /// The predicate parsed with its arguments and variables; nil without one.
  package var parsedPredicate: FetchPredicate? {
    get throws {
      try predicate.map {
        try QueryParser.predicate($0, arguments: arguments ?? [], variables: variables ?? [:])
      }
    }
  }

  /// `request` with this request's parts in place of its own. Throws the parser's error, and
  /// the model's for a key path `kind` does not have. O(text).
  package func apply(to request: FetchRequest, of kind: DatasetKind) throws -> FetchRequest {
    var r = request
    if let sort { r.sortDescriptors = try QueryParser.sortDescriptors(sort) }
    if let section { r.sectionNameKeyPath = section }
    if let predicate = try parsedPredicate { r.predicate = predicate }
    let resolved = try r.resolve(in: DatasetModels.model(for: kind))
    if let cells { try Cells.check(cells, of: resolved) }
    return r
  }

  /// As results.csv's settings row records it (JSON), so the report can derive from it what
  /// the run derived, the index candidates among them.
  package var recorded: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? description
  }

  /// The request of a settings row: nil when it is not `recorded`'s JSON (results of runs
  /// before it was, which recorded `description`).
  package init?(recorded: String) {
    guard let r = try? JSONDecoder().decode(Self.self, from: Data(recorded.utf8)) else { return nil }
    self = r
  }

  /// `sort: …; section: …; where: …`, the parts given.
  package var description: String {
    let filled =
      (arguments ?? []).map { "--arg \($0)" }
      + (variables ?? [:]).sorted { $0.key < $1.key }.map {
        "--var \($0.key)=\($0.value)"
      }
    return [
      sort.map { "sort: \($0)" }, section.map { "section: \($0)" },
      predicate.map { "where: \($0)" + (filled.isEmpty ? "" : " (\(filled.joined(separator: ", ")))") },
      locale.map { "locale: \($0)" }, cells.map { "cell: \($0.joined(separator: ", "))" },
    ].compactMap { $0 }.joined(separator: "; ")
  }
}
