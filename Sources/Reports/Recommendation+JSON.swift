import Catalog
import Foundation
import ResultModel
import Vocabulary

/// The recommendation as data: `recommendation.json` in a run's folder and `run --recommend
/// --json`, one object per list (dataset, rows, store), beside the sentence the report gives.
extension Recommendation: Encodable {
  package enum CodingKeys: String, CodingKey {
    case dataset, rows
    case listRows = "list_rows"
    case store, strategy
    case batchSize = "batch_size"
    case index, reasons, text, figures
  }

  package func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(dataset.rawValue, forKey: .dataset)
    try c.encode(rows, forKey: .rows)
    try c.encode(listRows, forKey: .listRows)
    try c.encode(store.rawValue, forKey: .store)
    try c.encode(mode.rawValue, forKey: .strategy)
    // A full fetch reads every row at once: no batch size applies.
    try c.encode(mode == .full ? nil : batchSize, forKey: .batchSize)
    try c.encode(index.displayName(in: dataset), forKey: .index)
    try c.encode(reasons, forKey: .reasons)
    try c.encode(text, forKey: .text)
    try c.encode(figures, forKey: .figures)
  }

  /// The recommendations as pretty JSON, keys sorted, so two runs' files compare line by line.
  package static func json(_ picks: [Recommendation]) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(picks)
  }
}
