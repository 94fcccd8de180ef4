import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

extension LoadRun {

  func execute() throws -> LoadResult {
    var result = LoadResult(config: config)
    let start = Clock.wallNanos
    let writeEnd = start + UInt64(config.duration * 1e9)
    var threads: [Thread] = []
    let done = DispatchGroup()
    func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
      done.enter()
      let t = Thread {
        body()
        done.leave()
      }
      t.name = name
      t.stackSize = 8 << 20
      threads.append(t)
    }
    let writersDone = DispatchGroup()
    for w in 0..<config.writers {
      writersDone.enter()
      spawn("writer-\(w)") { [self] in
        writer(w, start: start, end: writeEnd)
        writersDone.leave()
      }
    }
    for o in observers {
      spawn("observer-\(o.index)") { [self] in observe(o) }
      spawn("scroller-\(o.index)") { [self] in scroll(o, start: start) }
    }
    let sampler = LockedBox<[LoadSecond]>([])
    let stopSampling = LockedBox(false)
    let samplerDone = DispatchSemaphore(value: 0)
    let secondsClosed = LockedBox(0)
    let samplerThread = Thread { [self] in
      var second = 0
      var dropped = false
      while !stopSampling.get() {
        let next = start + UInt64(second + 1) * 1_000_000_000
        sleepUntil(next, orWhile: { !stopSampling.get() })
        if stopSampling.get() { break }
        stats.matchDeliveries(ledger, before: Clock.wallNanos - 200_000_000)
        let s = stats.closeSecond(second, heap: Heap.allocated, rss: Self.currentRSS)
        sampler.mutate { $0.append(s) }
        second += 1
        secondsClosed.set(second)
        if second % 10 == 0 || second == 1 {
          log(
            String(
              format: "  %@ %3d s: %d commits/s, delivery p99 %.2f ms, change set p99 %.2f ms, %d faults/s, heap %@", kind.rawValue, second,
              s.commits, s.deliveryP99Ms, s.changeSetP99Ms, s.faults, bytes(Double(s.heapBytes))))
        }
        if let at = config.dropConnectionAt, !dropped, Double(second) >= at {
          dropped = true
          dropConnections()
        }
      }
      samplerDone.signal()
    }
    samplerThread.name = "sampler"
    Heap.resetPeak()
    for t in threads { t.start() }
    samplerThread.start()

    writersDone.wait()
    let writeSeconds = Double(Clock.wallNanos - start) / 1e9
    writersStopped.set(true)
    let finalSequence = lastCommitted.get()
    // Let the observers catch up, then stop them and the scrollers.
    let drainDeadline = Clock.wallNanos + UInt64(config.drainTimeout * 1e9)
    while Clock.wallNanos < drainDeadline && observers.contains(where: { o in o.lock.withLock { o.lastApplied < finalSequence } }) {
      usleep(2_000)
    }
    stopObserving.set(true)
    if done.wait(timeout: .now() + 30) == .timedOut {
      result.failures.append("a writer, observer or scroller thread did not finish within 30 s of the end")
    }
    stopSampling.set(true)
    samplerDone.wait()
    stats.matchDeliveries(ledger, before: nil)
    // The last, partial second (the whole run, when it was shorter than a second).
    let last = stats.closeSecond(secondsClosed.get(), heap: Heap.allocated, rss: Self.currentRSS)
    if last.commits + last.changeSets + last.faults > 0 || secondsClosed.get() == 0 { sampler.mutate { $0.append(last) } }

    result.seconds = writeSeconds
    result.targetCommits = config.maxTransactions.map { Double($0) } ?? config.rate * config.duration
    stats.withLock { s in
      result.commits = s.commits
      result.failedCommits = s.failedCommits
      result.delivery = Percentiles(s.delivery)
      result.changeSet = Percentiles(s.changeSet)
      result.faultLatency = Percentiles(s.fault)
      result.faults = s.faults
      result.changeSets = s.changeSets
      result.coalescedTransactions = s.coalesced
      result.reconnects = s.reconnects
      result.staleReads = s.staleReads
    }
    result.timeline = sampler.get()
    result.peakRSSBytes = Clock.peakRSS
    let early = result.failures
    try verify(&result, finalSequence: finalSequence)
    result.failures = early + result.failures
    return result
  }

  /// Sleeps until `deadline` (monotonic nanoseconds), waking every 50 ms to check `keepGoing`.
  func sleepUntil(_ deadline: UInt64, orWhile keepGoing: () -> Bool = { true }) {
    while keepGoing() {
      let now = Clock.wallNanos
      guard now < deadline else { return }
      usleep(UInt32(min(deadline - now, 50_000_000) / 1_000))
    }
  }

  static var currentRSS: Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }
}
