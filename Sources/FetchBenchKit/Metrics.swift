import CJemalloc
import Foundation

/// jemalloc's statistics. Linking CJemalloc makes jemalloc the allocator of the whole
/// process, the Swift runtime included, so these figures cover every allocation.
public enum Heap {
  /// Bytes allocated and not yet freed, all threads (`stats.allocated`). Refreshes the
  /// statistics first, which costs a few microseconds.
  public static var allocated: Int {
    refresh()
    return read("stats.allocated", as: Int.self)
  }

  /// Starts a new high-water mark for the calling thread.
  public static func resetPeak() { _ = mallctl("thread.peak.reset", nil, nil, nil, 0) }

  /// The calling thread's high-water mark of allocated − freed bytes since `resetPeak`
  /// (jemalloc 5.3's `thread.peak.read`).
  public static var threadPeak: Int { Int(read("thread.peak.read", as: UInt64.self)) }

  /// Allocation requests so far, all arenas (small and large), after merging this thread's
  /// cache counters.
  public static var allocationRequests: UInt64 {
    _ = mallctl("thread.tcache.flush", nil, nil, nil, 0)
    refresh()
    // 4096 is MALLCTL_ARENAS_ALL: the sum over arenas.
    return read("stats.arenas.4096.small.nrequests", as: UInt64.self)
      + read("stats.arenas.4096.large.nrequests", as: UInt64.self)
  }

  /// True when jemalloc answers (it is the process allocator and was built with statistics).
  public static var isAvailable: Bool {
    refresh()
    var v = 0
    var size = MemoryLayout<Int>.size
    return mallctl("stats.allocated", &v, &size, nil, 0) == 0
  }

  private static func refresh() {
    var old: UInt64 = 0
    var new: UInt64 = 1
    var size = MemoryLayout<UInt64>.size
    _ = mallctl("epoch", &old, &size, &new, size)
  }

  private static func read<T: FixedWidthInteger>(_ name: String, as: T.Type) -> T {
    var v: T = 0
    var size = MemoryLayout<T>.size
    _ = mallctl(name, &v, &size, nil, 0)
    return v
  }
}

/// Wall and CPU clocks, and the process's peak resident set.
public enum Clock {
  /// Monotonic wall time in nanoseconds.
  @inline(__always) public static var wallNanos: UInt64 { DispatchTime.now().uptimeNanoseconds }

  /// CPU time of the process (user + system), in nanoseconds.
  public static var cpuNanos: UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }

  /// The process's peak resident set size in bytes (`ru_maxrss`).
  public static var peakRSS: Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
  }
}

/// Keeps the optimizer from deleting work whose result is otherwise unused.
@inline(never) public func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

/// Median, minimum and maximum of repeated measurements.
public struct Summary: Sendable, Equatable, Codable {
  public var median: Double
  public var min: Double
  public var max: Double
  public var count: Int

  /// O(n log n). The median of an even count is the mean of the two middle values.
  public init(_ samples: [Double]) {
    precondition(!samples.isEmpty)
    let s = samples.sorted()
    let n = s.count
    median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    min = s[0]
    max = s[n - 1]
    count = n
  }
}
