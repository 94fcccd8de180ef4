import Catalog
import DatasetStores
import Foundation
import ResultModel
import Vocabulary

/// The gate's matrix as data (`check --matrix FILE`): the lists a team guards in CI, each a
/// generated dataset or a database of its own, with the sort, section and predicate its
/// screen uses. The project's own matrix is `results/baselines/ci-matrix.json`.
package struct GateLists: Sendable, Codable, Equatable {
  package var lists: [GateList]
  /// The batch size, and the page size of offset and keyset (default 20).
  package var batchSize: Int?
  /// Interleaved repetitions per figure (default 15).
  package var repetitions: Int?

  package init(lists: [GateList], batchSize: Int? = nil, repetitions: Int? = nil) {
    (self.lists, self.batchSize, self.repetitions) = (lists, batchSize, repetitions)
  }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case lists, batchSize, repetitions
  }

  package init(from decoder: any Decoder) throws {
    try StrictKeys.check(decoder, CodingKeys.allCases.map(\.rawValue), in: "the matrix")
    let c = try decoder.container(keyedBy: CodingKeys.self)
    lists = try c.decode([GateList].self, forKey: .lists)
    batchSize = try c.decodeIfPresent(Int.self, forKey: .batchSize)
    repetitions = try c.decodeIfPresent(Int.self, forKey: .repetitions)
  }

  /// Reads a matrix file; an unreadable file or one that is not a matrix is an error naming
  /// the file and what is wrong. O(file).
  package static func read(_ path: String) throws -> GateLists {
    guard let data = try GateRun.contents(of: path, as: "matrix file") else {
      throw MatrixError.noSuchFile(path: path)
    }
    let lists: GateLists
    do {
      lists = try JSONDecoder().decode(GateLists.self, from: data)
    } catch let error as StrictKeys.Unknown {
      throw MatrixError.unknownKey(path: path, detail: error.description)
    } catch {
      throw MatrixError.notAMatrix(path: path, detail: GateRun.describe(error, data: data))
    }
    do {
      try lists.validate()
    } catch {
      throw MatrixError.inFile(path: path, error)
    }
    return lists
  }

  /// The rules no decoder checks: at least one list, names unique and usable in a figure's
  /// name, sizes in range. O(lists).
  func validate() throws(MatrixError) {
    guard !lists.isEmpty else { throw MatrixError.noLists }
    if let batchSize, !OptionRange.batchSize.contains(batchSize) { throw MatrixError.batchSizeOutOfRange(batchSize) }
    if let repetitions, !OptionRange.checkRepetitions.contains(repetitions) {
      throw MatrixError.repetitionsOutOfRange(repetitions)
    }
    var names: Set<String> = []
    for (i, list) in lists.enumerated() {
      do {
        try list.validate()
      } catch {
        throw .inList(position: i + 1, name: list.displayName, error)
      }
      guard names.insert(list.figureName).inserted else { throw MatrixError.duplicateName(list.figureName) }
    }
  }
}

