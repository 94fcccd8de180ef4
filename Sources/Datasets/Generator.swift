import Catalog
import FetchedResults

/// A value of one dataset field.
public enum FieldValue: Sendable, Equatable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
}

/// Produces the rows of one dataset: row `id` of a table is a pure function of
/// (seed, table, id, row count), so rows stream in any order with no state kept.
///
/// Distributions should be skewed on purpose: sections unequal and sort keys tied, as in the
/// data that apps really show.
public protocol RowGenerator: Sendable {
  /// Replaces the contents of `row` with the fields of row `id` (1-based) of table `table` (an
  /// index into the definition's `tables`), in column order. O(columns).
  func fill(table: Int, id: Int, into row: inout [FieldValue])
}

/// A dataset FetchBench writes itself: its definition and its rows' generator. A new generated
/// dataset is one conformer, registered with `DatasetKind.register(_:)`.
public protocol GeneratableDataset: DatasetDefinition {
  /// The generator of a dataset of `rows` rows per table from `seed`. O(1).
  func generator(rows: Int, seed: UInt64) -> any RowGenerator
}

/// The rows of one generated dataset of a given kind, row count and seed.
public struct DatasetGenerator: Sendable {
  public let kind: DatasetKind
  public let rows: Int
  public let seed: UInt64
  private let source: any RowGenerator

  /// Fails with `DatasetError.notGenerated` for a kind FetchBench reads but does not write (a
  /// user's own database). O(1).
  public init(kind: DatasetKind, rows: Int, seed: UInt64) throws {
    precondition(rows >= 1)
    guard let generated = kind.definition as? any GeneratableDataset else {
      throw DatasetError.notGenerated(kind.rawValue)
    }
    self.kind = kind
    self.rows = rows
    self.seed = seed
    source = generated.generator(rows: rows, seed: seed)
  }

  /// Fills `row` with the fields of row `id` (1-based) of table `table` (an index into
  /// `kind.tables`). O(columns).
  public func fill(table: Int, id: Int, into row: inout [FieldValue]) {
    row.removeAll(keepingCapacity: true)
    source.fill(table: table, id: id, into: &row)
  }
}

/// Calendar ranges for generators, in days since 1970.
enum DayRange {
  /// Days since 1970 from one calendar date through another.
  static func days(_ y0: Int, _ m0: Int, _ d0: Int, through y1: Int, _ m1: Int, _ d1: Int) -> ClosedRange<Int> {
    CivilDate.days(year: y0, month: m0, day: d0)...CivilDate.days(year: y1, month: m1, day: d1)
  }
}
