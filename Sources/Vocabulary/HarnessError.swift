/// Errors of putting datasets into stores, each naming the problem and the fix.
public enum HarnessError: CodedError, Equatable {
  case missingDataset(String, hint: String)
  /// A table of the user's own where FetchBench would load a dataset.
  case foreignTable(String)
  /// An index tag (`--index`) whose columns no table of the dataset has.
  case unknownIndex(kind: String, tag: String)

  public var code: String {
    switch self {
    case .missingDataset: "dataset.missing"
    case .foreignTable: "dataset.foreign-table"
    case .unknownIndex: "dataset.unknown-index"
    }
  }

  public var description: String {
    switch self {
    case .missingDataset(let p, let hint): "\(p): no such dataset; make it with: \(hint)"
    case .foreignTable(let m): m
    case .unknownIndex(let kind, let tag): "no \(kind) table has the columns \(tag)"
    }
  }

  public static let examples: [Self] = [
    .missingDataset("datasets/banks-2000.sqlite", hint: "fetchbench generate --dataset banks --rows 2000"),
    .foreignTable("banks is a table of your own in the database; FetchBench loads only into tables it made"),
    .unknownIndex(kind: "banks", tag: "banks(nme)"),
  ]
}
