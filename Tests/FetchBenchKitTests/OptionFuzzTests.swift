import Datasets
import Foundation
import TestSupport
import Testing

/// Every numeric option of every subcommand, given extreme and malformed values (Int64 and
/// UInt64 bounds and past them, NaN, infinities, 1e±300, negative, empty, doubled range dots):
/// parsing and validation end in 0 (accepted), 1 or 64 (refused) with at most one `Error:`
/// line, never a signal. `FETCHBENCH_VALIDATE_ONLY` stops each before any work.
@Suite struct OptionFuzz {
  static let options: [(command: String, options: [String])] = [
    ("generate", ["--rows", "--seed"]),
    ("fetch", ["--batch-size", "--limit", "--offset", "--show", "--rows", "--seed"]),
    ("run", ["--batch-size", "--rows", "--repetitions", "--processes", "--memory-budget", "--memory-ceiling", "--max-minutes"]),
    ("diff", ["--rows", "--k", "--batch-size", "--repetitions", "--processes", "--stdlib-budget", "--memory-ceiling", "--max-minutes"]),
    (
      "load",
      [
        "--rows", "--writers", "--rate", "--transaction-size", "--observers", "--duration", "--transactions", "--batch-size",
        "--failure-rate", "--observer-delay-ms", "--frame-budget-ms", "--drop-connection-at", "--screens-per-second",
        "--heap-bound-mib", "--step-duration", "--seed",
      ]
    ),
    ("check", ["--update-runs", "--batch-size", "--rows", "--repetitions"]),
  ]

  static let extremes = [
    "0", "1", "-1", "-7", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
    "18446744073709551616", "nan", "inf", "-inf", "1e300", "1e-300", "-1e300", "1e18", "", "abc", "1......3", "1...", "1e308m",
  ]

  /// The extremes, and seeded random numbers of every magnitude, signed and not.
  static func values(seed: UInt64) -> [String] {
    // Seeded, so that a failure reproduces.
    var random = SeededRandom(seed: seed)
    var out = extremes
    for _ in 0..<6 {
      let bits = random.next()
      let magnitude = Double(bits % 600) - 300
      out.append(String(Int64(bitPattern: random.next()) >> (bits % 63)))
      out.append(String(format: "%g", (bits & 1 == 0 ? 1.0 : -1.0) * pow(10, magnitude)))
    }
    return out
  }

  @Test(arguments: options.map(\.command))
  func numericOptionsEndInZeroOneOrSixtyFour(command: String) throws {
    let names = try #require(Self.options.first { $0.command == command }).options
    var outcomes: [Int32: Int] = [:]
    for (i, option) in names.enumerated() {
      for value in Self.values(seed: UInt64(i + 1) &* 7_919) {
        let out = try TestSupport.run([command, option + "=" + value], environment: ["FETCHBENCH_VALIDATE_ONLY": "1"])
        #expect([0, 1, 64].contains(out.status), "\(command) \(option)=\(value): status \(out.status)\n\(out.stderr)")
        let errors = out.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errors.count <= 1, "\(command) \(option)=\(value): \(out.stderr)")
        if out.status != 0 { #expect(errors.count == 1, "\(command) \(option)=\(value): no Error: line\n\(out.stderr)") }
        outcomes[out.status, default: 0] += 1
      }
    }
    // Both accepted and refused values were tried: the test exercised validation, not only parsing.
    #expect(outcomes[0, default: 0] > 0 && outcomes[64, default: 0] > 0, "\(outcomes)")
  }

