import Catalog
import Foundation
import Vocabulary

/// The user's own database a run measured, as its `database_bytes` settings row records it
/// (the row's `detail`, JSON): enough to name the file in the report, and to read its model
/// again when the report is rendered anew.
package struct DatabaseSetting: Sendable, Codable, Equatable {
  package var list: UserList
  package var sha256: String
  /// How the rows were drawn, for a database `generate --like` wrote.
  package var synthetic: String?
  /// What the store was generated from, for one `generate --model` wrote.
  package var model: ModelOrigin?
  /// The indexes of the model's fetch indexes on the list's table, for a Core Data store
  /// (`DatabaseSchema.fetchIndexes(on:)`); nil for runs recorded before it was.
  package var fetchIndexes: [String]?
  /// The indexes the index advice tries on the list (`IndexAdvice.candidates`), so that a
  /// report names them without the database; nil for runs recorded before they were.
  package var indexCandidates: [IndexCandidate]?
  /// For a Core Data store, each candidate as its model would declare it, by tag.
  package var coreDataFetchIndexes: [String: String]?

  package init(
    list: UserList, sha256: String, synthetic: String? = nil, model: ModelOrigin? = nil, fetchIndexes: [String]? = nil,
    indexCandidates: [IndexCandidate]? = nil, coreDataFetchIndexes: [String: String]? = nil
  ) {
    self.list = list
    self.sha256 = sha256
    self.synthetic = synthetic
    self.model = model
    self.fetchIndexes = fetchIndexes
    self.indexCandidates = indexCandidates
    self.coreDataFetchIndexes = coreDataFetchIndexes
  }

  package var recorded: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
  }

  package init?(recorded: String) {
    guard let s = try? JSONDecoder().decode(Self.self, from: Data(recorded.utf8)) else { return nil }
    self = s
  }

  /// `path, entity Flight, SHA-256 …`, as the report names the file (a server's schema by
  /// the SHA-256 of its description: it has no file to hash).
  package var description: String {
    let hash = list.database.isOnServer ? "schema SHA-256" : "SHA-256"
    return "\(list.database.path), entity \(list.entity), \(hash) \(sha256)"
  }

  /// Names the kind of the list as the run did (`Message`, where results name it `message`),
  /// with the indexes its advice tried, when no definition read from the database stands
  /// behind it: a report is rendered from the results alone. O(candidates).
  package func nameRecordedKind() {
    _ = DatasetKind.recorded(
      list.kindName ?? DatabaseDataset.kindName(list.entity), listEntity: list.entity,
      indexes: indexCandidates?.map(\.index) ?? [], coreDataFetchIndexes: coreDataFetchIndexes ?? [:])
  }
}
