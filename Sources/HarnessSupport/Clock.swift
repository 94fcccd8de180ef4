import Foundation

/// Wall and CPU clocks, and the process's peak resident set.
package enum Clock {
  /// Monotonic wall time in nanoseconds.
  @inline(__always) package static var wallNanos: UInt64 { DispatchTime.now().uptimeNanoseconds }

  /// CPU time of the process (user + system), in nanoseconds.
  package static var cpuNanos: UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }

  /// Minor page faults of the calling thread so far (`ru_minflt`): pages the kernel handed
  /// out, each a trap and a zeroed 4 KiB page (or one 2 MiB huge page). The whole process's
  /// on platforms without a per-thread count.
  package static var threadPageFaults: Int {
    var usage = rusage()
    #if os(Linux)
      // RUSAGE_THREAD (1): Glibc's Swift module leaves out the _GNU_SOURCE constants.
      getrusage(1, &usage)
    #else
      getrusage(RUSAGE_SELF, &usage)
    #endif
    return usage.ru_minflt
  }

  /// The process's peak resident set size in bytes (`ru_maxrss`).
  package static var peakRSS: Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
  }
}

/// Keeps the optimizer from deleting work whose result is otherwise unused.
@inline(never) package func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
