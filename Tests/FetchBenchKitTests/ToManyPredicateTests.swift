import Catalog
import DatasetStores
import FetchedResults
import Foundation
import GRDB
import SQLQueries
import SQLiteStore
import TestSupport
import Testing
import Vocabulary

/// NSPredicate's tests of a to-many relationship — ANY, SOME, ALL, NONE, @count and
/// SUBQUERY — over a Core Data store generated from a hand-made model: a one-to-many read
/// through its inverse's column (Folder.items ← ZITEM.ZFOLDER) and a many-to-many through its
/// join table from both sides (Item.tags, Tag.items). Each store's rows equal the test's own
/// evaluation over the raw tables.
@Suite struct ToManyPredicates {
  /// The store's rows as plain values, read with GRDB, and the relationships between them.
  struct Rows {
    var items: [Int64: (title: String?, folder: Int64?, entity: Int64)] = [:]
    var folders: [Int64: String] = [:]
    var tags: [Int64: String] = [:]
    /// (item, tag) pairs of the join table.
    var pairs: [(Int64, Int64)] = []

    func tags(of item: Int64) -> [String] { pairs.filter { $0.0 == item }.map { tags[$0.1]! } }
    func items(of tag: Int64) -> [Int64] { pairs.filter { $0.1 == tag }.map(\.0) }
    func items(inFolder folder: Int64) -> [Int64] { items.filter { $0.value.folder == folder }.map(\.key) }
  }

  /// The notes model's store of `rows` items, generated in `dir`, and the model its reader
  /// sees (to-many relationships included).
  static func notes(_ dir: String, rows: Int = 400) throws -> (path: String, model: Model) {
    let generated = try ModelStore(model: try ModelFiles.package(dir), entity: "Item", rows: rows).generate(into: dir)
    return (generated.path, try generated.database().register(entity: "Item").kind.definition.model)
  }

  /// The file at `path` as `kind` reads it: `memory` (loaded from it), `sqlite` (the tuned
  /// statements) or `coredata` (Core Data's statements).
  static func store(_ kind: String, _ path: String, _ model: Model, mode: SQLiteStore.OpenMode = .immutable) throws
    -> any Store
  {
    let sqlite = try SQLiteStore(path: path, model: model, mode: mode)
    if kind == "coredata" { sqlite.plan = .coreData }
    return kind == "memory" ? try MemoryStore.load(from: sqlite) : sqlite
  }

