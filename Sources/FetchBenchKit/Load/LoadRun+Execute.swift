import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import Histogram
import PostgresStore
import Reports
import SQLiteStore
import Vocabulary

extension LoadRun {

  /// Runs the writers, observers, scrollers and the per-second sampler until the writers
  /// are done and the observers have caught up, then verifies every mirror.
  func execute() throws -> LoadResult {
    var result = LoadResult(config: config)
    result.durability = try durability()
    let start = Clock.wallNanos
    let cpuAtStart = Self.cpuSeconds
    let countersAtStart = writers.stores.map(\.counters)
    let workers = spawnWorkers(start: start)
    let sampler = SecondSampler()
    let samplerThread = Thread { [self] in sample(sampler, start: start) }
    samplerThread.name = "sampler"
    Heap.resetPeak()
    for t in workers.threads { t.start() }
    samplerThread.start()

    workers.writersDone.wait()
    result.seconds = Double(Clock.wallNanos - start) / 1e9
    result.cpuSeconds = Self.cpuSeconds - cpuAtStart
    writersStopped.set(true)
    let finalSequence = lastCommitted.get()
    awaitObservers(through: finalSequence)
    stopObserving.set(true)
    if workers.done.wait(timeout: .now() + 30) == .timedOut {
      result.failures.append("a writer, observer or scroller thread did not finish within 30 s of the end")
    }
    sampler.stopped.set(true)
    sampler.finished.wait()
    stats.matchDeliveries(ledger, before: nil)
    closeLastSecond(sampler)
    result.targetCommits = config.maxTransactions.map { Double($0) } ?? config.rate * config.duration
    record(&result)
    recordSaves(&result, since: countersAtStart)
    result.timeline = sampler.seconds.get()
    result.peakRSSBytes = Clock.peakRSS
    let early = result.failures
    try verify(&result, finalSequence: finalSequence)
    result.failures = early + result.failures
    return result
  }

  /// The run's threads, not yet started: a writer each, an observer and a scroller per observed
  /// list.
  struct Workers {
    var threads: [Thread] = []
    let done = DispatchGroup()
    let writersDone = DispatchGroup()

    mutating func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
      let done = done
      done.enter()
      let t = Thread {
        body()
        done.leave()
      }
      t.name = name
      t.stackSize = 8 << 20
      threads.append(t)
    }
  }

  func spawnWorkers(start: UInt64) -> Workers {
    var workers = Workers()
    let writeEnd = start + UInt64(config.duration * 1e9)
    let writersDone = workers.writersDone
    for w in 0..<config.writers {
      writersDone.enter()
      workers.spawn("writer-\(w)") { [self] in
        if config.rawWrites { rawWriter(w, end: writeEnd) } else { writer(w, start: start, end: writeEnd) }
        writersDone.leave()
      }
    }
    for o in observers {
      workers.spawn("observer-\(o.index)") { [self] in observe(o) }
      workers.spawn("scroller-\(o.index)") { [self] in scroll(o, start: start) }
    }
    return workers
  }

  /// What the sampler thread shares with the run.
  final class SecondSampler: Sendable {
    let seconds = LockedBox<[LoadSecond]>([])
    let stopped = LockedBox(false)
    let finished = DispatchSemaphore(value: 0)
    let closed = LockedBox(0)
  }

  /// Closes a second of figures every second until stopped, logging every tenth, and drops the
  /// connections once when the configuration asks to.
  func sample(_ sampler: SecondSampler, start: UInt64) {
    var second = 0
    var dropped = false
    while !sampler.stopped.get() {
      sleepUntil(start + UInt64(second + 1) * 1_000_000_000, orWhile: { !sampler.stopped.get() })
      if sampler.stopped.get() { break }
      stats.matchDeliveries(ledger, before: Clock.wallNanos - 200_000_000)
      let s = stats.closeSecond(second, heap: Heap.allocated, rss: Self.currentRSS)
      sampler.seconds.mutate { $0.append(s) }
      second += 1
      sampler.closed.set(second)
      if second % 10 == 0 || second == 1 {
        log(
          String(
            format: "  %@ %3d s: %d commits/s, delivery p99 %.2f ms, change set p99 %.2f ms, %d faults/s, heap %@",
            kind.rawValue, second,
            s.commits, s.deliveryP99Ms, s.changeSetP99Ms, s.faults, bytes(Double(s.heapBytes))))
      }
      if let at = config.dropConnectionAt, !dropped, Double(second) >= at {
        dropped = true
        dropConnections()
      }
    }
    sampler.finished.signal()
  }

  /// Waits, up to the drain timeout, until every observer has applied `finalSequence`.
  func awaitObservers(through finalSequence: Int) {
    let drainDeadline = Clock.wallNanos + UInt64(config.drainTimeout * 1e9)
    while Clock.wallNanos < drainDeadline
      && observers.contains(where: { o in o.lock.withLock { o.lastApplied < finalSequence } })
    {
      usleep(2_000)
    }
  }

  /// The last, partial second (the whole run, when it was shorter than a second).
  func closeLastSecond(_ sampler: SecondSampler) {
    let last = stats.closeSecond(sampler.closed.get(), heap: Heap.allocated, rss: Self.currentRSS)
    if last.commits + last.changeSets + last.faults > 0 || sampler.closed.get() == 0 {
      sampler.seconds.mutate { $0.append(last) }
    }
  }

  /// What a save cost the writers' stores: statements and commits per save attempted, from
  /// their counters since `start` (writers stopped). None with raw writes, which bypass them,
  /// nor in memory, which issues no statements.
  func recordSaves(_ result: inout LoadResult, since start: [StoreCounters]) {
    let saves = result.commits + result.failedCommits
    guard !config.rawWrites, kind != .memory, saves > 0 else { return }
    let now = writers.stores.map(\.counters)
    let statements = zip(now, start).reduce(0) { $0 + $1.0.queries - $1.1.queries }
    let commits = zip(now, start).reduce(0) { $0 + $1.0.commits - $1.1.commits }
    result.statementsPerSave = Double(statements) / Double(saves)
    result.commitsPerSave = Double(commits) / Double(saves)
  }

  /// The run's counts and latency percentiles, from the shared statistics.
  func record(_ result: inout LoadResult) {
    stats.withLock { s in
      result.commits = s.commits
      result.failedCommits = s.failedCommits
      result.delivery = Percentiles(s.delivery)
      result.changeSet = Percentiles(s.changeSet)
      result.faultLatency = Percentiles(s.fault)
      result.faults = s.faults
      result.changeSets = s.changeSets
      result.changeSetSeconds = Double(s.changeSetNanos) / 1e9
      result.coalescedTransactions = s.coalesced
      result.reconnects = s.reconnects
      result.staleReads = s.staleReads
    }
  }

  /// Sleeps until `deadline` (monotonic nanoseconds), waking every 50 ms to check `keepGoing`.
  func sleepUntil(_ deadline: UInt64, orWhile keepGoing: () -> Bool = { true }) {
    while keepGoing() {
      let now = Clock.wallNanos
      guard now < deadline else { return }
      usleep(UInt32(min(deadline - now, 50_000_000) / 1_000))
    }
  }

  /// The durability settings the writers commit under, as the store reports them.
  func durability() throws -> String {
    switch writers {
    case .sqlite(let s): try s.durabilitySettings()
    case .postgres(let s): try s.first?.durabilitySettings() ?? "no writer"
    case .memory, .none: "nothing written to disk"
    }
  }

  /// User and system CPU seconds of the whole process so far.
  static var cpuSeconds: Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }

  static var currentRSS: Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }
}
