import Catalog
import FetchedResults
import Vocabulary

/// Which index to add for a list on a SQL store, measured: every candidate index of the list's
/// request and of its sectioned form (`IndexCandidate`) against none, timed alternately in one
/// process, so each ratio is taken per pair.
///
/// On SQLite each candidate is a dataset file of its own. On PostgreSQL the dataset is loaded
/// with every candidate, and a variant is entered by dropping the other candidates inside a
/// transaction that is rolled back after it (DDL is transactional there): the same table, the
/// same statistics, one index set at a time.
///
/// Per index variant (none included), in each repetition: the batched performFetch (the ID
/// query) and the sectioned one, ten batch faults spread over the list, the first page by
/// `LIMIT` (the first screen of offset and keyset paging), a keyset page from the middle, and
/// batched faulting's first screen (a new controller's performFetch and first batch); on
/// SQLite its scan limit once. Every variant
/// must return the unindexed IDs in the same order, or the case fails. The query plans
/// (`EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN`) ride along as text.
package enum IndexAdvice {
  /// What is advised, and the scenario column its rows carry.
  package enum Work: String, Sendable, CaseIterable {
    case performFetch = "perform_fetch"
    case sectioned
    case batchFault = "batch_fault"
    case firstPage = "first_page"
    case seekMiddle = "seek_middle"
    /// A new batched controller's performFetch and its first batch: the first screen of
    /// batched faulting, which the recommendation weighs with each index.
    case firstScreen = "first_screen"

    /// The fast operations, timed in microseconds.
    package var metric: Metric { [.performFetch, .sectioned, .firstScreen].contains(self) ? .time : .timeUs }
  }

  /// The batches faulted per repetition: one fault is tens of microseconds.
  package static let faults = 10

  /// The list's request and its sectioned form, batched; a user's list alone (it has its
  /// sections, or none).
  package static func requests(_ kind: DatasetKind, batchSize: Int, request: ListSpec? = nil) throws -> (
    list: FetchRequest, sectioned: FetchRequest?
  ) {
    let list = DatasetModels.defaultRequest(for: kind, batchSize: batchSize)
    if let request { return (try request.apply(to: list, of: kind), nil) }
    return (list, DatasetModels.sectionedRequest(for: kind, batchSize: batchSize))
  }

  /// What the advice says of the list's sort by a collation (`IndexCandidate.collatedSortNote`);
  /// nil when it sorts by bytes.
  package static func collatedSortNote(_ kind: DatasetKind, request: ListSpec? = nil) -> String? {
    let model = DatasetModels.model(for: kind)
    guard let list = try? requests(kind, batchSize: 20, request: request).list.resolve(in: model) else { return nil }
    return IndexCandidate.collatedSortNote(
      for: list, coreData: kind.definition.isCoreData)
  }

  /// The candidates of both requests, each index once: the files the parent generates.
  package static func candidates(_ kind: DatasetKind, request: ListSpec? = nil) throws -> [IndexCandidate] {
    let model = DatasetModels.model(for: kind)
    let (list, sectioned) = try requests(kind, batchSize: 20, request: request)
    var out = IndexCandidate.all(for: try list.resolve(in: model))
    for c in try sectioned.map({ IndexCandidate.all(for: try $0.resolve(in: model)) }) ?? []
    where !out.contains(where: { $0.index == c.index }) {
      out.append(c)
    }
    return out
  }
}
