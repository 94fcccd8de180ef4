/// Invariant checks after every mutation of the controller and its structures, compiled in
/// when the package is built with `FETCHBENCH_INTERNAL_CHECKS=1` in the environment (as
/// swift-collections' `COLLECTIONS_INTERNAL_CHECKS`): `make test` builds so; benchmarks,
/// the gate and users' builds never do, and pay nothing. A violation stops the process with
/// the structure's own report, at the mutation that broke it.
public enum InternalChecks {
  #if FETCHBENCH_INTERNAL_CHECKS
    public static let enabled = true
  #else
    public static let enabled = false
  #endif

  /// Stops with `what`'s violations, if any. O(the checker) when enabled, nothing otherwise.
  @inline(__always) static func check(_ what: @autoclosure () -> String, _ violations: @autoclosure () -> [String]) {
    #if FETCHBENCH_INTERNAL_CHECKS
      let found = violations()
      precondition(found.isEmpty, "\(what()) invariants violated: \(found.prefix(5).joined(separator: "; "))")
    #endif
  }
}

extension FetchedResultsController {
  /// The controller's invariants: its list's and batch array's, and sections that partition
  /// the rows in order. O(n). Empty when sound.
  public func invariantViolations() -> [String] {
    var problems = (list?.invariantViolations() ?? []) + (batchArray?.invariantViolations() ?? [])
    var offset = 0
    for (i, s) in sections.enumerated() {
      if s.offset != offset { problems.append("section \(i) starts at \(s.offset), expected \(offset)") }
      offset += s.numberOfObjects
    }
    if let list, !sections.isEmpty, offset != list.count {
      problems.append("sections hold \(offset) rows, the list \(list.count)")
    }
    return problems
  }
}
