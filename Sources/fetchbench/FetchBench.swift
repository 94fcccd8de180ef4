import ArgumentParser
import ChildProcesses
import DatasetStores
import Datasets
import FetchBenchKit
import Foundation
import Vocabulary

@main
struct FetchBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fetchbench",
    abstract: "Full fetch or batched faulting, which store, and what keeping a list in sync costs.",
    subcommands: [
      Generate.self, Fetch.self, Describe.self, Run.self, Diff.self, Load.self, Check.self, Compare.self, Export.self,
      History.self,
      ReportCommand.self,
      RunCase.self,
      LoadCase.self,
    ]
  )

  /// ArgumentParser's own `main`, but for `FETCHBENCH_VALIDATE_ONLY=1`: the tests fuzz every
  /// option's parsing and checks by the thousand, which must stop before any work.
  static func main() {
    do {
      try checkHelpTopic(Array(CommandLine.arguments.dropFirst()))
      let environment = ProcessInfo.processInfo.environment
      CommandSettings.update { $0 = EnvironmentSettings.read(environment) }
      LocaleOption.applyEarly(CommandLine.arguments)
      var command = try parseAsRoot()
      if EnvironmentSettings.validatesOnly(environment) { return }
      // What a killed FetchBench process left in the temporary directory.
      AtomicFile.sweepAbandoned()
      try command.run()
    } catch {
      exit(withError: AtomicFile.commandMessage(error))
    }
  }

  /// `help NAME` for a command that does not exist is a usage error, as `NAME` alone is
  /// (ArgumentParser prints the root's help and exits 0).
  static func checkHelpTopic(_ arguments: [String]) throws {
    guard arguments.first == "help", let topic = arguments.dropFirst().first, !topic.hasPrefix("-") else { return }
    let names = configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
    guard names.contains(topic) else {
      throw ValidationError("no command '\(topic)'; the commands are \(names.joined(separator: ", "))")
    }
  }
}

/// Removes temporary files on SIGINT, SIGTERM and SIGHUP (a closed terminal), so an interrupted command leaves nothing
/// half-written behind.
enum Interrupts {
  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

  /// Returns once every source is registered: libdispatch registers them on its own threads,
  /// whose allocations would otherwise land inside the first measured operation's heap window
  /// (jemalloc's `stats.allocated` counts every thread).
  static func install() {
    let registered = DispatchSemaphore(value: 0)
    let signals = [SIGINT, SIGTERM, SIGHUP]
    for sig in signals {
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
      source.setRegistrationHandler { registered.signal() }
      source.setEventHandler {
        // The children first: each removes its own temporary files and scratch copies.
        ChildProcess.stopAll(sig)
        AtomicFile.discardAll()
        PostgresScratch.dropAll()
        PostgresTrials.dropAll()
        FileHandle.standardError.write(
          Data("\ninterrupted; child processes stopped, temporary files and scratch databases removed\n".utf8))
        exit(128 + sig)
      }
      source.resume()
      sources.append(source)
    }
    for _ in signals { registered.wait() }
  }
}

/// How much memory a measured case may hold before it is stopped and recorded as not fitting.
struct MemoryCeilingOption: ParsableArguments {
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "GiB a case's process may hold resident before it is stopped and recorded as not fitting.",
      discussion: "Default: the memory available when the case starts, less 1 GiB."))
  var memoryCeiling: Double?

  /// In bytes; nil for the default.
  func bytes() throws -> Int? {
    guard let memoryCeiling else { return nil }
    // Below a MiB no process starts: such a ceiling is a typo, not a limit.
    guard memoryCeiling >= 1.0 / 1024, memoryCeiling < 1_048_576 else {
      throw ValidationError(
        "--memory-ceiling must be a number of GiB from 0.001 to 1,048,575, got \(OptionRange.text(memoryCeiling))")
    }
    return Int(memoryCeiling * Double(1 << 30))
  }
}

/// A long run split across sittings: stop after a time, continue later where it stopped.
struct ResumeOptions: ParsableArguments {
  @Flag(
    help: ArgumentHelp(
      """
      Continue the unfinished run into --out (default: the newest unfinished one): its finished cases are kept, the \
      rest run.
      """,
      discussion:
        "Every finished case is kept in OUT.unfinished/ as it ends; the options and the build must be the same."))
  var resume = false
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Start no case after this many minutes; the finished cases are kept for --resume, and the exit code is 75.",
      discussion: "The minutes count from the command's start: generating the datasets counts too."))
  var maxMinutes: Double?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Stop a case whose process runs longer than this many minutes, recorded as failed (default: 30).",
      discussion: "The rest of the run goes on; the case's error names its list."))
  var caseMinutes: Double?

  func apply(to options: inout RunOptions) throws {
    if let maxMinutes, !(maxMinutes >= 0 && maxMinutes.isFinite) {
      throw ValidationError("--max-minutes must be a number of minutes, 0 or more")
    }
    if let caseMinutes, !OptionRange.caseMinutes.contains(caseMinutes) {
      throw ValidationError(
        "--case-minutes must be a number of minutes \(OptionRange.text(OptionRange.caseMinutes)), got \(OptionRange.text(caseMinutes))"
      )
    }
    options.resume = resume
    options.maxMinutes = maxMinutes
    options.caseMinutes = caseMinutes ?? RunOptions.defaultCaseMinutes
  }
}

struct PostgresOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "PostgreSQL server for --store postgres: postgres://user[:password]@host[:port]/database.",
      discussion:
        "Default: FETCHBENCH_POSTGRES_URL, else the private server of `scripts/postgres start` (127.0.0.1:55432)."))
  var postgresURL: String?
  @Flag(help: "Let loading a dataset into PostgreSQL drop tables of the same names that FetchBench did not create.")
  var postgresReplaceTables = false

  /// Validates the URL and makes both the command's settings, which its cases receive.
  func apply() throws {
    if postgresReplaceTables { CommandSettings.update { $0.replacePostgresTables = true } }
    guard let postgresURL else { return }
    do {
      _ = try PostgresLocation.url(postgresURL)
    } catch {
      throw ValidationError(String(describing: error))
    }
    CommandSettings.update { $0.postgresURL = postgresURL }
  }
}

/// `--sql-debug` for the commands that read lists: every statement on standard error.
struct SQLDebugOption: ParsableArguments {
  @Flag(
    help: ArgumentHelp(
      """
      Print every SQL statement, with its binds, rows and time, as Core Data's -com.apple.CoreData.SQLDebug 1 does \
      (standard error).
      """,
      discussion:
        "With run: cases run without their warm-up, so each statement appears once per repetition; use --repetitions 1."
    ))
  var sqlDebug = false

  /// Turns the log on for this command and its cases.
  func apply() { if sqlDebug { CommandSettings.update { $0.sqlDebug = true } } }
}
