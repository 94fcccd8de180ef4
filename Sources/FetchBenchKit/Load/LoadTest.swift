import Datasets
import FetchedResults
import Foundation
import Histogram
import PostgresStore
import SQLiteStore

/// `fetchbench load`: writers commit seeded random transactions at a target rate while
/// observers keep batched controllers in sync (each change set replayed on a mirror under
/// UIKit's rules) and scrollers read random screens through the same controllers.
///
/// Threads, not tasks: stores are synchronous and block on I/O, and a blocked thread of the
/// cooperative pool (two threads here) would stall everything else.
///
/// Commit time, for delivery latency, is the earliest moment the harness knows of the
/// transaction: its writer's `commit()` returning, or an observer receiving it (on the
/// in-memory store observers receive it inside the commit). Latencies are matched a tick
/// after the fact, so the writer's record is never missed by a race.
package enum LoadTest {
  package static func run(_ config: LoadConfig, log: @escaping @Sendable (String) -> Void) throws -> LoadResult {
    let run = try LoadRun(config, log: log)
    defer { run.close() }
    return try run.execute()
  }
}
