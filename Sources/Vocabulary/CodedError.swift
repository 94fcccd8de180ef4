/// An error of FetchBench's own: a stable code that says which problem it is, and the one
/// sentence, written once beside it, that names the problem and the fix (the command line
/// prints it after `Error:`). Callers and tests match the code, never the sentence's words.
public protocol CodedError: Error, CustomStringConvertible {
  /// Which problem: `matrix.list.unknown-dataset`. Stable: results, scripts and tests name it.
  var code: String { get }
  /// One error of every code, with sample context: the test that lists every code with its
  /// sentence renders them.
  static var examples: [Self] { get }
}
