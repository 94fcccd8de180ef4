import Foundation
import ResultModel
import TextFormatting

/// Where a case stops fitting in this machine's memory, from the peak resident memory its
/// process reached at each row count measured. A process holds the loaded store and what the
/// list keeps, both linear in rows, plus a fixed part (the binary, the runtime): the line
/// through the two largest sizes gives the bytes each row adds, and where that line reaches
/// the machine's memory is the row count at which the case stops fitting. With one size, the
/// line goes through the origin, which counts the fixed part as rows and so errs low. A case
/// stopped at the memory ceiling (`ResultRow.doesNotFit`) is measured, not projected.
package struct MemoryFit: Sendable, Equatable {
  /// The largest row count measured, and its process's peak RSS.
  package var rows: Int
  package var peakBytes: Double
  /// Bytes each further row adds to the peak.
  package var bytesPerRow: Double
  /// Where the peak reaches `memoryBytes`; `measured` when a size did not fit.
  package var fitsUpTo: Double
  package var measured: Bool

  /// The fit of `points` (rows, peak RSS) against `memoryBytes`; `unfit`, the smallest row
  /// count stopped at the ceiling, if any. Nil without points or when the peak does not grow.
  /// O(points log points).
  package init?(_ points: [(rows: Int, peak: Double)], memoryBytes: Double, unfit: Int? = nil) {
    // Joined runs can measure one size twice; two points at one size would make the slope
    // 0/0, so each size keeps its largest peak.
    let largest = Dictionary(
      points.filter { $0.rows > 0 && $0.peak > 0 }.map { ($0.rows, $0.peak) }, uniquingKeysWith: Swift.max)
    let sorted = largest.map { (rows: $0.key, peak: $0.value) }.sorted { $0.rows < $1.rows }
    guard let last = sorted.last else { return nil }
    let before = sorted.dropLast().last ?? (rows: 0, peak: 0)
    let slope = (last.peak - before.peak) / Double(last.rows - before.rows)
    guard slope > 0 else { return nil }
    (rows, peakBytes, bytesPerRow) = (last.rows, last.peak, slope)
    if let unfit {
      (fitsUpTo, measured) = (Double(unfit), true)
    } else {
      (fitsUpTo, measured) = (Double(last.rows) + (memoryBytes - last.peak) / slope, false)
    }
  }

  /// The report's section: one row per case (`key` without the row count) measured at some
  /// size, with its largest size's peak, the bytes a row adds, and where it stops fitting.
  /// Empty without peak RSS figures. O(rows log rows).
  package static func section(_ rows: [ResultRow], key: (ResultRow) -> String) -> String {
    // A case that measured its growth held a second, smaller store beside its own: its peak
    // is not the case's alone.
    let withGrowth = Set(rows.filter { $0.metric == .growth }.map { "\(key($0)) \($0.rows)" })
    let peaks = rows.filter { $0.isOK && $0.metric == .peakRSS && !withGrowth.contains("\(key($0)) \($0.rows)") }
    guard let memory = rows.map(\.machine.memoryBytes).max(), memory > 0, !peaks.isEmpty else { return "" }
    var order: [String] = []
    var groups: [String: [ResultRow]] = [:]
    for r in peaks {
      if groups[key(r)] == nil { order.append(key(r)) }
      groups[key(r), default: []].append(r)
    }
    let unfit = Dictionary(
      rows.filter { $0.status == .doesNotFit }.map { (key($0), $0.rows) }, uniquingKeysWith: Swift.min)
    var md = "## Where each case stops fitting in memory\n\n"
    let growthNote =
      withGrowth.isEmpty
      ? ""
      : " A case that measured its growth in one process (`--growth`) held the smallest size's store beside its own, "
        + "so its peak at that size is left out."
    md +=
      """
      Peak resident memory of the case's process (the loaded store and the list), against this machine's \
      \(bytes(Double(memory))). **B per row** is the slope of the line through the two largest sizes measured \
      (through the origin with one size, which counts the fixed part as rows and so errs low); **fits up to about** \
      is where that line reaches the machine's memory: a projection, except where a size was stopped at the ceiling, \
      which is measured.\(growthNote)\n\n
      """
    md +=
      MarkdownTable(
        .left("case"), .right("largest size"), .right("peak RSS"), .right("B per row"), .right("fits up to about")
      ).header
    for k in order {
      guard let fit = MemoryFit(groups[k]!.map { ($0.rows, $0.value) }, memoryBytes: Double(memory), unfit: unfit[k])
      else { continue }
      let limit =
        fit.measured
        ? "does not fit at \(Int(fit.fitsUpTo).grouped) (measured)"
        : "\(Int(Growth.roundForWords(fit.fitsUpTo)).grouped) rows"
      md +=
        """
        | \(Markdown.escape(k)) | \(fit.rows.grouped) | \(bytes(fit.peakBytes)) | \
        \(String(format: "%.0f", fit.bytesPerRow)) | \(limit) |\n
        """
    }
    return md + "\n"
  }
}