  static func read(_ path: String) throws -> (Rows, join: String) {
    let db = try DatabaseQueue(path: path)
    defer { try? db.close() }
    return try db.read { db in
      var rows = Rows()
      for r in try Row.fetchAll(db, sql: "SELECT Z_PK, ZTITLE, ZFOLDER, Z_ENT FROM ZITEM") {
        rows.items[r[0]] = (r[1], r[2], r[3])
      }
      for r in try Row.fetchAll(db, sql: "SELECT Z_PK, ZNAME FROM ZFOLDER") { rows.folders[r[0]] = r[1] }
      for r in try Row.fetchAll(db, sql: "SELECT Z_PK, ZNAME FROM ZTAG") { rows.tags[r[0]] = r[1] }
      let join = try #require(
        try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z\\_%TAGS' ESCAPE '\\'"))
      let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(join))").map { $0["name"] as String }
      // The column named after the items' side holds the item's key.
      let item = try #require(columns.first { $0.hasSuffix("ITEMS") })
      let tag = try #require(columns.first { $0.hasSuffix("TAGS") })
      rows.pairs = try Row.fetchAll(db, sql: "SELECT \(item), \(tag) FROM \(join)").map { ($0[0], $0[1]) }
      return (rows, join)
    }
  }

  /// Each list's predicate with the test's own answer: the entity, the text, the IDs.
  static func cases(_ r: Rows) -> [(entity: String, predicate: String, expected: Set<Int64>)] {
    func items(_ test: (Int64) -> Bool) -> Set<Int64> { Set(r.items.keys.filter(test)) }
    func hasA(_ s: String) -> Bool { s.lowercased().hasPrefix("a") }
    return [
      ("Item", "ANY tags.name BEGINSWITH[c] 'a'", items { r.tags(of: $0).contains(where: hasA) }),
      ("Item", "SOME tags.name CONTAINS 'e'", items { r.tags(of: $0).contains { $0.contains("e") } }),
      ("Item", "ALL tags.name CONTAINS 'e'", items { r.tags(of: $0).allSatisfy { $0.contains("e") } }),
      ("Item", "NONE tags.name CONTAINS 'e'", items { !r.tags(of: $0).contains { $0.contains("e") } }),
      ("Item", "tags.@count == 0", items { r.tags(of: $0).isEmpty }),
      ("Item", "tags.@count >= 2", items { r.tags(of: $0).count >= 2 }),
      (
        "Item", "SUBQUERY(tags, $t, $t.name CONTAINS 'e' OR $t.name BEGINSWITH 'M').@count == 1",
        items { r.tags(of: $0).filter { $0.contains("e") || $0.hasPrefix("M") }.count == 1 }
      ),
      (
        "Item", "NOT (ANY tags.name CONTAINS 'a') AND title != nil",
        items { !r.tags(of: $0).contains { $0.contains("a") } && r.items[$0]!.title != nil }
      ),
      ("Item", "tags.@count > 1 OR folder == nil", items { r.tags(of: $0).count > 1 || r.items[$0]!.folder == nil }),
      (
        "Folder", "ANY items.title CONTAINS 'Maple'",
        Set(
          r.folders.keys.filter { f in r.items(inFolder: f).contains { r.items[$0]!.title?.contains("Maple") == true } }
        )
      ),
      (
        "Folder", "ALL items.title != nil",
        Set(r.folders.keys.filter { f in r.items(inFolder: f).allSatisfy { r.items[$0]!.title != nil } })
      ),
      ("Folder", "items.@count > 8", Set(r.folders.keys.filter { r.items(inFolder: $0).count > 8 })),
      ("Tag", "items.@count >= 16", Set(r.tags.keys.filter { r.items(of: $0).count >= 16 })),
      (
        "Tag", "ANY items.folder == nil",
        Set(r.tags.keys.filter { t in r.items(of: t).contains { r.items[$0]!.folder == nil } })
      ),
    ]
  }

  @Test func everyStoreAnswersAsTheRawTablesSay() throws {
    let dir = TestSupport.temporaryFolder("to-many")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let generated = try ModelStore(model: root, entity: "Item", rows: 400).generate(into: dir)
    let (rows, join) = try Self.read(generated.path)
    #expect(rows.pairs.count > 100 && rows.folders.count > 5 && rows.tags.count > 5)
    let (kind, _) = try generated.database().register(entity: "Item")
    let model = kind.definition.model
    let item = try model.entity("Item")
    guard case .joinTable(let table)? = item.toManyRelationship("tags")?.link else {
      Issue.record("Item.tags is not read through its join table")
      return
    }
    #expect(table.table == join && table.sourceColumn.hasSuffix("ITEMS") && table.destinationColumn.hasSuffix("TAGS"))
    #expect(try model.entity("Folder").toManyRelationship("items")?.link == .foreignKey("ZFOLDER"))
    for c in Self.cases(rows) {
      #expect(!c.expected.isEmpty, "\(c.predicate) selects nothing: the case tests too little")
      #expect(
        c.expected.count
          < (c.entity == "Item" ? rows.items.count : c.entity == "Tag" ? rows.tags.count : rows.folders.count),
        "\(c.predicate) selects everything")
      let request = try FetchRequest(entityName: c.entity, predicate: QueryParser.predicate(c.predicate)).resolve(
        in: model)
      for name in ["memory", "sqlite", "coredata"] {
        let store = try Self.store(name, generated.path, model)
        // Core Data's statements of a request without sort descriptors order nothing.
        let ids = try store.fetchIDs(request)
        #expect(
          (name == "coredata" ? ids.sorted() : ids) == c.expected.sorted(), "\(c.entity) \(c.predicate) on \(name)")
        #expect(try store.count(request) == c.expected.count, "\(c.entity) \(c.predicate) on \(name)")
      }
    }
  }

  /// A to-many used where one value is needed, a to-one where a collection is, a key path
  /// through a relationship inside a test: each one clear error before any store runs.
  @Test func misusesAreClearErrors() throws {
    let dir = TestSupport.temporaryFolder("to-many-errors")
    defer { TestSupport.remove(dir) }
    let (_, model) = try Self.notes(dir, rows: 50)
    for (predicate, sort, message) in [
      ("tags.name == 'x'", nil, "reads through tags, a to-many relationship: it has no single value"),
      (nil, "tags.name", "filter with ANY tags.name == …, ALL, NONE or tags.@count"),
      ("ANY folder.name == 'x'", nil, "'folder' is a to-one relationship of Item: ANY, ALL, NONE, @count and SUBQUERY"),
      ("ANY tags.items.title == 'x'", nil, "name tags's own attributes; 'items.title' reads through a relationship"),
      ("ANY labels.name == 'x'", nil, "labels"),
      ("ANY tags.name > 5", nil, "name"),
    ] as [(String?, String?, String)] {
      let request = FetchRequest(
        entityName: "Item", predicate: try predicate.map { try QueryParser.predicate($0) },
        sortDescriptors: sort.map { [SortDescriptor($0)] } ?? [])
      #expect(throws: FetchError.self) { try request.resolve(in: model) }
      do {
        _ = try request.resolve(in: model)
      } catch {
        #expect("\(error)".contains(message), "\(predicate ?? sort!): \(error)")
      }
    }
  }

  /// A tracked list filtered through a one-to-many (folders by their items) after saves that
  /// move items between folders, insert and delete them and rename them: every change set
  /// passes UIKit's rules and leaves the list equal to a fresh fetch under the minimal rules;
  /// under Core Data's, the rows whose relationship changed are evaluated again too (a rename
  /// alone leaves Core Data's folder where it was).
  @Test(arguments: ["memory", "sqlite"], [ChangeRules.minimal, .coreData])
  func aTrackedListFollowsItsToMany(store kind: String, rules: ChangeRules) throws {
    let dir = TestSupport.temporaryFolder("to-many-tracked")
    defer { TestSupport.remove(dir) }
    let (generated, model) = try Self.notes(dir)
    let path = dir + "/writable.sqlite"
    try FileManager.default.copyItem(atPath: generated, toPath: path)
    let store = try Self.store(kind, path, model, mode: .readWrite)
    let (rows, _) = try Self.read(generated)
    let folders = rows.folders.keys.sorted()
    let request = FetchRequest(
      entityName: "Folder",
      predicate: try QueryParser.predicate("items.@count > 9 OR ANY items.title BEGINSWITH 'Maple'"),
      sortDescriptors: [SortDescriptor("name")])
    let controller = FetchedResultsController(fetchRequest: request, store: store)
    controller.changeRules = rules
    let recorder = ChangeRecorder()
    controller.delegate = recorder
    try controller.performFetch()
    var mirror = controller.snapshot()
    // A fixed sequence: the same saves on every run.
    var state: UInt64 = 5
    func draw(_ n: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(n))
    }
    var items = rows.items.keys.sorted()
    var next = (items.last ?? 0) + 1
    var changedLists = 0
    for step in 0..<60 {
      let item = items[draw(items.count)]
      let folder = Value.integer(folders[draw(folders.count)])
      let op: WriteOperation
      switch step % 4 {
      case 0: op = .update(entity: "Item", id: item, values: ["folder": folder])
      case 1:
        // Every attribute the store's rows all hold, then the ones the list reads.
        var values: [String: Value] = [:]
        for a in try model.entity("Item").attributes where !a.isOptional {
          values[a.name] =
            [.integer: .integer(1), .double: .double(1), .string: .string(""), .date: .date(0), .bool: .bool(false)][
              a.type]
        }
        values.merge(["id": .integer(next), "folder": folder, "title": .string("Maple \(step)")]) { _, new in new }
        op = .insert(entity: "Item", values: values)
        items.append(next)
        next += 1
      case 2:
        op = .delete(entity: "Item", id: item)
        items.removeAll { $0 == item }
      default: op = .update(entity: "Item", id: item, values: ["title": .string(step % 8 == 3 ? "Maple" : "Oak")])
      }
      recorder.changes = []
      try store.commit([op])
      #expect(
        controller.lastTrackingError == nil, "step \(step): \(controller.lastTrackingError.map { "\($0)" } ?? "")")
      #expect(controller.trackingStats.refetches == 0)
      let before = mirror
      for c in recorder.changes { mirror = try BatchUpdateValidator.apply(c, to: mirror) }
      if !recorder.changes.isEmpty { changedLists += 1 }
      let fresh = FetchedResultsController(fetchRequest: request, store: store)
      try fresh.performFetch()
      if rules == .minimal || step % 4 != 3 {
        #expect(mirror.sameRows(as: fresh.snapshot()), "step \(step) \(op): the list differs from a fresh fetch")
      } else {
        // Core Data does not evaluate a folder again when only an item's title changed.
        #expect(mirror.sameRows(as: before), "step \(step): a rename moved a folder under Core Data's rules")
        try controller.performFetch()
        mirror = controller.snapshot()
      }
    }
    #expect(changedLists >= 10, "the saves changed the list \(changedLists) times: the test exercises too little")
  }
}

