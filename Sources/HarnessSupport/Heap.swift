import CJemalloc

/// jemalloc's statistics. Linking CJemalloc makes jemalloc the allocator of the whole
/// process, the Swift runtime included, so these figures cover every allocation.
package enum Heap {
  /// Bytes allocated and not yet freed, all threads (`stats.allocated`). Flushes the calling
  /// thread's cache and refreshes the statistics first, which costs a few microseconds:
  /// jemalloc counts a freed block that its thread cache keeps as allocated, so without the
  /// flush a temporary buffer freed during a scenario could read as live heap.
  package static var allocated: Int {
    flushAndRefresh()
    return read("stats.allocated", as: Int.self)
  }

  /// Starts a new high-water mark for the calling thread.
  package static func resetPeak() { _ = mallctl("thread.peak.reset", nil, nil, nil, 0) }

  /// The calling thread's high-water mark of allocated − freed bytes since `resetPeak`
  /// (jemalloc 5.3's `thread.peak.read`).
  package static var threadPeak: Int { Int(read("thread.peak.read", as: UInt64.self)) }

  /// Allocation requests so far, all arenas (small and large), after merging this thread's
  /// cache counters.
  package static var allocationRequests: UInt64 {
    flushAndRefresh()
    // 4096 is MALLCTL_ARENAS_ALL: the sum over arenas.
    return read("stats.arenas.4096.small.nrequests", as: UInt64.self)
      + read("stats.arenas.4096.large.nrequests", as: UInt64.self)
  }

  /// True when jemalloc answers (it is the process allocator and was built with statistics).
  package static var isAvailable: Bool {
    refresh()
    var v = 0
    var size = MemoryLayout<Int>.size
    return mallctl("stats.allocated", &v, &size, nil, 0) == 0
  }

  /// Merges the calling thread's cache (its blocks and counters) into the arenas, then
  /// refreshes the statistics: what the figures that count every thread's blocks read.
  private static func flushAndRefresh() {
    _ = mallctl("thread.tcache.flush", nil, nil, nil, 0)
    refresh()
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
