import Catalog

/// What the names in a Core Data store say, read from the names alone: no store is opened.
public enum CoreDataNames {
  /// What a dataset's kind is named by over its Core Data file: `banks-coredata`.
  public static let kindSuffix = "-coredata"

  /// Whether `kind` is a generated dataset read from its file in Core Data's schema rather than
  /// a database of the user's. O(1).
  public static func isGeneratedFile(_ kind: DatasetKind) -> Bool { kind.rawValue.hasSuffix(kindSuffix) }

  /// Whether `name` is as Core Data names a fetch index's SQL index, `Z_<Entity>_<name>`
  /// (`Z_Item_byTitle`): unlike its own indexes (`ZITEM_ZFOLDER_INDEX`, `Z_1TAGS`), the
  /// entity's name keeps its case. O(name).
  public static func isFetchIndex(_ name: some StringProtocol) -> Bool {
    let parts = name.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
    return name.hasPrefix("Z_") && parts.count == 3 && parts[1].first?.isUppercase == true
      && parts[1].contains(where: \.isLowercase) && !parts[2].isEmpty
  }
}
