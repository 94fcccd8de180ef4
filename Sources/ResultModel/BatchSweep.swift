/// The PostgreSQL floor's round-trip sweep: a scroll through `rows` IDs at each of
/// `batchSizes`, measured by the floor and named by the report beside its fit.
package enum BatchSweep {
  /// IDs scrolled through per batch size: enough for a stable per-row figure, few enough that
  /// batch size 1 (one round trip per row) stays seconds.
  package static let rows = 5_000
  package static let batchSizes = [1, 5, 20, 100, 1_000]
}
