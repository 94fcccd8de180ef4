import ArgumentParser
import Vocabulary

/// `--where` with what fills it: `--arg` per placeholder (`%@`, `%K`, `%d`, `%f`) in order, and
/// `--var NAME=VALUE` per `$NAME`, as an app's `NSPredicate(format:…)` and
/// `withSubstitutionVariables(_:)` fill them. One declaration for `fetch` and `run`.
struct PredicateOptions: ParsableArguments {
  @Option(
    name: .customLong("where"),
    help: ArgumentHelp(
      """
      Predicate in NSPredicate's format syntax, e.g. "state IN {'TX','CA'} AND details.closeDate > 2009-01-01" or \
      "state == %@ AND name BEGINSWITH $PREFIX" with --arg and --var; through a to-many relationship, \
      "ANY tags.name ==[c] 'work'" or "tags.@count > 2".
      """))
  var predicate: String?
  @Option(
    name: .customLong("arg"),
    help: ArgumentHelp(
      """
      A value for the predicate's next placeholder (%@, %K, %d, %f), in order; read as a literal when it is one \
      (12, 2009-01-01, '02139', {'TX','CA'}, nil), as text otherwise.
      """, valueName: "value"))
  var arguments: [String] = []
  @Option(
    name: .customLong("var"), help: ArgumentHelp("A value for the predicate's $NAME.", valueName: "NAME=value"))
  var variables: [String] = []

  /// `--var`'s values by name; usage errors for a malformed one, or for values without
  /// `--where`.
  func checked() throws -> [String: String] {
    if predicate == nil && !(arguments.isEmpty && variables.isEmpty) {
      throw ValidationError("--arg and --var fill the placeholders of --where: give --where too")
    }
    var out: [String: String] = [:]
    for v in variables {
      guard let eq = v.firstIndex(of: "="), !v[..<eq].isEmpty else {
        throw ValidationError("--var '\(v)' is not NAME=VALUE (e.g. PREFIX=First)")
      }
      let name = String(v[..<eq])
      guard out[name] == nil else {
        throw ValidationError("--var \(name) is given twice: give each variable one value")
      }
      out[name] = String(v[v.index(after: eq)...])
    }
    return out
  }

  /// The user's list as typed, with `--where`'s arguments and variables: what `ListSpec`
  /// parses.
  func request(sort: String?, section: String?, cells: [String]? = nil) throws -> ListSpec.Text {
    let variables = try checked()
    return ListSpec.Text(
      sort: sort, section: section, predicate: predicate, arguments: arguments.isEmpty ? nil : arguments,
      variables: variables.isEmpty ? nil : variables, cells: cells)
  }
}
