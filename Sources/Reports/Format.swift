import Foundation
import ResultModel

/// `1536` → `1.5 KiB`: binary units, one decimal from KiB up.
package func bytes(_ v: Double?) -> String {
  guard let v else { return "—" }
  let a = abs(v)
  if a >= 1_073_741_824 { return String(format: "%.2f GiB", v / 1_073_741_824) }
  if a >= 1_048_576 { return String(format: "%.1f MiB", v / 1_048_576) }
  if a >= 1024 { return String(format: "%.1f KiB", v / 1024) }
  return String(format: "%.0f B", v)
}

/// A binary unit a chart's byte axis is ticked in, largest first.
package enum ByteUnit: CaseIterable, Sendable {
  case gibibytes, mebibytes, kibibytes, bytes

  /// Bytes in one of the unit.
  package var size: Double {
    switch self {
    case .gibibytes: 1_073_741_824
    case .mebibytes: 1_048_576
    case .kibibytes: 1024
    case .bytes: 1
    }
  }

  package var symbol: String {
    switch self {
    case .gibibytes: "GiB"
    case .mebibytes: "MiB"
    case .kibibytes: "KiB"
    case .bytes: "B"
    }
  }

  /// A tick at `v` bytes in this unit, without trailing zeros, so that every tick of an axis
  /// reads in one unit: `0.25 GiB`, `1 GiB`, `50 MiB`. O(1).
  package func tickLabel(_ v: Double) -> String {
    String(format: "%g", v / size) + " " + symbol
  }
}

/// A time row (`time_ms` or `time_us`) in its own unit, or in ms once a µs figure passes a
/// millisecond; with its [min–max] unless `range` is false.
package func duration(_ r: ResultRow, range: Bool = true) -> String {
  let micro = r.metric == .timeUs
  let (scale, unit) = micro && r.value >= 1000 ? (1e-3, "ms") : (1.0, micro ? "µs" : "ms")
  let text = String(format: "%.1f", r.value * scale)
  return range ? text + String(format: " [%.1f–%.1f] %@", r.min * scale, r.max * scale, unit) : "\(text) \(unit)"
}

/// Milliseconds as a person reads them: `45 µs`, `4.5 ms`, `154.5 ms`, `6.6 s`.
package func milliseconds(_ ms: Double) -> String {
  if ms >= 1000 { return String(format: "%.1f s", ms / 1000) }
  return ms < 1 ? String(format: "%.0f µs", ms * 1000) : String(format: "%.1f ms", ms)
}

/// A ratio as reports write it: two decimals, or under 0.1 two significant digits (an index can
/// take a query to a thousandth of its time): `0.43`, `0.0038`.
package func ratioNumber(_ v: Double) -> String { String(format: abs(v) >= 0.1 ? "%.2f" : "%.2g", v) }
