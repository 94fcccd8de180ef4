import Catalog
import ResultModel
import Vocabulary

// The batch-size sweep: batched faulting's opening and fling at every size measured.
extension Report {
  /// A table of batched faulting's first screen and first 1,000 rows at every batch size, per
  /// store without an index; empty unless two or more sizes were measured. The recommendation
  /// below reads the same figures. O(rows · sizes).
  package func batchSweepSection(dataset: DatasetKind, rows n: Int) -> String {
    let keys = storeKeys.filter { $0.dataset == dataset && $0.rows == n && $0.index == .none }
    let sizes = batchSizes.filter { b in
      keys.contains { find($0, .batched, batch: b, .firstScreen, metric: .time) != nil }
    }
    guard sizes.count > 1 else { return "" }
    var columns: [MarkdownTable.Column] = [.right("batch size")]
    for k in keys {
      let name = Self.storeName(k)
      columns += [.right("\(name): first screen"), .right("\(name): first 1,000 rows")]
    }
    var md =
      """
      ### Batch size: batched faulting at each size measured (no index; median ms [min–max])

      The first screen (the ID query and one batch) and a fling through the first 1,000 rows, each size its own case. \
      The recommendation below chooses among these sizes.\n\n
      """ + MarkdownTable(columns).header
    for b in sizes {
      md += "| \(b) |"
      for k in keys {
        md += " \(ms(find(k, .batched, batch: b, .firstScreen, metric: .time))) |"
        md += " \(ms(find(k, .batched, batch: b, .scrollFirst1000, metric: .time))) |"
      }
      md += "\n"
    }
    return md + "\n"
  }
}
