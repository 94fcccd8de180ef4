/// Errors of the harness and of putting datasets into stores, each naming the problem and,
/// where there is one, the fix.
public enum HarnessError: Error, CustomStringConvertible {
  case missingDataset(String, hint: String)
  case invalidArgument(String)
  /// A table of the user's own where FetchBench would load a dataset.
  case foreignTable(String)

  public var description: String {
    switch self {
    case .missingDataset(let p, let hint): "\(p): no such dataset; make it with: \(hint)"
    case .invalidArgument(let m): m
    case .foreignTable(let m): m
    }
  }
}
