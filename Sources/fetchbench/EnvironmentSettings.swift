import Vocabulary

/// The environment variables FetchBench reads, all here, once, as a command starts; the
/// command's options then change what they set, and the processes it starts receive the
/// result in their requests.
enum EnvironmentSettings {
  /// The settings `environment` gives. O(variables).
  static func read(_ environment: [String: String]) -> CommandSettings {
    var settings = CommandSettings()
    settings.postgresURL = environment["FETCHBENCH_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    settings.faults.crashMatching = environment["FETCHBENCH_INJECT_CRASH"]
    settings.faults.hangMatching = environment["FETCHBENCH_INJECT_HANG"]
    settings.faults.failureMatching = environment["FETCHBENCH_INJECT_FAILURE"]
    settings.faults.batchedSlowdown = environment["FETCHBENCH_INJECT_BATCHED_SLOWDOWN"].flatMap(Int.init)
    settings.faults.queryPerRow = environment["FETCHBENCH_INJECT_QUERY_PER_ROW"] == "1"
    return settings
  }

  /// Whether the command stops after parsing and checking its options, before any work: the
  /// tests fuzz every option's parsing and checks by the thousand.
  static func validatesOnly(_ environment: [String: String]) -> Bool {
    environment["FETCHBENCH_VALIDATE_ONLY"] == "1"
  }
}