/// One list of a gate's matrix.
package struct GateList: Sendable, Codable, Equatable {
  /// The first part of the list's figures' names (`banks/sqlite/first_screen/batched/queries`);
  /// default the dataset's name, or the entity's.
  package var name: String?
  /// A generated dataset: `banks` or `wells`.
  package var dataset: String?
  /// The generated dataset's or model store's rows (default 50,000); a database's list has its
  /// table's.
  package var rows: Int?
  /// A database of the user's own, as `--db` takes it: a SQLite file or a `postgres://` URL.
  package var db: String?
  /// An app's Core Data model, as `--model` takes it: the list's store is generated from it
  /// (`entity` at `rows` rows) into the datasets folder unless one of the same inputs is there.
  package var model: String?
  /// With `model`: the `.xcdatamodeld`'s version (`--model-version`) and a population file.
  package var modelVersion: String?
  package var population: String?
  /// With `db` or `model`: the table or Core Data entity listed.
  package var entity: String?
  /// With `db`: to-one relationships the column names do not say, column → entity.
  package var relationships: [String: String]?
  /// As `fetch --sort`, `--section` and `--where` take them; each replaces the list's own.
  package var sort: String?
  package var section: String?
  package var `where`: String?
  /// The strategies measured against a full fetch, each as a time ratio of interleaved
  /// repetitions (default batched).
  package var strategies: [FetchMode]?
  /// Default memory and SQLite; memory and PostgreSQL for a database on a server.
  package var stores: [StoreKind]?
  /// Also gate keeping the list in sync: seeded transactions of 100 changed banks, the change
  /// sets' sizes exact. Generated banks only: FetchBench never writes a database of yours.
  package var changes: Bool?

  package init(dataset: DatasetKind, rows: Int? = nil, stores: [StoreKind]? = nil, changes: Bool? = nil) {
    (self.dataset, self.rows, self.stores, self.changes) = (dataset.rawValue, rows, stores, changes)
  }

  package init(db: String, entity: String, stores: [StoreKind]? = nil) {
    (self.db, self.entity, self.stores) = (db, entity, stores)
  }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case name, dataset, rows, db, model, modelVersion, population, entity, relationships, sort, section, `where`
    case strategies, stores, changes
  }

  package init(from decoder: any Decoder) throws {
    try StrictKeys.check(
      decoder, CodingKeys.allCases.map(\.rawValue), in: "list \((decoder.codingPath.last?.intValue ?? 0) + 1)")
    let c = try decoder.container(keyedBy: CodingKeys.self)
    name = try c.decodeIfPresent(String.self, forKey: .name)
    dataset = try c.decodeIfPresent(String.self, forKey: .dataset)
    rows = try c.decodeIfPresent(Int.self, forKey: .rows)
    db = try c.decodeIfPresent(String.self, forKey: .db)
    model = try c.decodeIfPresent(String.self, forKey: .model)
    modelVersion = try c.decodeIfPresent(String.self, forKey: .modelVersion)
    population = try c.decodeIfPresent(String.self, forKey: .population)
    entity = try c.decodeIfPresent(String.self, forKey: .entity)
    relationships = try c.decodeIfPresent([String: String].self, forKey: .relationships)
    sort = try c.decodeIfPresent(String.self, forKey: .sort)
    section = try c.decodeIfPresent(String.self, forKey: .section)
    `where` = try c.decodeIfPresent(String.self, forKey: .where)
    strategies = try c.decodeIfPresent([String].self, forKey: .strategies).map { try $0.map(Self.named("strategy")) }
    stores = try c.decodeIfPresent([String].self, forKey: .stores).map { try $0.map(Self.named("store")) }
    changes = try c.decodeIfPresent(Bool.self, forKey: .changes)
  }

  /// A strategy or store by its name, or an error naming the ones there are.
  static func named<T: RawRepresentable & CaseIterable>(_ what: String) -> (String) throws -> T
  where T.RawValue == String {
    { text in
      guard let value = T(rawValue: text) else {
        let known = T.allCases.map(\.rawValue).filter { $0 != FetchMode.full.rawValue }
        throw StrictKeys.Unknown(
          key: text, place: "\"\(what == "store" ? "stores" : "strategies")\"", known: known, what: what)
      }
      return value
    }
  }

  /// The first part of the list's figures' names.
  package var figureName: String { name ?? dataset ?? entity ?? "list" }

  var displayName: String { name ?? dataset ?? [db ?? model, entity].compactMap { $0 }.joined(separator: " ") }

  /// The user's sort, section and predicate; nil when the list is the dataset's own.
  package var request: ListSpec.Text? {
    sort == nil && section == nil && `where` == nil
      ? nil : ListSpec.Text(sort: sort, section: section, predicate: `where`)
  }

  package var measuredStores: [StoreKind] {
    stores ?? [.memory, db.map(UserDatabase.isServerURL) == true ? .postgres : .sqlite]
  }
  package var measuredStrategies: [FetchMode] { strategies ?? [.batched] }

  /// What makes a list measurable, before anything is opened. O(1).
  func validate() throws(MatrixError) {
    if let name, name.isEmpty || name.contains("/") { throw .badName(name) }
    switch [dataset, db, model].compactMap({ $0 }).count {
    case 0: throw .noSource
    case 1: break
    default: throw .severalSources
    }
    if let d = dataset {
      guard DatasetKind.allCases.map(\.rawValue).contains(d) else { throw .unknownDataset(d) }
      if entity != nil || relationships != nil { throw .entityWithDataset }
    } else if entity == nil {
      throw .noEntity(source: db != nil ? "db" : "model")
    }
    if model == nil && (modelVersion != nil || population != nil) { throw .modelOptionsWithoutModel }
    if model != nil && relationships != nil { throw .relationshipsWithModel }
    if let rows, dataset != nil || model != nil, !OptionRange.generatedListRows.contains(rows) {
      throw .rowsOutOfRange(rows)
    }
    if db != nil {
      if rows != nil { throw .rowsWithDatabase }
      if changes == true { throw .changesOnDatabase }
    }
    if changes == true && dataset != DatasetKind.banks.rawValue { throw .changesNotOnBanks }
    if measuredStores.isEmpty { throw .noStores }
    if measuredStrategies.isEmpty || measuredStrategies.contains(.full) { throw .strategiesNotAgainstFull }
  }
}

/// Rejects a JSON object's keys that a type does not know: a misspelt `"sotr"` would
/// otherwise be ignored and the gate would measure another list than the one written.
enum StrictKeys {
  struct Unknown: Error, CustomStringConvertible {
    var key: String
    var place: String
    var known: [String]
    var what = "key"
    var description: String { "unknown \(what) \"\(key)\" in \(place); expected \(known.joined(separator: ", "))" }
  }

  struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// O(keys).
  static func check(_ decoder: any Decoder, _ known: [String], in place: String) throws {
    let c = try decoder.container(keyedBy: AnyKey.self)
    if let unknown = c.allKeys.first(where: { !known.contains($0.stringValue) }) {
      throw Unknown(key: unknown.stringValue, place: place, known: known)
    }
  }
}
