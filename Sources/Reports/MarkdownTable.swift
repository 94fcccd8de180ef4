/// A Markdown table's columns: its header and separator lines written in one place, each
/// column left-aligned (text) or right-aligned (numbers).
package struct MarkdownTable: Sendable {
  package enum Column: Sendable {
    case left(String)
    case right(String)

    var title: String {
      switch self {
      case .left(let t), .right(let t): t
      }
    }
    var rule: String {
      switch self {
      case .left: "---|"
      case .right: "---:|"
      }
    }
  }

  package var columns: [Column]

  package init(_ columns: [Column]) { self.columns = columns }
  package init(_ columns: Column...) { self.columns = columns }

  /// `| a | b |` and `|---|---:|`, each ended by a newline. O(columns).
  package var header: String {
    "|" + columns.map { $0.title.isEmpty ? " |" : " \($0.title) |" }.joined() + "\n|"
      + columns.map(\.rule).joined() + "\n"
  }

  /// One row of cells, as they are (escape text from data first). O(cells).
  package static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |\n" }
}
