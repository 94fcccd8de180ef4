import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import Histogram
import PostgresStore

extension LoadRun {

  func observe(_ o: LoadObserver) {
    while !stopObserving.get() {
      if config.suspendObservers && !writersStopped.get() {
        usleep(2_000)
        continue
      }
      if case .inbox(let inbox) = o.feed {
        let units = inbox.take(timeout: 0.02)
        if !units.isEmpty { o.lock.withLock { o.pending += units } }
      } else {
        o.feed.changeLog?.awaitNotification(timeout: 0.02)
      }
      o.lock.lock()
      do {
        try deliver(o)
      } catch {
        o.errors.append("observer \(o.index): \(error)")
        o.lock.unlock()
        return
      }
      o.lock.unlock()
    }
  }

  /// Polls the observer's connection and applies what is pending as one change set. Called
  /// with the observer's lock held.
  func deliver(_ o: LoadObserver) throws {
    do {
      try o.feed.changeLog?.pollChanges()
    } catch {
      guard try o.recover(stats) else { throw error }
    }
    guard !o.pending.isEmpty else { return }
    let units = o.pending
    o.pending = []
    // Received now, at the latest (the in-memory store's were recorded inside the commit).
    let seenAt = Clock.wallNanos
    for u in units { ledger.record(u.first, seenAt) }
    // Exactly once, in order: each unit must start right after the last one applied.
    var expected = o.lastApplied + 1
    for u in units {
      if u.first > expected { o.missed += u.first - expected }
      if u.first < expected { o.repeated += expected - u.first }
      expected = u.transaction.sequence + 1
    }
    let unit = PendingUnit.coalescing(units)
    let t0 = Clock.wallNanos
    var changes: ChangeSet
    do {
      changes = try o.controller.apply(unit.transaction)
    } catch {
      // A dropped PostgreSQL session: reconnect (which queues what was missed after this
      // unit) and apply the unit again; the controller is unchanged when apply throws.
      guard try o.recover(stats) else { throw error }
      o.pending = units + o.pending
      return
    }
    let t1 = Clock.wallNanos
    changes.transactions = unit.first...unit.transaction.sequence
    do {
      try BatchUpdateValidator.apply(changes, to: &o.mirror)
    } catch {
      o.invalid += 1
      if o.errors.count < 5 {
        o.errors.append(
          "observer \(o.index): invalid change set for \(unit.first)…\(unit.transaction.sequence): \(error)")
      }
      o.mirror = o.controller.snapshot()
    }
    if config.observerDelayMs > 0 { usleep(UInt32(config.observerDelayMs * 1_000)) }
    o.lastApplied = unit.transaction.sequence
    stats.changeSetApplied(
      first: unit.first, last: unit.transaction.sequence, transactions: unit.count, nanos: t1 - t0, at: t1)
  }

  /// Reads a screen (20 rows from a random position) through the observer's controller,
  /// `screensPerSecond` times a second; a read that faults a batch is timed.
  func scroll(_ o: LoadObserver, start: UInt64) {
    var rng = SeededRandom(seed: config.seed &+ 500 &+ UInt64(o.index))
    let interval = 1e9 / config.screensPerSecond
    var frame = 0
    // The first screen is read whatever the run's length, so every scroller faults at least
    // one batch even on a machine that ends the run before its first frame is due.
    while frame == 0 || !stopObserving.get() {
      frame += 1
      sleepUntil(start + UInt64(Double(frame) * interval), orWhile: { !stopObserving.get() })
      if frame > 1 && stopObserving.get() { break }
      o.lock.lock()
      defer { o.lock.unlock() }
      let n = o.controller.count
      guard n > 0, let array = o.controller.batchArray else { continue }
      let first = Int(rng.below(UInt64(max(1, n - 20))))
      for i in first..<min(n, first + 20) {
        let faults = array.faults
        let t0 = Clock.wallNanos
        do {
          blackHole(try o.controller.object(atGlobalIndex: i))
        } catch FetchError.objectDeleted {
          // A writer deleted a row of this batch and the observer has not applied that
          // transaction yet: what an app shows as a placeholder until the change set comes.
          stats.staleRead()
          break
        } catch {
          do {
            if try o.recover(stats) { break }
          } catch {}
          o.errors.append("scroller \(o.index): \(error)")
          return
        }
        if array.faults != faults { stats.faulted(nanos: Clock.wallNanos - t0) }
      }
    }
  }

  /// Ends every PostgreSQL observer's session from the server side, as a restart would.
  func dropConnections() {
    guard let admin else { return }
    for o in observers {
      guard let pg = o.feed.session else { continue }
      // With the observer's lock held, no query is in flight on the session being ended, and
      // none starts before the client has seen the close (postgres-nio 1.33 leaves a query
      // sent on a connection the server closed pending forever).
      o.lock.withLock {
        guard let pid = try? pg.backendPID() else { return }
        try? admin.execute("SELECT pg_terminate_backend(\(pid))")
        for _ in 0..<250 where !pg.isDisconnected { usleep(20_000) }
        log(
          """
            dropped observer \(o.index)'s connection (backend \
          \(pid))\(pg.isDisconnected ? "" : "; the client has not noticed within 5 s")
          """
        )
      }
    }
  }
}
