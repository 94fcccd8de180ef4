import Synchronization

/// A dataset by name: one of the two FetchBench generates (`banks`, `wells`) or any other
/// registered definition (a test's dataset, a user's own database). A kind exists only once
/// its definition is registered, so `definition` never fails.
public struct DatasetKind: RawRepresentable, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
  /// The definition's `name`.
  public let rawValue: String

  /// The kind named `rawValue`, if a definition of that name is registered. O(1).
  public init?(rawValue: String) {
    guard Self.registry.withLock({ $0[rawValue] }) != nil else { return nil }
    self.rawValue = rawValue
  }

  private init(registered name: String) { rawValue = name }

  /// The Core Data tutorial's FailedBankInfo → FailedBankDetails, one-to-one.
  public static let banks = DatasetKind(registered: BanksDataset().name)
  /// Oil and gas wells, the RubyMotion tutorial's 244,292 rows.
  public static let wells = DatasetKind(registered: WellsDataset().name)

  /// The datasets FetchBench generates, which `all` names on the command line.
  public static var allCases: [DatasetKind] { [.banks, .wells] }

  /// Registers `definition` under its name, replacing any registered one of that name except the
  /// built-in two, and returns its kind. O(1).
  @discardableResult
  public static func register(_ definition: any DatasetDefinition) -> DatasetKind {
    precondition(!allCases.map(\.rawValue).contains(definition.name), "\(definition.name) is built in")
    registry.withLock { $0[definition.name] = definition }
    return DatasetKind(registered: definition.name)
  }

  /// The dataset's definition. O(1).
  public var definition: any DatasetDefinition {
    guard let d = Self.registry.withLock({ $0[rawValue] }) else { preconditionFailure("\(rawValue) is not registered") }
    return d
  }

  /// The tables in the order they are written (a referenced table first).
  public var tables: [TableSchema] { definition.tables }

  public var description: String { rawValue }

  /// The name a reader knows the list by: a generated dataset's (`banks`), or the list's entity
  /// as the user's schema spells it (`Flight`, where `rawValue` is the file-safe `flight`). O(1).
  public var displayName: String {
    switch definition {
    case let d as DatabaseDataset: d.displayName
    case let d as RecordedDataset: d.displayName
    default: rawValue
    }
  }

  /// For a Core Data store, `index` as its model would declare it: from the model read from
  /// the store, or as the run's results recorded it. Nil for any other dataset. O(entities ×
  /// attributes).
  public func coreDataFetchIndex(_ index: IndexSpec) -> String? {
    switch definition {
    case let d as DatabaseDataset: d.coreDataFetchIndex(index)
    case let d as RecordedDataset: d.coreDataFetchIndexes[index.tag]
    default: nil
    }
  }

  /// The row count of the classic datasets.
  public static let defaultRows = 244_292
  /// The largest supported row count: generation memory is flat, but time and disk are not.
  public static let maxRows = 10_000_000

  private static let registry = Mutex<[String: any DatasetDefinition]>([
    BanksDataset().name: BanksDataset(), WellsDataset().name: WellsDataset(),
  ])
}
