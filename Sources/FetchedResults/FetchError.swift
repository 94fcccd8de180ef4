/// Everything that can go wrong between a request and its results, each naming the problem.
public enum FetchError: Error, Equatable, CustomStringConvertible, Sendable {
  case unknownEntity(String, known: [String])
  case unknownKeyPath(String, entity: String, known: [String])
  case typeMismatch(keyPath: String, expected: AttributeType, literal: String)
  case sectionSortMismatch(section: String, firstSort: String?)
  case invalidRequest(String)
  case parse(ParseError)
  case store(String)
  /// A batch fault found a listed object deleted from the store by a transaction the
  /// controller has not applied yet (Core Data: "could not fulfill a fault").
  case objectDeleted(id: Int64)
  case notFetched
  case indexOutOfRange(section: Int, row: Int)

  public var description: String {
    switch self {
    case .unknownEntity(let n, let known):
      known.isEmpty
        ? "unknown entity '\(n)'; the model has no entity"
        : "unknown entity '\(n)'; the model has \(known.joined(separator: ", "))"
    case .unknownKeyPath(let k, let e, let known):
      known.isEmpty
        ? "'\(k)' is not a key path of \(e), which has none of that kind"
        : "'\(k)' is not a key path of \(e); known: \(known.joined(separator: ", "))"
    case .typeMismatch(let k, let t, let lit):
      """
      \(k) is of type \(t.rawValue); \(lit) is not \
      \(t.rawValue.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(t.rawValue) literal
      """
    case .sectionSortMismatch(let s, let f):
      "the section key path '\(s)' must be the key path of the first sort descriptor"
        + (f.map { " (it is '\($0)')" } ?? " (there is none)")
        + ", as NSFetchedResultsController requires"
    case .invalidRequest(let m): "invalid fetch request: \(m)"
    case .parse(let e): e.description
    case .store(let m): m
    case .objectDeleted(let id): "the object with id \(id) no longer exists in the store"
    case .notFetched: "performFetch() has not been called"
    case .indexOutOfRange(let s, let r): "no object at section \(s), row \(r)"
    }
  }
}

/// A syntax error in a predicate or sort text, pointing at the offending position.
public struct ParseError: Error, Equatable, CustomStringConvertible, Sendable {
  public var message: String
  public var input: String
  /// Offset in characters from the start of `input`.
  public var position: Int

  public var description: String {
    "\(message) at position \(position + 1):\n  \(input)\n  \(String(repeating: " ", count: position))^"
  }
}
