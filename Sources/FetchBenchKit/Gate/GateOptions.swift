import Catalog
import DatasetStores
import Foundation
import ResultModel
import Vocabulary

/// What `fetchbench check` runs and where it keeps its baseline.
package struct GateOptions: Sendable {
  /// The project's own matrix: banks and wells on each store, change tracking on banks.
  package static let projectMatrixPath = "results/baselines/ci-matrix.json"
  package static let projectBaselinePath = "results/baselines/ci.json"

  package var baselinePath = projectBaselinePath
  package var update = false
  /// The lists gated, and the file they were read from.
  package var matrix = GateLists(lists: [])
  package var matrixPath = projectMatrixPath
  /// In place of the matrix's batch size (default 20).
  package var batchSizeOverride: Int?
  /// In place of each generated list's rows.
  package var rowsOverride: Int?
  /// In place of the matrix's repetitions (default 15).
  package var repetitionsOverride: Int?
  /// Only these of each list's stores (`--store`); nil: all of them.
  package var stores: [StoreKind]?
  package var datasetsDirectory = "datasets"
  package var allowOtherMachine = false
  package var failOnImprovement = false
  /// Runs of the matrix `update` combines.
  package var updateRuns = 3
  package init() {}

  package var batchSize: Int { batchSizeOverride ?? matrix.batchSize ?? 20 }
  package var repetitions: Int { repetitionsOverride ?? matrix.repetitions ?? 15 }

  /// The baseline beside a matrix of the user's: `ci/lists.json` → `ci/lists.baseline.json`.
  package static func baselinePath(forMatrix path: String) -> String {
    ((path as NSString).deletingPathExtension) + ".baseline.json"
  }

  /// The matrix's lists as their cases measure them, with `--rows` and `--store` applied; a
  /// list left with no store is left out. Reads each database's schema. Throws a list's
  /// error naming the list, and when nothing is left to measure.
  package func resolvedLists() throws -> [GateList.Resolved] {
    var out: [GateList.Resolved] = []
    for list in matrix.lists {
      var l = list
      if let rowsOverride, l.dataset != nil || l.model != nil { l.rows = rowsOverride }
      if let stores { l.stores = l.measuredStores.filter(stores.contains) }
      guard !l.measuredStores.isEmpty else { continue }
      do {
        out.append(try l.resolved(datasets: datasetsDirectory))
      } catch {
        throw GateError.list(list.figureName, of: matrixPath, failed: error)
      }
    }
    guard !out.isEmpty else {
      throw GateError.noListOnStores(
        matrix: matrixPath, stores: stores?.map(\.rawValue).joined(separator: ", ") ?? "any store")
    }
    return out
  }

  /// The cases: change tracking first, before any PostgreSQL case has left the server busy,
  /// with three times the repetitions (each is a few milliseconds, and the median of more pairs
  /// rides out a burst of background work); then each list's fetches on each of its stores.
  /// O(lists × stores).
  package func cases(_ lists: [GateList.Resolved]) -> [CaseSpec] {
    func spec(_ list: GateList.Resolved, _ store: StoreKind, _ work: CaseWork.GateWork, repetitions: Int) -> CaseSpec {
      var spec = CaseSpec(
        dataset: list.kind, rows: list.rows, seed: 1, datasetsDirectory: datasetsDirectory, store: store,
        work: .gate(work),
        batchSize: batchSize, index: nil, repetitions: repetitions, warmups: 1)
      (spec.userList, spec.request) = (list.userList, list.request)
      spec.gate = GateCase(name: list.list.figureName, strategies: list.list.measuredStrategies)
      return spec
    }
    let changes = lists.filter { $0.list.changes == true }.flatMap { list in
      list.list.measuredStores.map { spec(list, $0, .diff, repetitions: repetitions * 3) }
    }
    let fetches = lists.flatMap { list in
      list.list.measuredStores.map { spec(list, $0, .fetch, repetitions: repetitions) }
    }
    return changes + fetches
  }
}

/// What a gate case measures of its list, beside the work.
package struct GateCase: Sendable, Codable, Equatable {
  /// The first part of the figures' names.
  package var name: String
  /// Measured against a full fetch.
  package var strategies: [FetchMode]
}

extension GateList {
  /// A list as its cases measure it.
  package struct Resolved: Sendable {
    /// As recorded in a baseline: the generated list's rows filled in.
    package var list: GateList
    package var kind: DatasetKind
    package var rows: Int
    package var userList: UserList?
    package var request: ListSpec?
    /// Its data's key among a baseline's checksums: `banks-50000`, or the database's path.
    package var checksumKey: String
  }

  /// The list's kind, rows and request: a dataset's from its name, a database's registered
  /// from its schema with the list's sort and section, a model's generated into `datasets`
  /// first. Throws the reader's, the parser's and the model's errors. O(schema) for a
  /// database, O(rows) to generate a model's store, O(1) otherwise.
  func resolved(datasets: String) throws -> Resolved {
    var list = self
    if let model, let entity {
      list.rows = rows ?? 50_000
      let store = ModelStore(
        model: model, version: modelVersion, population: population, entity: entity, rows: list.rows!)
      return try resolved(try store.generate(into: datasets).database(), entity: entity, as: list)
    }
    if let db, let entity {
      return try resolved(try UserDatabase.named(db, relationships: relationships ?? [:]), entity: entity, as: list)
    }
    guard let kind = DatasetKind.allCases.first(where: { $0.rawValue == dataset }) else {
      throw MatrixError.unknownDataset(dataset ?? "")
    }
    list.rows = rows ?? 50_000
    var parsed: ListSpec?
    if let request {
      do {
        parsed = try ListSpec(parsing: request)
        _ = try parsed?.apply(to: DatasetModels.defaultRequest(for: kind), of: kind)
      } catch {
        throw ListError.notOfTheModel(kind: kind.rawValue, detail: "\(error)")
      }
    }
    return Resolved(
      list: list, kind: kind, rows: list.rows!, request: parsed,
      checksumKey: DatasetSize(kind, rows: list.rows!).description)
  }

  /// A database's list, as the database's schema registers it.
  private func resolved(_ database: UserDatabase, entity: String, as list: GateList) throws -> Resolved {
    if try database.server != nil, measuredStores.contains(where: \.isSQLite) {
      throw UserDatabaseError.serverNotSQLite(database.path)
    }
    let r = try UserList.resolve(database, entity: entity, list: request ?? ListSpec.Text())
    return Resolved(
      list: list, kind: r.kind, rows: r.rows, userList: r.list, request: r.request, checksumKey: database.path)
  }

  /// The list without its stores: what a baseline must have recorded for its figures to be
  /// compared (`--store` may measure fewer stores than were recorded).
  package var recordedForm: GateList {
    var l = self
    l.stores = nil
    return l
  }

  /// The list as one line of JSON, sorted keys.
  var summary: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? figureName
  }
}
