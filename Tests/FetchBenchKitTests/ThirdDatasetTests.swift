import Catalog
import DatasetStores
import Datasets
import FetchBenchKit
import FetchedResults
import GRDB
import Reports
import ResultModel
import TestSupport
import Testing
import Vocabulary

/// A dataset that exists only in this test: one table of notes in three folders, `edited`
/// tied every thousand rows and NULL in one row of ten. That it runs through the generator, a
/// fetch on each local store, a run case and the report, with nothing else added, shows that a
/// third kind is one conformer and its generator.
struct NotesDataset: GeneratableDataset {
  var name: String { "notes" }
  var tables: [TableSchema] {
    [
      TableSchema(
        name: "notes",
        columns: [
          ColumnSchema("id", .integer), ColumnSchema("title", .text), ColumnSchema("folder", .text),
          ColumnSchema("edited", .date, nullable: true),
        ])
    ]
  }
  var model: Model {
    Model(entities: [
      Entity(
        name: "Note", table: "notes",
        attributes: [Attribute("title", .string), Attribute("folder", .string), Attribute("edited", .date, optional: true)])
    ])
  }
  var listEntity: String { "Note" }
  var sortDescription: String { "`edited` descending" }
  var sectionKeyPath: String { "folder" }

  func defaultRequest(batchSize: Int) -> FetchedResults.FetchRequest {
    FetchedResults.FetchRequest(
      entityName: listEntity, sortDescriptors: [FetchedResults.SortDescriptor("edited", ascending: false)], fetchBatchSize: batchSize)
  }

  func mapTyped(_ objects: [FetchedObject], codable: Bool) throws -> Int {
    objects.reduce(0) { sum, o in if case .string(let s) = o.values[0] { sum + s.utf8.count } else { sum } }
  }

  func generator(rows: Int, seed: UInt64) -> any RowGenerator { NoteRows() }
}

struct NoteRows: RowGenerator {
  static let folders = ["Inbox", "Inbox", "Inbox", "Work", "Work", "Home"]

  func fill(table: Int, id: Int, into row: inout [FieldValue]) {
    row.append(.integer(Int64(id)))
    row.append(.text("Note \(id)"))
    row.append(.text(Self.folders[id * 7 % Self.folders.count]))
    row.append(id % 10 == 0 ? .null : .real(Double(id * 7_919 % 1_000) * 86_400))
  }
}

@Suite(.serialized) struct ThirdDataset {
  static let kind = DatasetKind.register(NotesDataset())
  static let rows = 2_500

  @Test func isOneConformerThatRunsThroughFetchARunCaseAndTheReport() throws {
    let dir = TestSupport.temporaryFolder("notes")
    defer { TestSupport.remove(dir) }
    let made = try Generation.run(GenerationRequest(datasets: [Self.kind], rows: Self.rows, outDirectory: dir, writeCSV: false))
    let path = try #require(made.first?.sqlitePath)
    #expect(DatasetKind(rawValue: "notes") == Self.kind)

    let oracle = try DatabaseQueue(path: path).read { db in
      (
        list: try Int64.fetchAll(db, sql: "SELECT id FROM notes ORDER BY edited DESC, id"),
        sectioned: try Int64.fetchAll(db, sql: "SELECT id FROM notes ORDER BY folder, edited DESC, id"),
        folders: try String.fetchAll(db, sql: "SELECT folder FROM notes GROUP BY folder ORDER BY folder")
      )
    }
    #expect(oracle.list.count == Self.rows && oracle.folders == ["Home", "Inbox", "Work"])

    let location = DatasetLocation(kind: Self.kind, rows: Self.rows, directory: dir)
    for storeKind in [StoreKind.memory, .sqlite] {
      let store = try location.open(storeKind)
      for (request, expected) in [
        (NotesDataset().defaultRequest(batchSize: 20), oracle.list), (NotesDataset().sectionedRequest(batchSize: 20), oracle.sectioned),
      ] {
        let controller = FetchedResultsController(fetchRequest: request, store: store)
        try controller.performFetch()
        #expect(controller.fetchedIDs == expected, "\(storeKind) \(request.sectionNameKeyPath ?? "unsectioned")")
        let object = try controller.object(atGlobalIndex: Self.rows - 1)
        #expect(object.id == expected.last)
      }
    }

    let spec = CaseSpec(
      dataset: Self.kind, rows: Self.rows, seed: 1, datasetsDirectory: dir, store: .sqlite, work: .scenario(.firstScreenMapped, .batched),
      batchSize: 20, index: nil, repetitions: 2, warmups: 0)
    let result = try CaseExecutor.run(spec)
    #expect(result.error == nil)
    #expect(result.measurements.map(\.metric).contains(.time))
    let rows = result.measurements.map { m in
      ResultRow(
        runID: "r1", key: spec.key, metric: m.metric, summary: m.summary, status: .ok, error: "", machine: machine, datasetSHA256: "")
    }
    let report = Report(rows: rows).markdown()
    #expect(report.contains("## notes, 2,500 rows, sorted by `edited` descending"), "\(report)")
  }

  @Test func aKindThatIsNotRegisteredIsNotAKind() {
    #expect(DatasetKind(rawValue: "flights") == nil)
    #expect(DatasetKind.allCases == [.banks, .wells])
  }
}