/// Cells that read a to-many relationship: `tags.@count` and `tags.name` on a note's
/// cell, `items.@count` on a folder's. Unprefetched, each row on screen fires its relationship
/// fault, one statement; prefetched, one statement per batch registers every row's elements.
/// Both show what the raw tables hold.
@Suite struct ToManyCells {
  @Test(arguments: ["memory", "sqlite", "coredata"])
  func aToManyFaultsPerRowUnlessPrefetched(store kind: String) throws {
    let dir = TestSupport.temporaryFolder("to-many-cells")
    defer { TestSupport.remove(dir) }
    let (generated, model) = try ToManyPredicates.notes(dir)
    let (rows, _) = try ToManyPredicates.read(generated)
    let store = try ToManyPredicates.store(kind, generated, model)
    for (entity, cells, relationship) in [
      ("Item", ["title", "tags.@count", "tags.name"], "tags"), ("Folder", ["name", "items.@count"], "items"),
    ] {
      var shown: [[[Value]]] = []
      // Core Data's statements order a list sorted by its primary key alone by nothing.
      var ids: [Int64] = []
      for prefetched in [false, true] {
        let request = FetchRequest(
          entityName: entity, sortDescriptors: [SortDescriptor("id")], fetchBatchSize: 20,
          relationshipKeyPathsForPrefetching: prefetched ? [relationship] : [])
        store.resetCounters()
        let controller = FetchedResultsController(fetchRequest: request, store: store)
        try controller.performFetch()
        let reader = try Cells(cells, request: request.resolve(in: model), store: store, related: controller.related)
        let objects = try (0..<20).map { try controller.object(atGlobalIndex: $0) }
        ids = objects.map(\.id)
        shown.append(try objects.map { try reader.values(of: $0) })
        // The ID query, the batch, then a fault per row or one prefetch for the batch.
        #expect(store.counters.queries == (prefetched ? 3 : 22), "\(entity) \(kind) prefetched \(prefetched)")
        #expect(reader.faultsFired == (prefetched ? 0 : 20))
        // Read again: every row's relationship is registered.
        _ = try (0..<20).map { try reader.values(of: controller.object(atGlobalIndex: $0)) }
        #expect(store.counters.queries == (prefetched ? 3 : 22))
      }
      #expect(shown[0] == shown[1], "\(entity) on \(kind): prefetched cells differ")
      for (id, cell) in zip(ids, shown[0]) {
        if entity == "Item" {
          let tags = rows.pairs.filter { $0.0 == id }.map(\.1).sorted().map { rows.tags[$0]! }
          #expect(
            cell[1] == .integer(Int64(tags.count)) && cell[2] == .string(tags.joined(separator: ", ")), "item \(id)")
        } else {
          #expect(cell[1] == .integer(Int64(rows.items(inFolder: id).count)), "folder \(id)")
        }
      }
    }
  }
}

