import Catalog
import Foundation
import ResultModel

// Each case against what it is held to, measured alternately in the case's own process.
extension Report {
  /// The references: the in-memory limit, SQLite's floor and scan limit.
  package static let references: [(ratio: Metric, time: Metric, name: String)] = [
    (.engineOverLimit, .limit, "limit"), (.engineOverPageLimit, .pageLimit, "page limit"),
    (.engineOverFloor, .floor, "floor (same SQL, C API)"),
    (.engineOverScanLimit, .scanLimit, "scan limit"), (.sectionedOverUnsectioned, .unsectioned, "without sections"),
    (.faultingOverPrefetched, .prefetched, "cells prefetched"),
    (.selectorOverByteWise, .byteWiseSort, "sorted by bytes"),
  ]

  package func limitSection(dataset: DatasetKind, rows n: Int) -> String {
    let ratios = rows.filter { r in
      r.dataset == dataset && r.rows == n && Self.references.contains { $0.ratio == r.metric }
    }
    guard !ratios.isEmpty else { return "" }
    var md = "### Against the limits, in the same process\n\n"
    var pageLimitText = ""
    if ratios.contains(where: { $0.metric == .engineOverPageLimit }) {
      pageLimitText =
        """
        The **page limit** of a list read by offset or keyset pages is each page the case reads, selected from those \
        items as the store selects it: the first offset + page size rows by a bounded heap while they are within an \
        eighth of the list, by the sort beyond (a keyset page, which seeks instead, is held to the offset page at its \
        depth).
        """ + " "
    }
    let limitText =
      """
      Each reference runs alternately with every repetition of the case in the case's process; `engine / reference` \
      is the median of the per-pair ratios [min–max]. The in-memory **limit** is the request's sort keys already \
      extracted into flat typed arrays (numbers as doubles, strings as ranks, in the table's order), sorted by the \
      standard library with one comparator, and for a full fetch or a scroll-through each row's values then copied \
      out: the work the pattern cannot avoid (targets: batched performFetch \(Targets.batchedOverLimit), full \
      \(Targets.fullOverLimit)).
      """
    let floorText =
      """
      SQLite's **floor** is the store's own statements through the C API (the ID query, the full query, or every \
      batch of a scroll-through). Its **scan limit** is one scan per table of exactly the columns the sort needs (no \
      join, no ORDER BY), the to-one keys matched through a hash table, and the same sort: what an index or a plan \
      could at best reach. **Without sections** is the sectioned scenario's request (same sort, same first screen) \
      with no section key: what sections add (target \(Targets.sectionedOverUnsectioned)). **Cells prefetched** is a \
      cells scenario's same cells with the relationships they read prefetched (`relationshipKeyPathsForPrefetching`) \
      instead of faulted one related object at a time: what prefetching saves. **Sorted by bytes** is a list sorted \
      by a selector (`localizedStandardCompare:`) with every sort by `compare:` instead: what the selector's \
      comparison costs.
      """
    md += limitText + " " + pageLimitText + floorText + "\n\n"
    md +=
      MarkdownTable(
        .left("store"), .left("scenario"), .left("mode"), .right("engine ms"), .left("reference"),
        .right("reference ms"), .right("engine / reference")
      ).header
    for r in ratios {
      guard let reference = Self.references.first(where: { $0.ratio == r.metric }), let k = Self.key(of: r) else {
        continue
      }
      let engine = find(k, mode: r.mode, batch: r.batchSize, scenario: r.scenario, metric: .time)
      let time = find(k, mode: r.mode, batch: r.batchSize, scenario: r.scenario, metric: reference.time)
      let mode = r.mode == .fetch(.batched) ? "batched (\(r.batchSize))" : r.mode.csv
      md +=
        "| \(Self.storeName(k)) | \(r.scenario.csv) | \(mode) | \(ms(engine)) | \(reference.name) | \(ms(time)) | "
        + String(format: "%.2f× [%.2f–%.2f]", r.value, r.min, r.max) + " |\n"
    }
    return md + "\n"
  }
}