  /// The traps of the tester's report, each now a usage error naming the option's range.
  @Test(arguments: [
    (["diff", "--k", "9223372036854775807"], "--k must be between 1 and 10,000,000"),
    (["load", "--transaction-size", "9223372036854775807"], "--transaction-size: '9223372036854775807' is not N or MIN...MAX"),
    (["load", "--transaction-size=-7"], "--transaction-size: '-7' is not N or MIN...MAX"),
    (["load", "--transaction-size", "1......3"], "--transaction-size: '1......3' is not N or MIN...MAX"),
    (["run", "--batch-size", "9223372036854775807"], "--batch-size must be between 1 and 100,000"),
    (["run", "--repetitions", "9223372036854775807"], "--repetitions must be between 1 and 10,000"),
    (["load", "--rate", "1e300"], "--rate must be between 0.01 and 10,000,000"),
    (["load", "--rate", "1e-300"], "--rate must be between 0.01 and 10,000,000"),
    (["load", "--duration", "1e18"], "--duration: '1e18' is not between 1 s and 604,800 s"),
    (["load", "--screens-per-second", "1e-300"], "--screens-per-second must be between 0.01 and 10,000"),
    (["load", "--step-duration", "1e308m"], "--step-duration: '1e308m' is not"),
    (["load", "--heap-bound-mib", "9223372036854775807"], "--heap-bound-mib must be between 1 and 1,048,576"),
    (["generate", "--seed", "-1"], "-1"),
    // A negative number is the option's value, refused by its range, not a missing value.
    (["run", "--repetitions", "-3"], "--repetitions must be between 1 and 10,000"),
    (["load", "--writers", "-2"], "--writers must be between 1 and 64"),
    (["compare", "a", "b", "--threshold", "-5"], "--threshold must be between 1 and 1,000"),
    (["run", "--memory-ceiling", "1e-300"], "--memory-ceiling must be a number of GiB from 0.001"),
  ])
  func trapsAreUsageErrors(arguments: [String], message: String) throws {
    let out = try TestSupport.run(arguments, environment: ["FETCHBENCH_VALIDATE_ONLY": "1"])
    #expect(out.status == 64, "\(arguments): \(out.status) \(out.stderr)")
    #expect(out.stderr.contains(message), "\(arguments): \(out.stderr)")
    #expect(!out.stderr.contains("Missing value"), "\(out.stderr)")
  }
}

/// Predicate texts, seeded: tokens of the grammar in random order and nesting from 1 to 30,000
/// levels (a command-line argument holds 128 KiB). `fetch` parses and checks the request
/// before it opens a dataset, so each ends in 64 (refused) or 1 (the folder has no dataset),
/// with one `Error:` line, never a signal.
@Suite struct PredicateFuzz {
  static let tokens = [
    "state", "details.closeDate", "details.cert", "name", "=", "!=", "<", ">=", "BETWEEN", "IN", "BEGINSWITH", "CONTAINS",
    "AND", "OR", "NOT", "&&", "||", "!", "(", ")", "{", "}", ",", "'TX'", "'", "2009-01-01", "1e400", "-9223372036854775809", "nil",
    "TRUEPREDICATE", "\u{0}", "é", "\"", "ENDSWITH", "LIKE", "'F*'", "%@", "%K", "%d", "$X", "[cd]", "CAST", "@count",
    "ANY", "MATCHES",
  ]

  @Test func predicateTextsEndInOneOrSixtyFour() throws {
    var random = SeededRandom(seed: 31)
    var texts: [String] = []
    for _ in 0..<60 {
      texts.append((0..<random.int(in: 1...12)).map { _ in random.pick(Self.tokens) }.joined(separator: " "))
    }
    for depth in [1, 99, 100, 101, 1_000, 30_000] {
      for (open, close) in [("NOT ", ""), ("(", ")"), ("!(", ")")] {
        texts.append(String(repeating: open, count: depth) + "state = 'TX'" + String(repeating: close, count: depth))
      }
    }
    for text in texts {
      let out = try TestSupport.run(["fetch", "--where", text, "--datasets", "/nonexistent/fetchbench-datasets", "--ids"])
      #expect([1, 64].contains(out.status), "\(text.prefix(80)): status \(out.status)\n\(out.stderr.prefix(500))")
      #expect(
        out.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1, "\(text.prefix(80)): \(out.stderr.prefix(500))")
    }
  }
}
