/// The batch update a table view applies after one save, in UIKit's terms
/// (`performBatchUpdates`): deletes and reloads name **old** index paths, inserts **new**
/// ones, a move names its old and its new path; section deletes use old section indexes,
/// section inserts new ones. Rows inside an inserted or deleted section are not listed
/// separately.
///
/// A move whose row's content also changed is marked (`contentChanged`): applying the move
/// alone would leave the cell stale, the seeds' move + update problem. Reload those rows at
/// their new paths after the batch (`reloadsAfterBatch`), or use `asDeleteInsert()`.
public struct ChangeSet: Sendable, Equatable {
  /// One row operation and the object it concerns.
  public struct Row: Sendable, Equatable, Hashable {
    public var path: RowPath
    public var id: Int64
    public init(_ path: RowPath, id: Int64) {
      self.path = path
      self.id = id
    }
  }

  public struct Move: Sendable, Equatable, Hashable {
    public var from: RowPath
    public var to: RowPath
    public var id: Int64
    /// The row's displayed values changed too: reload it after the batch.
    public var contentChanged: Bool
    public init(from: RowPath, to: RowPath, id: Int64, contentChanged: Bool) {
      self.from = from
      self.to = to
      self.id = id
      self.contentChanged = contentChanged
    }
  }

  /// The store transactions this change set covers (more than one when coalesced).
  public var transactions: ClosedRange<Int>?
  /// A section that appears, with its rows (which are not inserted separately).
  public struct SectionInsert: Sendable, Equatable, Hashable {
    public var index: Int
    public var name: String
    public var ids: [Int64]
    public init(index: Int, name: String, ids: [Int64]) {
      self.index = index
      self.name = name
      self.ids = ids
    }
  }

  /// Rows per section before and after: what the data source reports on each side.
  public var oldSectionCounts: [Int] = []
  public var newSectionCounts: [Int] = []
  /// Old section indexes.
  public var sectionDeletes: [Int] = []
  public var sectionInserts: [SectionInsert] = []
  public var deletes: [Row] = []
  public var inserts: [Row] = []
  public var moves: [Move] = []
  public var reloads: [Row] = []

  public init() {}

  /// Nothing for the table view to do.
  public var isEmpty: Bool {
    sectionDeletes.isEmpty && sectionInserts.isEmpty && deletes.isEmpty && inserts.isEmpty && moves.isEmpty
      && reloads.isEmpty
  }

  /// Operations in all: what a consumer's animation has to show.
  public var size: Int {
    sectionDeletes.count + sectionInserts.count + deletes.count + inserts.count + moves.count + reloads.count
  }

  /// Rows that change place relative to the others: moves, plus moves written as a delete
  /// and an insert of the same object (when their paths coincide). O(size).
  public var relocations: Int {
    moves.count + Set(deletes.map(\.id)).intersection(inserts.map(\.id)).count
  }

  /// New paths of moved rows whose content changed: reload them once the batch is applied.
  public var reloadsAfterBatch: [RowPath] { moves.filter(\.contentChanged).map(\.to) }

  /// The other correct form of a move + update: every move becomes a delete at its old path
  /// and an insert at its new one, so the cell is configured afresh. O(size log size).
  public func asDeleteInsert() -> ChangeSet {
    var c = self
    c.deletes += moves.map { Row($0.from, id: $0.id) }
    c.inserts += moves.map { Row($0.to, id: $0.id) }
    c.moves = []
    c.deletes.sort { $0.path < $1.path }
    c.inserts.sort { $0.path < $1.path }
    return c
  }

  /// Puts every list in a canonical order (paths ascending), so equal updates compare equal.
  mutating func normalize() {
    sectionDeletes.sort()
    sectionInserts.sort { $0.index < $1.index }
    deletes.sort { $0.path < $1.path }
    inserts.sort { $0.path < $1.path }
    reloads.sort { $0.path < $1.path }
    moves.sort { ($0.to, $0.from) < ($1.to, $1.from) }
  }

  /// The iOS 13 form without sections: a `CollectionDifference` of IDs over the single
  /// section's rows; moves are removal/insertion pairs associated with each other. Nil when
  /// the change set has sections other than one.
  public func collectionDifference() -> CollectionDifference<Int64>? {
    guard oldSectionCounts.count <= 1, newSectionCounts.count <= 1, sectionDeletes.isEmpty, sectionInserts.isEmpty
    else { return nil }
    var changes: [CollectionDifference<Int64>.Change] = []
    for d in deletes { changes.append(.remove(offset: d.path.row, element: d.id, associatedWith: nil)) }
    for i in inserts { changes.append(.insert(offset: i.path.row, element: i.id, associatedWith: nil)) }
    for m in moves {
      changes.append(.remove(offset: m.from.row, element: m.id, associatedWith: m.to.row))
      changes.append(.insert(offset: m.to.row, element: m.id, associatedWith: m.from.row))
    }
    return CollectionDifference(changes)
  }
}

/// The rows of a list as a table view's data source sees them: sections in order, each with
/// its name and ordered IDs. The iOS 13 snapshot form, with the IDs to reload.
public struct ListSnapshot: Sendable, Equatable {
  public struct Section: Sendable, Equatable {
    public var name: String
    public var ids: [Int64]
    public init(name: String, ids: [Int64]) {
      self.name = name
      self.ids = ids
    }
  }

  public var sections: [Section]
  /// Objects whose content changed in the last update (iOS 15 marks them as reloaded).
  public var reloaded: [Int64]

  public init(sections: [Section], reloaded: [Int64] = []) {
    self.sections = sections
    self.reloaded = reloaded
  }

  /// Every ID, section after section. O(n).
  public var allIDs: [Int64] { sections.flatMap(\.ids) }
  public var count: Int { sections.reduce(0) { $0 + $1.ids.count } }
  public var sectionCounts: [Int] { sections.map(\.ids.count) }

  /// The same rows and sections, ignoring `reloaded`.
  public func sameRows(as other: ListSnapshot) -> Bool { sections == other.sections }
}
