/// A section and a row in it, as UIKit's IndexPath.
public struct RowPath: Hashable, Sendable, Comparable, CustomStringConvertible {
  public var section: Int
  public var row: Int

  public init(row: Int, section: Int) {
    self.section = section
    self.row = row
  }

  public static func < (a: RowPath, b: RowPath) -> Bool { (a.section, a.row) < (b.section, b.row) }
  public var description: String { "[\(section), \(row)]" }
}

/// One section of the results (NSFetchedResultsSectionInfo).
public struct SectionInfo: Sendable, Equatable {
  /// The section key's value as text; "" for nil.
  public var name: String
  /// The first letter of the name, uppercased (Core Data's default index title).
  public var indexTitle: String?
  public var numberOfObjects: Int
  /// The section key's value.
  public var value: Value
  /// The index of the section's first row in the whole result.
  public var offset: Int

  /// Sections from grouped counts. O(sections).
  public static func from(_ counts: [SectionCount]) -> [SectionInfo] {
    var offset = 0
    return counts.map { c in
      defer { offset += c.count }
      let name = c.value.sectionName
      return SectionInfo(
        name: name, indexTitle: name.first.map { String($0).uppercased() },
        numberOfObjects: c.count, value: c.value, offset: offset)
    }
  }
}

extension Array where Element == SectionInfo {
  /// The row path of the `index`-th object overall. O(log sections).
  public func rowPath(forGlobalIndex index: Int) -> RowPath? {
    var lo = 0
    var hi = count - 1
    guard hi >= 0, index >= 0, index < self[hi].offset + self[hi].numberOfObjects else { return nil }
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if self[mid].offset <= index { lo = mid } else { hi = mid - 1 }
    }
    return RowPath(row: index - self[lo].offset, section: lo)
  }
}
