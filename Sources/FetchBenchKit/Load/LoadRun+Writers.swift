import Datasets
import FetchedResults
import Foundation
import HarnessSupport
import Histogram
import PostgresStore
import SQLiteStore

extension LoadRun {
  /// Changed objects in the next transaction, drawn uniformly from the configured range.
  func transactionSize(_ rng: inout SeededRandom) -> Int {
    config.transactionSizeMin + Int(rng.below(UInt64(config.transactionSizeMax - config.transactionSizeMin + 1)))
  }

  /// Writer w of W commits at start + (w + i·W)/rate (open loop: a writer that falls behind
  /// commits at once, so the achieved rate shows what the store sustains).
  func writer(_ w: Int, start: UInt64, end: UInt64) {
    let store = serialWriter.map { writer in writer.commit } ?? writers.stores[w].commit
    let inFile = self.inFile
    let commit = { (ops: [WriteOperation]) in try store(inFile(ops)) }
    var state = writerStates[w]
    var rng = SeededRandom(seed: config.seed &* 7_919 &+ UInt64(w))
    let interval = 1e9 / config.rate * Double(config.writers)
    var i = 0
    while true {
      let due = start + UInt64((Double(w) / Double(config.writers) + Double(i)) * interval)
      i += 1
      // The run ends at its duration even when the writers are behind their schedule.
      guard due < end, Clock.wallNanos < end, !stopWriting.get() else { break }
      sleepUntil(due)
      if let max = config.maxTransactions {
        var mine = false
        tickets.mutate { t in
          if t < max {
            t += 1
            mine = true
          }
        }
        guard mine else { break }
      }
      let k = transactionSize(&rng)
      let fails = Double(rng.below(1_000_000)) / 1e6 < config.failureRate
      let saved = fails ? state : nil
      var ops = state.mixed(k)
      if fails {
        // Writes first, then the failing one: the store must undo the writes.
        ops.append(
          .insert(
            entity: "FailedBankInfo",
            values: [
              "name": .string("\(Self.rollbackMarker)\(w)-\(i)"), "city": .string("Nowhere"), "state": .string("TX"),
            ]))
        ops.append(.update(entity: "FailedBankInfo", id: -1, values: ["name": .string("no such bank")]))
      }
      do {
        let t = try commit(ops)
        ledger.record(t.sequence, Clock.wallNanos)
        lastCommitted.mutate { $0 = max($0, t.sequence) }
        stats.committed()
      } catch {
        if let saved {
          state = saved
          stats.failed()
        } else {
          // A real error: stop writing, report it.
          errorsLock.withLock { writerErrors.append("writer \(w): \(error)") }
          stopWriting.set(true)
          break
        }
      }
    }
  }
}
