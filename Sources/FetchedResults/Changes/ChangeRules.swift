/// How a controller turns a committed transaction into a change set.
public enum ChangeRules: String, Sendable, Codable, CaseIterable {
  /// The fewest moves that reorder the rows (a longest increasing run of the touched rows
  /// stays), and changes to related objects followed: a bank whose `details.closeDate`
  /// changed moves. The list always equals a fresh fetch.
  case minimal
  /// NSFetchedResultsController's: a move for every changed object of the list's entity whose
  /// sort or section key changed, even when its place did not; an update otherwise. Changes
  /// to *related* objects are not observed, so rows sorted or filtered through a
  /// relationship stay where they were (stale until the next fetch), and so do their
  /// prefetched values.
  case coreData = "coredata"
}
