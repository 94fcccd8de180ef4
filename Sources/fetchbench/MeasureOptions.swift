import ArgumentParser
import FetchBenchKit
import Vocabulary

/// How many times each case is measured, for the commands that measure cases (`run`, `diff`):
/// declared once, checked once.
struct MeasureOptions: ParsableArguments {
  @Option(
    parsing: .unconditional,
    help:
      """
      Measured repetitions per case, after one warm-up \(OptionRange.help(OptionRange.repetitions)); default 5, 3 \
      with --quick.
      """
  )
  var repetitions: Int?

  @Option(
    parsing: .unconditional,
    help:
      """
      Child processes per case, one after another, each measuring the repetitions \
      \(OptionRange.help(OptionRange.processes)); compare judges times with 3 or more a side.
      """
  )
  var processes = 1

  /// The repetitions asked for, else `fallback`; out of range is a usage error.
  func checkedRepetitions(or fallback: Int) throws -> Int {
    let n = repetitions ?? fallback
    try OptionValue.check(n, in: OptionRange.repetitions, "repetitions")
    return n
  }

  /// The processes asked for; out of range is a usage error.
  func checkedProcesses() throws -> Int {
    try OptionValue.check(processes, in: OptionRange.processes, "processes")
    return processes
  }
}
