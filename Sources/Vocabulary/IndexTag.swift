import Catalog

/// Which index a figure was measured with, beyond the list's own: none, or the one a tag names
/// (`info_id+close_date`, resolved against its dataset by `IndexSpec(tag:in:)`). results.csv's
/// `index` column writes none as `none`.
public enum IndexTag: Hashable, Sendable, Codable, CustomStringConvertible {
  case none
  case on(String)

  /// The column's text: `none`, or the tag. O(1).
  public var csv: String { tag ?? "none" }
  /// The tag; nil for none. O(1).
  public var tag: String? {
    if case .on(let tag) = self { tag } else { nil }
  }
  public var description: String { csv }

  /// The column's text read back: `none` (or nothing) is none. O(1).
  public init(csv: String) {
    self = csv == "none" || csv.isEmpty ? .none : .on(csv)
  }

  /// `tag`, or none for nil. O(1).
  public init(_ tag: String?) {
    self = tag.map { .on($0) } ?? .none
  }

  public init(from decoder: any Decoder) throws {
    self.init(csv: try decoder.singleValueContainer().decode(String.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(csv)
  }
}

extension IndexTag {
  /// The index the tag names among `kind`'s (its recorded candidates, for a list known by its
  /// results alone); nil for none or an unknown tag. O(candidates).
  public func spec(in kind: DatasetKind) -> IndexSpec? {
    tag.flatMap { IndexSpec(tag: $0, in: kind) }
  }

  /// The index as a reader is told it: its table and columns where `kind` resolves the tag,
  /// else the tag; nil for none. O(candidates).
  public func displayName(in kind: DatasetKind) -> String? {
    tag.map { spec(in: kind)?.description ?? $0 }
  }
}
