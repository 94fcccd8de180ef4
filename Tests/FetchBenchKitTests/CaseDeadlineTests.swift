import FetchBenchKit
import Testing

/// `--max-minutes`: the minutes count from the command's start, not from its first case, so
/// the time spent generating datasets before the first case counts; the first case of a
/// sitting always starts.
@Suite struct CaseDeadlines {
  static let minute: UInt64 = 60_000_000_000

  @Test func theMinutesCountFromTheStartGivenNotFromTheFirstCase() {
    let start: UInt64 = 1_000 * Self.minute
    let deadline = CaseDeadline(minutes: 10, start: start)
    // Ten minutes of generation before the first case: it starts, and no second case does.
    let firstCaseStarts = start + 10 * Self.minute
    #expect(deadline.allowsCase(afterRunning: 0, now: firstCaseStarts))
    #expect(!deadline.allowsCase(afterRunning: 1, now: firstCaseStarts + 1))
    #expect(deadline.allowsCase(afterRunning: 5, now: start + 10 * Self.minute - 1))
    #expect(!deadline.allowsCase(afterRunning: 5, now: start + 10 * Self.minute))
    #expect(deadline.elapsedMinutes(now: start + 90 * Self.minute / 60) == 1.5)
  }

  @Test func zeroMinutesRunsOneCaseAndNoLimitRunsEvery() {
    let start: UInt64 = 7
    #expect(CaseDeadline(minutes: 0, start: start).allowsCase(afterRunning: 0, now: start))
    #expect(!CaseDeadline(minutes: 0, start: start).allowsCase(afterRunning: 1, now: start))
    #expect(CaseDeadline(minutes: nil, start: start).allowsCase(afterRunning: 1_000, now: start + 10_000 * Self.minute))
  }

  @Test func aDeadlineMadeWithoutAStartCountsFromWhenItWasMade() {
    let deadline = CaseDeadline(minutes: 60)
    #expect(deadline.elapsedMinutes() < 60)
    #expect(deadline.allowsCase(afterRunning: 1))
  }
}
