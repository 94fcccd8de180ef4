import FetchedResults
import Foundation
import ResultModel

// The four ways of reading a list side by side, where a run measured offset or keyset pages:
// per scenario each strategy's time, queries, rows materialized and live heap, and what each
// gives after a save.
extension Report {
  /// The strategies in the order a reader compares them.
  package static let strategies: [FetchMode] = FetchMode.allCases

  package func strategiesTable(_ k: Key, batch: Int) -> String {
    let measured = Self.strategies.filter { mode in
      rows.contains { $0.mode == .fetch(mode) && $0.isOK && Self.key(of: $0) == k }
    }
    guard measured.contains(where: { $0.paging != nil }) else { return "" }
    var md = "### \(Self.storeName(k)): every strategy (batches and pages of \(batch))\n\n"
    md +=
      """
      Offset pages by `LIMIT \(batch) OFFSET k`; keyset seeks past the last row's sort keys and ID. For them \
      `perform_fetch` is the first page's query, a jump counts the rows and reads the page at its offset (keyset \
      too: a seek needs the row before it), and `scroll_first_1000` reads 50 pages. Each cell: median ms · queries · \
      rows materialized · live heap.\n\n
      """
    md += MarkdownTable([.left("scenario")] + measured.map { .right($0.rawValue) }).header
    for s in scenarios {
      let cells = measured.map { mode -> String in
        func v(_ m: Metric) -> ResultRow? {
          find(k, mode: .fetch(mode), batch: mode.batchSize(batch), scenario: s, metric: m)
        }
        guard let t = v(.time) else { return "—" }
        return String(format: "%.1f", t.value)
          + """
           · \(count(v(.queries)?.value)) q · \(count(v(.rowsMaterialized)?.value)) rows · \
          \(bytes(v(.heapLive)?.value))
          """
      }
      guard cells.contains(where: { $0 != "—" }) else { continue }
      md += "| \(s.csv) | " + cells.joined(separator: " | ") + " |\n"
    }
    md += "| after a save | " + measured.map(\.changeSets).joined(separator: " | ") + " |\n\n"
    return md
  }
}
