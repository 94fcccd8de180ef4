import HarnessSupport

/// When a run given `--max-minutes` starts no more cases. The minutes count from the
/// command's start, so the machine's speed check and the datasets' generation count too: the
/// help promises "no case after this many minutes", and a sitting planned around it must end
/// when the user expects.
package struct CaseDeadline: Sendable {
  /// nil: no limit.
  package let minutes: Double?
  /// `Clock.wallNanos` when the command started.
  package let start: UInt64

  package init(minutes: Double?, start: UInt64 = Clock.wallNanos) {
    (self.minutes, self.start) = (minutes, start)
  }

  /// Minutes since `start` at `now`. O(1).
  package func elapsedMinutes(now: UInt64 = Clock.wallNanos) -> Double {
    Double(now &- start) / 6e10
  }

  /// Whether a case may start at `now` once this sitting has run `ran` cases: the first
  /// always does, so each sitting of a resumed run gets further. O(1).
  package func allowsCase(afterRunning ran: Int, now: UInt64 = Clock.wallNanos) -> Bool {
    guard let minutes, ran > 0 else { return true }
    return elapsedMinutes(now: now) < minutes
  }
}
