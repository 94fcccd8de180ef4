import Collation
import SQLQueries
import Synchronization

/// What a command's options and environment set for the whole command: read once by the
/// command line, kept for this process in `current`, and sent to every process it starts for
/// a case in that case's request (`ChildRequest`), never through the environment.
public struct CommandSettings: Codable, Sendable, Equatable {
  /// The PostgreSQL server of `--store postgres` (`--postgres-url`, else the one the command
  /// line reads from the environment); nil: the private server of `scripts/postgres`.
  public var postgresURL: String?
  /// `--postgres-replace-tables`: loading a dataset may drop tables of the same names that
  /// FetchBench did not create.
  public var replacePostgresTables = false
  /// The password of `--db`'s PostgreSQL URL, which the recorded URL leaves out.
  public var databasePassword: String?
  /// `--locale`: the locale sort selectors compare in; nil: `en_US`.
  public var locale: String?
  /// `--sql-debug`: every statement on standard error.
  public var sqlDebug = false
  /// `diff --stdlib-budget`: seconds the standard library's diff may take; nil: 10.
  public var stdlibBudget: Double?
  /// Faults the harness's own tests inject; none in a real run.
  public var faults = InjectedFaults()

  public init() {}

  private static let shared = Mutex(CommandSettings())

  /// This process's settings. O(1).
  public static var current: CommandSettings { shared.withLock { $0 } }

  /// Changes this process's settings, and what follows from them here: the collation's locale
  /// for the models made from now on, and the statement log. O(1).
  public static func update(_ change: (inout CommandSettings) -> Void) {
    let settings = shared.withLock { settings in
      change(&settings)
      return settings
    }
    FoundationCollation.useLocale(settings.locale)
    if settings.sqlDebug { StatementLog.enable() }
  }
}

/// Faults the harness's own tests inject into a case's process, to see the harness report a
/// crash, a hang or a failure and see `compare` and `check` catch a slowdown; each
/// `…Matching` names the cases it strikes by a part of their label.
public struct InjectedFaults: Codable, Sendable, Equatable {
  /// The case's process dies by a signal.
  public var crashMatching: String?
  /// The case's process never ends.
  public var hangMatching: String?
  /// The case fails with an error.
  public var failureMatching: String?
  /// Each timed batched call does this many calls' work.
  public var batchedSlowdown: Int?
  /// Each batch is read a row per query.
  public var queryPerRow = false

  public init() {}
}
