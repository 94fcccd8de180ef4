/// What one run of an operation cost: wall and CPU time, and jemalloc's view of the heap.
package struct Sample: Sendable, Equatable {
  package var wallNanos: UInt64
  package var cpuNanos: UInt64
  /// Bytes allocated and not freed across the run: what its result still holds.
  package var heapLive: Int
  /// The calling thread's high-water mark above where the run started.
  package var heapPeak: Int
  package var allocations: UInt64
  /// Minor page faults of the calling thread during the run (`Clock.threadPageFaults`): fresh
  /// memory from the kernel, which at millions of rows is a share of the time.
  package var pageFaults: Int

  package var wallMs: Double { Double(wallNanos) / 1e6 }
  package var cpuMs: Double { Double(cpuNanos) / 1e6 }
}

/// The one warm-up-and-repetitions loop of every benchmark, and the one way an operation is
/// measured. Figures of ratios come from `repeated` with two `once` calls in its body, so the
/// two operations alternate under the same load.
package enum Sampler {
  /// Runs `body` `warmups` times unmeasured (it gets `false`), then `repetitions` times, and
  /// returns the results of the measured runs in order. O(warmups + repetitions) calls.
  package static func repeated<R>(warmups: Int, repetitions: Int, _ body: (_ measured: Bool) throws -> R) rethrows
    -> [R]
  {
    var out: [R] = []
    out.reserveCapacity(repetitions)
    for rep in 0..<(warmups + repetitions) {
      let r = try body(rep >= warmups)
      if rep >= warmups { out.append(r) }
    }
    return out
  }

  /// Measures one run of `body`. The heap figures are read while its result is alive, so
  /// `heapLive` is what the result holds; the caller drops it after. Costs a few
  /// microseconds of jemalloc reads outside the timed region.
  package static func once<R>(_ body: () throws -> R) rethrows -> (sample: Sample, result: R) {
    let heapBefore = Heap.allocated
    let allocsBefore = Heap.allocationRequests
    Heap.resetPeak()
    let peakBase = Heap.threadPeak
    let faults0 = Clock.threadPageFaults
    let cpu0 = Clock.cpuNanos
    let t0 = Clock.wallNanos
    let result = try body()
    let t1 = Clock.wallNanos
    let cpu1 = Clock.cpuNanos
    let faults1 = Clock.threadPageFaults
    let heapAfter = Heap.allocated
    let peakAfter = Heap.threadPeak
    let allocsAfter = Heap.allocationRequests
    let sample = Sample(
      wallNanos: t1 - t0, cpuNanos: cpu1 - cpu0, heapLive: heapAfter - heapBefore,
      heapPeak: max(0, peakAfter - peakBase),
      allocations: allocsAfter - allocsBefore, pageFaults: faults1 - faults0)
    return (sample, result)
  }

  /// `repeated` over `once`: the samples of the measured runs, each taken with its result alive.
  package static func measure<R>(warmups: Int, repetitions: Int, _ body: () throws -> R) rethrows -> [Sample] {
    try repeated(warmups: warmups, repetitions: repetitions) { _ in
      let (sample, result) = try once(body)
      withExtendedLifetime(result) {}
      return sample
    }
  }

  /// Wall time of one run of `body` alone, for operations whose heap is not a figure.
  @inline(__always) package static func wall<R>(_ body: () throws -> R) rethrows -> (nanos: UInt64, result: R) {
    let t0 = Clock.wallNanos
    let result = try body()
    let t1 = Clock.wallNanos
    blackHole(result)  // outside the timed region: the work stays even when the caller drops it
    return (t1 - t0, result)
  }
}