extension ToManyCells {
  /// An ordered to-many (Folder.items, its order in ZITEM.Z_FOK_FOLDER) lists its elements in
  /// that order on every store, here reversed against their IDs in a copy of the file.
  @Test(arguments: ["memory", "sqlite", "coredata"])
  func anOrderedToManyListsInItsOrder(store kind: String) throws {
    let dir = TestSupport.temporaryFolder("to-many-ordered")
    defer { TestSupport.remove(dir) }
    let (generated, model) = try ToManyPredicates.notes(dir)
    #expect(try model.entity("Folder").toManyRelationship("items")?.orderColumn == "Z_FOK_FOLDER")
    #expect(try model.entity("Item").toManyRelationship("tags")?.orderColumn == nil)
    let path = dir + "/reversed.sqlite"
    try FileManager.default.copyItem(atPath: generated, toPath: path)
    let db = try DatabaseQueue(path: path)
    try db.write { try $0.execute(sql: "UPDATE ZITEM SET Z_FOK_FOLDER = 100000 - Z_PK") }
    let expected = try db.read { db in
      try Dictionary(
        grouping: Row.fetchAll(
          db, sql: "SELECT ZFOLDER, ZTITLE FROM ZITEM WHERE ZFOLDER IS NOT NULL ORDER BY Z_PK DESC"),
        by: { $0[0] as Int64 }
      ).mapValues { $0.map { ($0[1] as String?) ?? "" }.joined(separator: ", ") }
    }
    try db.close()
    let store = try ToManyPredicates.store(kind, path, model)
    for prefetch in [false, true] {
      let request = FetchRequest(
        entityName: "Folder", sortDescriptors: [SortDescriptor("name")], fetchBatchSize: 20,
        relationshipKeyPathsForPrefetching: prefetch ? ["items"] : [])
      let controller = FetchedResultsController(fetchRequest: request, store: store)
      try controller.performFetch()
      let reader = try Cells(
        ["items.title"], request: request.resolve(in: model), store: store, related: controller.related)
      for i in 0..<min(20, controller.count) {
        let object = try controller.object(atGlobalIndex: i)
        #expect(try reader.values(of: object) == [.string(expected[object.id] ?? "")], "folder \(object.id) on \(kind)")
      }
    }
  }
}

