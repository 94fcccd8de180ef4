import Catalog

/// One size of one dataset, what a run measures and labels with the file's checksum:
/// `banks-50000` in words and in a baseline's keys.
public struct DatasetSize: Hashable, Sendable, CustomStringConvertible {
  public var kind: DatasetKind
  public var rows: Int

  public init(_ kind: DatasetKind, rows: Int) {
    (self.kind, self.rows) = (kind, rows)
  }

  public var description: String { "\(kind.rawValue)-\(rows)" }
}
