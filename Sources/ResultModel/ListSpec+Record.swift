import Foundation
import Vocabulary

extension ListSpec {
  /// What results.csv's settings row records of a list: the text the user typed and the
  /// locale it compared in, the keys of the form every run has written.
  private struct Record: Codable {
    var sort: String?
    var section: String?
    var predicate: String?
    var arguments: [String]?
    var variables: [String: String]?
    var locale: String?
    var cells: [String]?
  }

  /// As results.csv's settings row records it (JSON), so the report can derive from it what
  /// the run derived, the index candidates among them.
  package var recorded: String {
    let record = Record(
      sort: text.sort, section: text.section, predicate: text.predicate, arguments: text.arguments,
      variables: text.variables, locale: locale, cells: text.cells)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(record)).map { String(decoding: $0, as: UTF8.self) } ?? description
  }

  /// The list of a settings row, parsed again: nil when it is not `recorded`'s JSON (results of
  /// runs before it was, which recorded `description`) or no longer parses.
  package init?(recorded: String) {
    guard let r = try? JSONDecoder().decode(Record.self, from: Data(recorded.utf8)) else { return nil }
    let text = Text(
      sort: r.sort, section: r.section, predicate: r.predicate, arguments: r.arguments, variables: r.variables,
      cells: r.cells)
    guard var list = try? ListSpec(parsing: text) else { return nil }
    list.locale = r.locale
    self = list
  }
}