/// Collects a controller's change sets.
private final class ChangeRecorder: FetchedResultsControllerDelegate {
  var changes: [ChangeSet] = []
  func controller(_ controller: FetchedResultsController, didChange changes: ChangeSet) { self.changes.append(changes) }
}

/// A database's declared to-many relationships travel with it to child processes and into
/// the results, and a run recorded before they existed still reads back.
@Suite struct DeclaredToMany {
  @Test func aDatabaseWithoutThemReadsBackAndOneWithThemRoundTrips() throws {
    let old = try JSONDecoder().decode(
      UserDatabase.self, from: Data(#"{"path":"app.sqlite","relationships":{"plane":"Plane"}}"#.utf8))
    #expect(old.path == "app.sqlite" && old.toMany.isEmpty && old.relationships == ["plane": "Plane"])
    var database = UserDatabase(path: "notes.sqlite")
    database.toMany = [
      "Item": [
        ToManyRelationship(
          "tags", to: "Tag", sourceColumn: "Z_PK",
          link: .joinTable(JoinTable("Z_2TAGS", sourceColumn: "Z_2ITEMS", destinationColumn: "Z_5TAGS")))
      ],
      "Folder": [
        ToManyRelationship(
          "items", to: "Item", sourceColumn: "Z_PK", link: .foreignKey("ZFOLDER"), orderedBy: "Z_FOK_FOLDER")
      ],
    ]
    let back = try JSONDecoder().decode(UserDatabase.self, from: JSONEncoder().encode(database))
    #expect(back == database && back.toMany["Folder"]?.first?.orderColumn == "Z_FOK_FOLDER")
  }
}
