import Catalog
import TextFormatting
import Vocabulary

/// What is wrong with a gate's matrix file (`check --matrix FILE`), each with its fix.
package indirect enum MatrixError: CodedError, Equatable {
  case noSuchFile(path: String)
  /// A key the matrix or a list does not know (`StrictKeys`), as the decoder words it.
  case unknownKey(path: String, detail: String)
  case notAMatrix(path: String, detail: String)
  /// An error of the matrix read from `path`.
  case inFile(path: String, MatrixError)
  /// An error of the list at `position` (from 1), shown by `name`.
  case inList(position: Int, name: String, MatrixError)
  case noLists
  case batchSizeOutOfRange(Int)
  case repetitionsOutOfRange(Int)
  case duplicateName(String)
  case badName(String)
  case noSource
  case severalSources
  case unknownDataset(String)
  case entityWithDataset
  case noEntity(source: String)
  case modelOptionsWithoutModel
  case relationshipsWithModel
  case rowsOutOfRange(Int)
  case rowsWithDatabase
  case changesOnDatabase
  case changesNotOnBanks
  case noStores
  case strategiesNotAgainstFull

  package var code: String {
    switch self {
    case .noSuchFile: "matrix.no-such-file"
    case .unknownKey: "matrix.unknown-key"
    case .notAMatrix: "matrix.not-a-matrix"
    case .inFile(_, let error), .inList(_, _, let error): error.code
    case .noLists: "matrix.no-lists"
    case .batchSizeOutOfRange: "matrix.batch-size-out-of-range"
    case .repetitionsOutOfRange: "matrix.repetitions-out-of-range"
    case .duplicateName: "matrix.duplicate-name"
    case .badName: "matrix.list.bad-name"
    case .noSource: "matrix.list.no-source"
    case .severalSources: "matrix.list.several-sources"
    case .unknownDataset: "matrix.list.unknown-dataset"
    case .entityWithDataset: "matrix.list.entity-with-dataset"
    case .noEntity: "matrix.list.no-entity"
    case .modelOptionsWithoutModel: "matrix.list.model-options-without-model"
    case .relationshipsWithModel: "matrix.list.relationships-with-model"
    case .rowsOutOfRange: "matrix.list.rows-out-of-range"
    case .rowsWithDatabase: "matrix.list.rows-with-database"
    case .changesOnDatabase: "matrix.list.changes-on-database"
    case .changesNotOnBanks: "matrix.list.changes-not-on-banks"
    case .noStores: "matrix.list.no-stores"
    case .strategiesNotAgainstFull: "matrix.list.strategies-not-against-full"
    }
  }

  /// `1 to 100,000`: a range as the matrix's sentences state it. O(1).
  static func span(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound.grouped) to \(range.upperBound.grouped)" }

  package var description: String {
    switch self {
    case .noSuchFile(let path): "\(path): no such matrix file; write one as docs/ci/matrix.json shows"
    case .unknownKey(let path, let detail): "\(path): \(detail)"
    case .notAMatrix(let path, let detail): "\(path) is not a matrix of lists: \(detail)"
    case .inFile(let path, let error): "\(path): \(error)"
    case .inList(let position, let name, let error): "list \(position) (\(name)): \(error)"
    case .noLists: "\"lists\" is empty; name at least one list"
    case .batchSizeOutOfRange(let size): "\"batchSize\" must be \(Self.span(OptionRange.batchSize)), got \(size)"
    case .repetitionsOutOfRange(let n):
      "\"repetitions\" must be \(Self.span(OptionRange.checkRepetitions)) (the spread needs quartiles), got \(n)"
    case .duplicateName(let name):
      "two lists are named '\(name)'; give each a \"name\" (the first part of its figures' names)"
    case .badName(let name): "\"name\" '\(name)' must be non-empty and without '/' (it begins each figure's name)"
    case .noSource:
      "give \"dataset\" (banks or wells), \"db\" (your database) or \"model\" (your Core Data model), and \"entity\""
    case .severalSources: "give one of \"dataset\", \"db\" and \"model\""
    case .unknownDataset(let name):
      """
      unknown dataset '\(name)'; expected \(DatasetKind.allCases.map(\.rawValue).joined(separator: " or ")), or \
      \"db\" for your own
      """
    case .entityWithDataset: "\"entity\" and \"relationships\" go with \"db\" or \"model\""
    case .noEntity(let source): "\"\(source)\" needs \"entity\": the table or Core Data entity to list"
    case .modelOptionsWithoutModel: "\"modelVersion\" and \"population\" go with \"model\""
    case .relationshipsWithModel: "\"relationships\" go with \"db\"; a model declares its own"
    case .rowsOutOfRange(let rows): "\"rows\" must be \(Self.span(OptionRange.generatedListRows)), got \(rows)"
    case .rowsWithDatabase: "\"rows\" is for a generated dataset; a database's list has its table's rows"
    case .changesOnDatabase:
      """
      \"changes\" needs a generated banks list: the change workload writes rows, and a database of yours is never \
      written
      """
    case .changesNotOnBanks: "\"changes\" is measured on banks: its workload writes banks' rows"
    case .noStores: "\"stores\" names none"
    case .strategiesNotAgainstFull:
      "\"strategies\" names those measured against a full fetch: batched, offset or keyset"
    }
  }

  package static var examples: [MatrixError] {
    [
      .noSuchFile(path: "ci.json"), .unknownKey(path: "ci.json", detail: "list 1 has no key 'sotr'"),
      .notAMatrix(path: "ci.json", detail: "line 1: unexpected end"), .inFile(path: "ci.json", .noLists),
      .inList(position: 2, name: "banks", .noStores), .batchSizeOutOfRange(0), .repetitionsOutOfRange(2),
      .duplicateName("banks"), .badName("a/b"), .noSource, .severalSources, .unknownDataset("bank"),
      .entityWithDataset, .noEntity(source: "db"), .modelOptionsWithoutModel, .relationshipsWithModel,
      .rowsOutOfRange(10), .rowsWithDatabase, .changesOnDatabase, .changesNotOnBanks, .noStores,
      .strategiesNotAgainstFull,
    ]
  }
}
