import DatasetStores
import FetchedResults
import Foundation
import GRDB
import SQLiteStore
import TestSupport
import Testing

/// NSPredicate's tests of a to-many relationship (#50) — ANY, SOME, ALL, NONE, @count and
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
    let sqlite = try SQLiteStore(path: generated.path, model: model, mode: .immutable)
    let coreData = try SQLiteStore(path: generated.path, model: model, mode: .immutable)
    coreData.plan = .coreData
    let memory = try MemoryStore.load(from: sqlite)
    for c in Self.cases(rows) {
      #expect(!c.expected.isEmpty, "\(c.predicate) selects nothing: the case tests too little")
      #expect(
        c.expected.count
          < (c.entity == "Item" ? rows.items.count : c.entity == "Tag" ? rows.tags.count : rows.folders.count),
        "\(c.predicate) selects everything")
      let request = try FetchRequest(entityName: c.entity, predicate: QueryParser.predicate(c.predicate)).resolve(
        in: model)
      for (name, store) in [("memory", memory as any Store), ("sqlite", sqlite), ("coredata", coreData)] {
        // Core Data's statements of a request without sort descriptors order nothing.
        let ids = try store.fetchIDs(request)
        #expect(
          (name == "coredata" ? ids.sorted() : ids) == c.expected.sorted(), "\(c.entity) \(c.predicate) on \(name)")
        #expect(try store.count(request) == c.expected.count, "\(c.entity) \(c.predicate) on \(name)")
      }
    }
  }
}
