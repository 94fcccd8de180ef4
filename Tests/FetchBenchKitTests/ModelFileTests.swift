import Catalog
import DatasetStores
import FetchedResults
import Foundation
import GRDB
import Reports
import ResultModel
import SQLQueries
import SQLiteStore
import TestSupport
import Testing
import TextFormatting

/// An app's `.xcdatamodeld` read as Xcode writes it: versions, inheritance, to-one,
/// ordered and many-to-many relationships, fetch indexes, constraints; the SQLite schema Core
/// Data creates for it; every broken input one `Error:` line naming the element.
@Suite struct ModelFiles {
  /// A hand-made model: an abstract Item with two sub-entities (a property both declare), a
  /// to-one with an ordered to-many inverse, a many-to-many, a fetch index, a constraint, a
  /// fetch request, a configuration and the old layout block.
  static let contents = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
        <entity name="Item" representedClassName="Item" isAbstract="YES" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="created" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="scratch" optional="YES" attributeType="String" transient="YES"/>
            <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="items" inverseEntity="Folder"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
            <fetchIndex name="byCreated">
                <fetchIndexElement property="created" type="Binary" order="descending"/>
                <fetchIndexElement property="title" type="Binary" order="ascending"/>
            </fetchIndex>
        </entity>
        <entity name="Note" representedClassName="Note" parentEntity="Item" syncable="YES">
            <attribute name="body" optional="YES" attributeType="String"/>
            <attribute name="pinned" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
        </entity>
        <entity name="Sketch" representedClassName="Sketch" parentEntity="Item" syncable="YES">
            <attribute name="drawing" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="body" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
        </entity>
        <entity name="Folder" representedClassName="Folder" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
            <relationship name="items" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Item" inverseName="folder" inverseEntity="Item"/>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="id"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
        </entity>
        <fetchRequest name="Pinned" entity="Note" predicateString="pinned == 1"/>
        <configuration name="Cloud"><memberEntity name="Note"/></configuration>
        <elements>
            <element name="Item" positionX="-63" positionY="-18" width="128" height="89"/>
        </elements>
    </model>
    """

  /// `Notes.xcdatamodeld` with versions 1, 2 and 10 (10 sorts last as a number), the plist
  /// naming 2; version 1 lacks Tag.
  static func package(_ dir: String, current: String? = "Notes 2.xcdatamodel") throws -> String {
    let root = dir + "/Notes.xcdatamodeld"
    for version in ["Notes 1", "Notes 2", "Notes 10"] {
      try FileManager.default.createDirectory(
        atPath: "\(root)/\(version).xcdatamodel", withIntermediateDirectories: true)
      let text = version == "Notes 1" ? contents.replacingOccurrences(of: "Boolean", with: "Integer 16") : contents
      try text.write(toFile: "\(root)/\(version).xcdatamodel/contents", atomically: true, encoding: .utf8)
    }
    if let current {
      let plist = try PropertyListSerialization.data(
        fromPropertyList: ["_XCCurrentVersionName": current], format: .xml, options: 0)
      try plist.write(to: URL(fileURLWithPath: root + "/.xccurrentversion"))
    }
    return root
  }

  @Test func theCurrentVersionIsReadWhole() throws {
    let dir = TestSupport.temporaryFolder("model")
    defer { TestSupport.remove(dir) }
    let root = try Self.package(dir)
    let model = try ModelFile.read(root)
    #expect(model.version == "Notes 2")
    #expect(model.entities.map(\.name) == ["Item", "Note", "Sketch", "Folder", "Tag"])
    let item = try #require(model.entity("Item"))
    #expect(
      item.isAbstract && item.attributes.map(\.type) == [.string, .date, .string] && item.attributes[2].transient)
    let index = try #require(item.fetchIndexes.first)
    #expect(
      index.name == "byCreated"
        && index.elements.map { "\($0.property) \($0.type) \($0.ascending)" } == [
          "created Binary false", "title Binary true",
        ])
    #expect(model.entity("Note")?.parent == "Item" && model.entity("Note")?.attributes[1].defaultValue == "NO")
    #expect(model.entity("Sketch")?.attributes[0].externalStorage == true)
    let items = try #require(model.entity("Folder")?.relationships.first)
    #expect(items.toMany && items.ordered && items.deletionRule == "Cascade" && items.inverse == "folder")
    #expect(model.entity("Folder")?.uniquenessConstraints == [["id"]])
    #expect(model.fetchRequests == ["Pinned"] && model.configurations == ["Cloud"])
    // Without the plist: the highest-numbered version; by name: that one.
    try FileManager.default.removeItem(atPath: root + "/.xccurrentversion")
    #expect(try ModelFile.read(root).version == "Notes 10")
    #expect(try ModelFile.read(root, version: "Notes 1").entity("Note")?.attributes[1].type == .integer16)
    #expect(try ModelFile.read(root + "/Notes 1.xcdatamodel").version == "Notes 1")
    #expect(try ModelFile.read(root + "/Notes 1.xcdatamodel/contents").version == "Notes 1")
  }

  @Test func theSchemaIsCoreDatasAndSQLiteTakesIt() throws {
    let dir = TestSupport.temporaryFolder("model-schema")
    defer { TestSupport.remove(dir) }
    let schema = DatasetStores.CoreDataSchema(try ModelFile.read(try Self.package(dir)))
    #expect(
      schema.entities.map { "\($0.number) \($0.name) \($0.parent)" } == [
        "1 Folder 0", "2 Item 0", "3 Note 2", "4 Sketch 2", "5 Tag 0",
      ])
    #expect(schema.tables.map(\.name) == ["ZFOLDER", "ZITEM", "ZTAG", "Z_2TAGS"])
    let item = try #require(schema.tables.first { $0.name == "ZITEM" })
    #expect(item.entities == ["Item", "Note", "Sketch"])
    #expect(
      item.columns.map(\.name) == [
        "Z_PK", "Z_ENT", "Z_OPT", "ZFOLDER", "Z_FOK_FOLDER", "ZTITLE", "ZCREATED", "ZBODY", "ZPINNED", "ZDRAWING",
        "ZBODY4",
      ], "one table per tree, a transient attribute without a column, a shared name numbered")
    #expect(item.columns.first { $0.name == "ZCREATED" }?.type == "TIMESTAMP")
    #expect(
      schema.tables.last?.columns.map(\.name) == ["Z_2ITEMS", "Z_5TAGS"]
        && schema.tables.last?.primaryKey == ["Z_2ITEMS", "Z_5TAGS"])
    #expect(
      schema.indexes.map { "\($0.name) ON \($0.table) (\($0.columns.joined(separator: ", ")))" } == [
        "ZITEM_ZFOLDER_INDEX ON ZITEM (ZFOLDER)", "Z_2TAGS_Z_5TAGS_INDEX ON Z_2TAGS (Z_5TAGS, Z_2ITEMS)",
        "Z_Item_byCreated ON ZITEM (ZCREATED COLLATE BINARY DESC, ZTITLE COLLATE BINARY ASC)",
      ])
    let db = try DatabaseQueue()
    try db.write { db in for statement in schema.statements { try db.execute(sql: statement) } }
    let indexes = try db.read { db in
      try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
    }
    #expect(indexes == ["ZITEM_ZFOLDER_INDEX", "Z_2TAGS_Z_5TAGS_INDEX", "Z_Item_byCreated"])
  }

  @Test func describePrintsTheModelAndItsSchema() throws {
    let dir = TestSupport.temporaryFolder("model-describe")
    defer { TestSupport.remove(dir) }
    let out = try TestSupport.run(["describe", "--model", try Self.package(dir)])
    #expect(out.status == 0, "\(out.stderr)")
    for line in [
      "(version Notes 2): a Core Data model, 5 entities", "entity Note (Z_ENT 3, a sub-entity of Item, table ZITEM)",
      "  items: ordered to-many, → Item, inverse folder, delete rule Cascade",
      "  fetch index byCreated: created descending, title ascending",
      "  CREATE TABLE Z_2TAGS (Z_2ITEMS INTEGER, Z_5TAGS INTEGER, PRIMARY KEY (Z_2ITEMS, Z_5TAGS));",
      "  Z_PRIMARYKEY: (1, Folder, 0, 0) (2, Item, 0, 0) (3, Note, 2, 0) (4, Sketch, 2, 0) (5, Tag, 0, 0)",
    ] {
      #expect(out.stdout.contains(line), "\(line)\n\(out.stdout)")
    }
  }

  /// Each broken model: exit 1, one `Error:` line naming the element and the fix.
  @Test(arguments: [
    ("attributeType=\"Date\"", "attributeType=\"Money\"", "gives Item.created the attributeType \"Money\""),
    (
      "destinationEntity=\"Tag\"", "destinationEntity=\"Label\"",
      "gives Item.tags the destination Label, which the model does not declare"
    ),
    (
      "inverseName=\"tags\"", "inverseName=\"labels\"",
      "gives Tag.items the inverse labels, which Item does not declare"
    ),
    (
      "name=\"Item\" representedClassName", "name=\"Item\" parentEntity=\"Sketch\" representedClassName",
      "has a parentEntity cycle: Item → Sketch → Item"
    ),
    (
      "name=\"Tag\" representedClassName", "name=\"Tag\" parentEntity=\"Widget\" representedClassName",
      "gives Tag the parentEntity Widget"
    ),
    ("property=\"created\"", "property=\"modified\"", "gives Item's fetch index byCreated the property modified"),
    ("<constraint value=\"id\"/>", "<constraint value=\"uuid\"/>", "gives Folder a uniqueness constraint on uuid"),
    ("</model>", "", "is not well-formed XML"),
    ("<elements>", "<widget/><elements>", "holds <widget>, an element FetchBench does not know"),
    ("<model type", "<modal type", "holds <modal>"),
    (
      "<attribute name=\"pinned\"", "<attribute name=\"title\" attributeType=\"String\"/><attribute name=\"pinned\"",
      "gives Note two properties named title (its own or inherited)"
    ),
    (
      "<attribute name=\"pinned\"", "<attribute name=\"Body\" attributeType=\"String\"/><attribute name=\"pinned\"",
      "gives Note the properties body and Body, whose columns would both be ZBODY"
    ),
    (
      "<fetchRequest name=", "<entity name=\"FOLDER\"/><fetchRequest name=",
      "declares the entities Folder and FOLDER, whose tables would both be ZFOLDER"
    ),
    ("<fetchRequest name=", "<entity name=\"_PRIMARYKEY\"/><fetchRequest name=", "does not begin with a letter"),
    ("<fetchIndex name=\"byCreated\">", "<entity name=\"Inner\"/><fetchIndex name=\"byCreated\">", "nests an <entity>"),
    (
      "<fetchRequest name=", "<attribute name=\"stray\" attributeType=\"String\"/><fetchRequest name=",
      "has an <attribute> outside every <entity>"
    ),
    (
      "deletionRule=\"Cascade\"", "deletionRule=\"Explode\"",
      "the deletionRule \"Explode\", which Core Data does not know"
    ),
    ("maxCount=\"1\"", "maxCount=\"-5\"", "the maxCount \"-5\", which is not a count"),
    ("type=\"Binary\" order=\"descending\"", "type=\"R-Tree\" order=\"descending\"", "of type R-Tree"),
    (
      "inverseName=\"folder\" inverseEntity=\"Item\"", "inverseName=\"tags\" inverseEntity=\"Item\"",
      "gives Folder.items the inverse Item.tags, whose destination is Tag, not Folder"
    ),
  ])
  func aBrokenModelIsOneErrorLine(_ original: String, _ replacement: String, _ message: String) throws {
    let dir = TestSupport.temporaryFolder("model-bad")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let contents = root + "/Notes 2.xcdatamodel/contents"
    try Self.contents.replacingOccurrences(of: original, with: replacement).write(
      toFile: contents, atomically: true, encoding: .utf8)
    let out = try TestSupport.run(["describe", "--model", root])
    let errors = out.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
    #expect(out.status == 1 && errors.count == 1 && out.stdout.isEmpty, "\(out.stderr)")
    #expect(out.stderr.contains(message) && out.stderr.contains(contents), "\(out.stderr)")
  }

  /// Fetch indexes of two entities whose store names coincide (`Z_A_b_c`: A's `b_c`, A_b's
  /// `c`) are refused by name before SQLite sees them.
  @Test func fetchIndexesWhoseStoreNamesCoincideAreRefused() throws {
    let dir = TestSupport.temporaryFolder("model-index-names")
    defer { TestSupport.remove(dir) }
    let model = dir + "/I.xcdatamodel"
    try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
    let index = { (name: String) in
      "<fetchIndex name=\"\(name)\"><fetchIndexElement property=\"name\" type=\"Binary\" order=\"ascending\"/></fetchIndex>"
    }
    let entity = { (name: String, indexName: String) in
      "<entity name=\"\(name)\"><attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>\(index(indexName))</entity>"
    }
    try "<model type=\"com.apple.IDECoreDataModeler.DataModel\">\(entity("A", "b_c"))\(entity("A_b", "c"))</model>"
      .write(
        toFile: model + "/contents", atomically: true, encoding: .utf8)
    for command in [
      ["describe", "--model", model],
      ["generate", "--model", model, "--entity", "A", "--rows", "10", "--datasets", dir + "/ds"],
    ] {
      let out = try TestSupport.run(command)
      #expect(out.status == 1 && out.stderr.split(separator: "\n").count == 1, "\(out.stderr)")
      #expect(
        out.stderr.contains("gives A's b_c and A_b's c fetch indexes that would both be named Z_A_b_c in the store"),
        "\(out.stderr)")
      #expect(!out.stderr.contains("SQLite"), "\(out.stderr)")
    }
  }

  /// Core Data indexes columns: a fetch index element naming a to-many relationship has none,
  /// and is left out of the index, said so, rather than failing in SQLite.
  @Test func aToManyFetchIndexElementIsLeftOutAndSaidSo() throws {
    let dir = TestSupport.temporaryFolder("model-tomany-index")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    try Self.contents.replacingOccurrences(of: "property=\"title\"", with: "property=\"tags\"").write(
      toFile: root + "/Notes 2.xcdatamodel/contents", atomically: true, encoding: .utf8)
    let described = try TestSupport.run(["describe", "--model", root])
    #expect(described.status == 0, "\(described.stderr)")
    #expect(described.stdout.contains("its element tags is a to-many relationship"), "\(described.stdout)")
    #expect(described.stdout.contains("ON ZITEM (ZCREATED COLLATE BINARY DESC)"), "\(described.stdout)")
    let generated = try TestSupport.run([
      "generate", "--model", root, "--entity", "Item", "--rows", "50", "--datasets", dir + "/datasets",
    ])
    #expect(generated.status == 0 && generated.stdout.contains("is a to-many relationship"), "\(generated.stderr)")
  }

  /// `--rows N` is the list's entity's rows, even where a relationship reaches its parent
  /// (Folder.items → Item, Note's parent): the parent's share goes to its other sub-entities.
  @Test func theListsEntityHoldsExactlyTheRowsAskedFor() throws {
    let dir = TestSupport.temporaryFolder("model-rows")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let out = try TestSupport.run([
      "generate", "--model", root, "--entity", "Note", "--rows", "2000", "--datasets", dir + "/datasets",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let store = dir + "/datasets/notes-note-2000-s1.coredata.sqlite"
    let notes = try DatabaseQueue(path: store).read { db in
      try Int.fetchOne(
        db, sql: "SELECT count(*) FROM ZITEM WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note')")
    }
    #expect(notes == 2000, "\(out.stdout)")
  }

  @Test func aMissingVersionOrFileIsOneErrorLine() throws {
    let dir = TestSupport.temporaryFolder("model-missing")
    defer { TestSupport.remove(dir) }
    let root = try Self.package(dir, current: "Notes 3.xcdatamodel")
    for (arguments, message) in [
      (["--model", root], "names Notes 3.xcdatamodel, which the folder does not hold"),
      (
        ["--model", root, "--model-version", "Notes 9"],
        "has no version Notes 9: name one of its versions: Notes 1, Notes 2, Notes 10"
      ),
      (["--model", dir + "/none.xcdatamodeld"], "does not exist"),
      (["--model", dir], "holds no .xcdatamodel version"),
    ] {
      let out = try TestSupport.run(["describe"] + arguments)
      #expect(out.status == 1 && out.stderr.contains(message), "\(arguments): \(out.stderr)")
    }
    let both = try TestSupport.run(["describe", "--model", root, "--db", dir + "/x.sqlite"])
    #expect(both.status == 64, "\(both.stderr)")
  }
}

/// `generate --model`: a Core Data store of the model's schema, deterministic, its keys and
/// bookkeeping right, read by every store in the order plain SQL gives.
@Suite struct ModelStores {
  static func generate(_ dir: String, folder: String = "datasets", rows: Int = 1_200) throws -> (
    TestSupport.Output, String
  ) {
    let root = try ModelFiles.package(dir)
    let out = try TestSupport.run([
      "generate", "--model", root, "--entity", "Item", "--rows", String(rows), "--datasets", "\(dir)/\(folder)",
    ])
    return (out, "\(dir)/\(folder)/notes-item-\(rows)-s1.coredata.sqlite")
  }

  @Test func theStoreIsTheSchemasWithItsKeysRight() throws {
    let dir = TestSupport.temporaryFolder("model-store")
    defer { TestSupport.remove(dir) }
    let (out, path) = try Self.generate(dir)
    #expect(
      out.status == 0 && out.stdout.contains("Folder 120, Note 600, Sketch 600, Tag 120 rows"),
      "\(out.stderr)\(out.stdout)")
    let db = try DatabaseQueue(path: path)
    try db.read { db in
      #expect(
        try String.fetchAll(
          db, sql: "SELECT Z_ENT || ' ' || Z_NAME || ' ' || Z_SUPER || ' ' || Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
          == [
            "1 Folder 0 120", "2 Item 0 1200", "3 Note 2 0", "4 Sketch 2 0", "5 Tag 0 120",
          ])
      #expect(try Int.fetchAll(db, sql: "SELECT count(*) FROM ZITEM GROUP BY Z_ENT ORDER BY Z_ENT") == [600, 600])
      #expect(
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM WHERE Z_ENT = 3 AND ZBODY4 IS NOT NULL") == 0,
        "a sibling's column")
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM WHERE Z_OPT != 1") == 0)
      // Every key points at a row that exists; NULLs only where optional.
      #expect(
        try Int.fetchOne(
          db,
          sql:
            "SELECT count(*) FROM ZITEM i LEFT JOIN ZFOLDER f ON f.Z_PK = i.ZFOLDER WHERE i.ZFOLDER IS NOT NULL AND f.Z_PK IS NULL"
        )
          == 0)
      #expect(
        try Int.fetchOne(
          db,
          sql:
            "SELECT count(*) FROM Z_2TAGS j LEFT JOIN ZTAG t ON t.Z_PK = j.Z_5TAGS LEFT JOIN ZITEM i ON i.Z_PK = j.Z_2ITEMS WHERE t.Z_PK IS NULL OR i.Z_PK IS NULL"
        ) == 0)
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_2TAGS")! > 1_200)
      #expect(
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM WHERE ZCREATED IS NULL") == 0, "created is required")
      let nulls = try Double.fetchOne(db, sql: "SELECT avg(ZTITLE IS NULL) FROM ZITEM")!
      #expect(abs(nulls - 0.1) < 0.03, "an optional attribute's NULL share: \(nulls)")
      #expect(
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ZFOLDER WHERE length(ZID) != 16") == 0, "UUIDs as 16 bytes")
      #expect(try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA")?.hasPrefix("FETCHBENCH-MODEL-") == true)
    }
  }

  /// A delete on the model's store applies the model's delete rules, as Core Data's save does:
  /// with `Folder.items` Cascade its items go with it, with Nullify they stay with no folder;
  /// either way each changed row is reported to observers and its version checked.
  @Test(arguments: ["Cascade", "Nullify"])
  func aDeleteAppliesTheModelsDeleteRule(_ rule: String) throws {
    let dir = TestSupport.temporaryFolder("delete-rules")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let contents = root + "/Notes 2.xcdatamodel/contents"
    let declared = #"name="items" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade""#
    let text = try String(contentsOfFile: contents, encoding: .utf8)
    #expect(text.contains(declared))
    try text.replacingOccurrences(of: declared, with: declared.replacingOccurrences(of: "Cascade", with: rule))
      .write(toFile: contents, atomically: true, encoding: .utf8)
    let generated = try ModelStore(model: root, entity: "Note", rows: 600).generate(into: dir)
    let file = try ModelFile.read(root, version: nil)
    #expect(
      file.deleteRules.contains(
        DeleteRule(entity: "Folder", dependent: "Item", key: "folder", action: .init(rawValue: rule)!)))
    let (kind, _) = try generated.database().register(entity: "Item")
    let store = try SQLiteStore(path: generated.path, model: kind.definition.model)
    store.deleteRules = file.deleteRules
    let db = try DatabaseQueue(path: generated.path)
    let (folder, items, total) = try db.read { db in
      let folder = try #require(
        try Int64.fetchOne(
          db, sql: "SELECT ZFOLDER FROM ZITEM WHERE ZFOLDER IS NOT NULL GROUP BY ZFOLDER HAVING count(*) > 2 LIMIT 1"))
      return (
        folder,
        try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM WHERE ZFOLDER = ? ORDER BY Z_PK", arguments: [folder]),
        try #require(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM"))
      )
    }
    let saved = try store.commit([.delete(entity: "Folder", id: folder)])
    try db.read { db in
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZFOLDER WHERE Z_PK = ?", arguments: [folder]) == 0)
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM WHERE ZFOLDER = ?", arguments: [folder]) == 0)
      let left = try #require(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM"))
      if rule == "Cascade" {
        #expect(left == total - items.count)
        #expect(saved.changes(for: "Item")?.deleted.sorted() == items)
      } else {
        #expect(left == total)
        let cleared = try Int64.fetchAll(
          db, sql: "SELECT Z_PK FROM ZITEM WHERE ZFOLDER IS NULL AND Z_OPT = 2 ORDER BY Z_PK")
        #expect(cleared == items)
        #expect(saved.changes(for: "Item")?.updated.keys.sorted() == items)
      }
    }
    try db.close()
  }

  @Test func twoGenerationsAreByteIdenticalAndAFileOfOneIsKept() throws {
    let dir = TestSupport.temporaryFolder("model-twice")
    defer { TestSupport.remove(dir) }
    let (first, a) = try Self.generate(dir, folder: "one")
    let (second, b) = try Self.generate(dir, folder: "two")
    #expect(first.status == 0 && second.status == 0)
    #expect(FileManager.default.contents(atPath: a) == FileManager.default.contents(atPath: b))
    let (again, _) = try Self.generate(dir, folder: "one")
    #expect(again.status == 0 && again.stdout.contains("kept"), "\(again.stdout)")
    // A file FetchBench did not write is never replaced.
    try FileManager.default.createDirectory(atPath: dir + "/mine", withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: URL(fileURLWithPath: dir + "/mine/notes-item-1200-s1.coredata.sqlite"))
    let (refused, _) = try Self.generate(dir, folder: "mine")
    #expect(refused.status == 1 && refused.stderr.contains("did not write"), "\(refused.stderr)")
    #expect(FileManager.default.contents(atPath: dir + "/mine/notes-item-1200-s1.coredata.sqlite") == Data("mine".utf8))
    // An app's store in WAL mode at that name: refused, and read without a -shm or -wal left beside it.
    let app = dir + "/app/notes-item-1200-s1.coredata.sqlite"
    try FileManager.default.createDirectory(atPath: dir + "/app", withIntermediateDirectories: true)
    do {
      let queue = try DatabaseQueue(path: app)
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(
          sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER, Z_UUID TEXT); INSERT INTO Z_METADATA VALUES (1, 'app')")
      }
      try queue.close()
    }
    let before = try Data(contentsOf: URL(fileURLWithPath: app))
    let (foreign, _) = try Self.generate(dir, folder: "app")
    #expect(foreign.status == 1 && foreign.stderr.contains("did not write"), "\(foreign.stderr)")
    #expect(TestSupport.listing(dir + "/app") == ["notes-item-1200-s1.coredata.sqlite"])
    #expect(try Data(contentsOf: URL(fileURLWithPath: app)) == before)
  }

  /// `--model` on a command that measures: what it needs is said, nothing written.
  @Test func aModelListNeedsItsEntityAndRows() throws {
    let dir = TestSupport.temporaryFolder("model-options")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    for (arguments, message) in [
      (["fetch", "--model", root, "--rows", "100"], "--model needs --entity NAME"),
      (["run", "--model", root, "--entity", "Item"], "--model needs --rows N"),
      (["run", "--model", root, "--entity", "Item", "--rows", "100,200"], "--model takes one --rows count"),
      (["fetch", "--model", root, "--db", dir + "/x.sqlite", "--entity", "Item"], "give one of them"),
      (
        ["fetch", "--model", root, "--entity", "Widget", "--rows", "100"],
        "declares no entity Widget: name one of: Item, Note, Sketch, Folder, Tag"
      ),
    ] {
      let out = try TestSupport.run(arguments + ["--datasets", dir + "/datasets"])
      #expect([1, 64].contains(out.status) && out.stderr.contains(message), "\(arguments): \(out.stderr)")
    }
    #expect(
      !FileManager.default.fileExists(atPath: dir + "/datasets") || TestSupport.listing(dir + "/datasets").isEmpty)
    // A FIFO is named as one, never waited on.
    #expect(mkfifo(dir + "/fifo", 0o644) == 0)
    let fifo = try TestSupport.run(["describe", "--model", dir + "/fifo"])
    #expect(fifo.status == 1 && fifo.stderr.contains("fifo is a FIFO, not a model file"), "\(fifo.stderr)")
  }

  @Test func everyStoreReadsTheListInPlainSQLsOrder() throws {
    let dir = TestSupport.temporaryFolder("model-fetch")
    defer { TestSupport.remove(dir) }
    let (out, path) = try Self.generate(dir)
    #expect(out.status == 0, "\(out.stderr)")
    let db = try DatabaseQueue(path: path)
    // A sort on the tree's root, one through a to-one with sections by it, and a predicate.
    let lists: [(arguments: [String], sql: String)] = [
      (["--sort", "created desc"], "SELECT i.Z_PK FROM ZITEM i ORDER BY i.ZCREATED DESC, i.Z_PK"),
      (
        ["--sort", "folder.name asc, title asc", "--section", "folder.name"],
        "SELECT i.Z_PK FROM ZITEM i LEFT JOIN ZFOLDER f ON f.Z_PK = i.ZFOLDER ORDER BY f.ZNAME, i.ZTITLE, i.Z_PK"
      ),
      (
        ["--sort", "title asc", "--where", "pinned = 1"],
        "SELECT i.Z_PK FROM ZITEM i WHERE i.ZPINNED = 1 ORDER BY i.ZTITLE, i.Z_PK"
      ),
    ]
    let stores = ["memory", "sqlite", "sqlite-coredata"] + (TestSupport.postgresServerUp ? ["postgres"] : [])
    let server = try stores.contains("postgres") ? ["--postgres-url", "\(TestDatabases.create("model_lists"))"] : []
    for (arguments, sql) in lists {
      let expected = try db.read { db in try Int64.fetchAll(db, sql: sql) }.map(String.init)
      #expect(expected.count > 100)
      for store in stores {
        for strategy in ["full", "batched", "offset", "keyset"]
        where store != "sqlite-coredata" || strategy == "full" || strategy == "batched" {
          let fetched = try TestSupport.run(
            ["fetch", "--db", path, "--entity", "Item"] + arguments + [
              "--store", store, "--strategy", strategy, "--ids",
            ] + (store == "postgres" ? server : []))
          #expect(
            fetched.status == 0 && fetched.stdout.split(separator: "\n").map(String.init) == expected,
            "\(arguments) \(store) \(strategy): \(fetched.stderr)")
        }
      }
    }
  }

  /// `--db` on a Core Data store reads what the model declared, from the store alone: a
  /// many-to-many from its join table and Z_PRIMARYKEY's numbers (both sides), a property
  /// two sub-entities declare from the column Core Data numbered for the second (`ZBODY4` is
  /// Sketch's `body`), and a name with ß as Core Data uppercases it.
  @Test func aCoreDataStoreIsReadAsItsModelDeclares() throws {
    let dir = TestSupport.temporaryFolder("model-db")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let text = try String(contentsOfFile: root + "/Notes 2.xcdatamodel/contents", encoding: .utf8)
    try text.replacingOccurrences(
      of: #"<attribute name="pinned""#,
      with:
        #"<attribute name="größe" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/><attribute name="pinned""#
    ).write(toFile: root + "/Notes 2.xcdatamodel/contents", atomically: true, encoding: .utf8)
    let made = try TestSupport.run([
      "generate", "--model", root, "--entity", "Item", "--rows", "1200", "--datasets", dir + "/datasets",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let path = dir + "/datasets/notes-item-1200-s1.coredata.sqlite"
    let db = try DatabaseQueue(path: path)
    func sql(_ text: String) throws -> [String] { try db.read { try Int64.fetchAll($0, sql: text) }.map(String.init) }
    func fetched(_ arguments: [String]) throws -> [String] {
      let out = try TestSupport.run(["fetch", "--db", path] + arguments + ["--ids"])
      #expect(out.status == 0, "\(arguments): \(out.stderr)")
      return out.stdout.split(separator: "\n").map(String.init)
    }
    let cases: [([String], String)] = [
      (
        ["--entity", "Note", "--where", "tags.@count > 1", "--sort", "title asc"],
        """
        SELECT i.Z_PK FROM ZITEM i WHERE i.Z_ENT = 3 AND (SELECT count(*) FROM Z_2TAGS j WHERE j.Z_2ITEMS = i.Z_PK) > 1 \
        ORDER BY i.ZTITLE, i.Z_PK
        """
      ),
      (
        ["--entity", "Tag", "--where", "ANY items.title BEGINSWITH 'A'"],
        """
        SELECT t.Z_PK FROM ZTAG t WHERE EXISTS (SELECT 1 FROM Z_2TAGS j JOIN ZITEM i ON i.Z_PK = j.Z_2ITEMS \
        WHERE j.Z_5TAGS = t.Z_PK AND substr(i.ZTITLE, 1, 1) = 'A') ORDER BY t.Z_PK
        """
      ),
      (
        ["--entity", "Sketch", "--sort", "body desc"],
        "SELECT Z_PK FROM ZITEM WHERE Z_ENT = 4 ORDER BY ZBODY4 DESC, Z_PK"
      ),
      (
        ["--entity", "Note", "--sort", "größe asc", "--where", "größe > 0"],
        "SELECT Z_PK FROM ZITEM WHERE Z_ENT = 3 AND ZGRÖSSE > 0 ORDER BY ZGRÖSSE, Z_PK"
      ),
    ]
    for (arguments, query) in cases {
      let (expected, ids) = (try sql(query), try fetched(arguments))
      #expect(expected.count > 5 && ids == expected, "\(arguments)")
    }
    let described = try TestSupport.run(["describe", "--db", path])
    #expect(described.stdout.contains("tags → Tag (join table Z_2TAGS: Z_2ITEMS → Z_5TAGS)"), "\(described.stdout)")
    #expect(described.stdout.contains("items → Item (join table Z_2TAGS: Z_5TAGS → Z_2ITEMS)"))
  }

  /// A run's `--cell` takes what `fetch --cell` takes: a to-many's count and attribute beside
  /// a to-one's, the cells scenarios filling them faulted and prefetched.
  @Test func aRunsCellReadsAToManyAsFetchsDoes() throws {
    let dir = TestSupport.temporaryFolder("model-cells")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let out = try TestSupport.run([
      "run", "--model", root, "--entity", "Note", "--rows", "300", "--sort", "folder.name asc, title asc",
      "--section", "folder.name", "--cell", "title, folder.name, tags.@count, tags.name", "--store", "sqlite",
      "--mode", "batched", "--scenario", "first_screen_cells", "--repetitions", "1", "--datasets", dir + "/datasets",
      "--out", dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    let queries = rows.first { $0.scenario.csv == "first_screen_cells" && $0.metric == Metric.queries }
    #expect((queries?.value ?? 0) > 2, "\(String(describing: queries))")
    let unknown = try TestSupport.run([
      "run", "--model", root, "--entity", "Note", "--rows", "300", "--cell", "tags.colour", "--datasets",
      dir + "/datasets", "--out", dir + "/unknown",
    ])
    #expect(unknown.status == 64 && unknown.stderr.contains("tags.@count, tags.name"), "\(unknown.stderr)")
  }

  /// Two versions of a model, measured at the same entity, rows and seed: compare judges the
  /// figures, naming the models, where two other stores' checksums would stop it.
  @Test func twoModelVersionsAreComparedAsTheModelsChange() throws {
    let dir = TestSupport.temporaryFolder("model-versions")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    for version in ["Notes 1", "Notes 2"] {
      let out = try TestSupport.run([
        "run", "--model", root, "--model-version", version, "--entity", "Note", "--rows", "1200", "--quick",
        "--store", "sqlite", "--datasets", "\(dir)/\(version)", "--out", "\(dir)/runs/\(version)",
      ])
      #expect(out.status == 0, "\(out.stderr)")
    }
    let compared = try TestSupport.run(["compare", "\(dir)/runs/Notes 1", "\(dir)/runs/Notes 2", "--format", "json"])
    #expect(compared.status != 3, "\(compared.stdout)")
    #expect(compared.stdout.contains("\"modelNote\" : \"The models differ (Note, 1,200 rows generated from model"))
    #expect(!compared.stdout.contains("\"refusal\""), "\(compared.stdout)")
  }

  /// A population file moves the NULL share and the fan-out where it says, and leaves the
  /// defaults elsewhere; one that names what the model lacks is one Error line, nothing written.
  @Test func aPopulationFileSetsNullSharesAndFanOuts() throws {
    let dir = TestSupport.temporaryFolder("model-population")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let population = dir + "/population.json"
    try Data(
      #"{"entities": {"Item": {"attributes": {"title": {"nullShare": 0.3}}, "relationships": {"folder": {"fanOut": 20}}}}}"#
        .utf8
    ).write(to: URL(fileURLWithPath: population))
    let out = try TestSupport.run([
      "generate", "--model", root, "--entity", "Item", "--rows", "20000", "--population", population, "--datasets",
      dir + "/datasets",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let files = TestSupport.listing(dir + "/datasets")
    let file = try #require(files.first { $0.hasPrefix("notes-item-20000-s1-p") && $0.hasSuffix(".coredata.sqlite") })
    let db = try DatabaseQueue(path: dir + "/datasets/" + file)
    let (folders, titles, bodies) = try db.read { db in
      (
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ZFOLDER") ?? 0,
        try Double.fetchOne(db, sql: "SELECT avg(ZTITLE IS NULL) FROM ZITEM") ?? 0,
        try Double.fetchOne(db, sql: "SELECT avg(ZBODY IS NULL) FROM ZITEM WHERE Z_ENT = 3") ?? 0
      )
    }
    #expect(abs(Double(folders) - 1_000) <= 50, "fan-out 20: \(folders) folders for 20,000 items")
    #expect(abs(titles - 0.3) <= 0.01, "title NULL share \(titles)")
    #expect(abs(bodies - 0.1) <= 0.01, "the default elsewhere: body NULL share \(bodies)")
    for (bad, message) in [
      (#"{"entities": {"Page": {"rows": 5}}}"#, "names the entity Page, which the model lacks"),
      (#"{"entities": {"Item": {"rows": 5}}}"#, "sets the rows of Item, the list's entity: --rows sets them"),
      (#"{"entities": {"Item": {"attributes": {"created": {"nullShare": 0.2}}}}}"#, "gives Item.created nullShare"),
      (#"{"entities": {"Folder": {"colour": 1}}}"#, "gives Folder the key colour"),
    ] {
      try Data(bad.utf8).write(to: URL(fileURLWithPath: population))
      let refused = try TestSupport.run([
        "generate", "--model", root, "--entity", "Item", "--rows", "200", "--population", population, "--datasets",
        dir + "/refused",
      ])
      #expect(refused.status == 1 && refused.stderr.contains(message), "\(bad): \(refused.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/refused"), "nothing written for \(bad)")
    }
  }

  /// A population file's distinct count, range, length and skew shape the values where it says:
  /// at most that many values, within the range and lengths, the commonest of a Zipf law's
  /// share (1 / H(50, 1) = 22.2 %) within a percentage point; a setting on a type it does not
  /// apply to is refused; the README's example file is read.
  @Test func aPopulationFileShapesDistinctValuesRangesLengthsAndSkew() throws {
    let dir = TestSupport.temporaryFolder("model-population-shapes")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let population = dir + "/population.json"
    try Data(
      #"""
      {"entities": {"Item": {"attributes": {
        "title": {"nullShare": 0, "distinct": 50, "skew": 1, "length": [10, 20]},
        "created": {"distinct": 1000, "range": [700000000, 700086400]}}}}}
      """#.utf8
    ).write(to: URL(fileURLWithPath: population))
    let out = try TestSupport.run([
      "generate", "--model", root, "--entity", "Item", "--rows", "20000", "--population", population, "--datasets",
      dir + "/datasets",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let file = try #require(TestSupport.listing(dir + "/datasets").first { $0.hasSuffix(".coredata.sqlite") })
    let db = try DatabaseQueue(path: dir + "/datasets/" + file)
    try db.read { db in
      let titles = try Row.fetchOne(
        db,
        sql: """
          SELECT count(DISTINCT ZTITLE) AS n, min(length(ZTITLE)) AS shortest, max(length(ZTITLE)) AS longest,
                 sum(ZTITLE IS NULL) AS nulls, count(*) AS total FROM ZITEM
          """)!
      #expect((titles["n"] as Int) == 50 && (titles["nulls"] as Int) == 0, "\(titles)")
      #expect((titles["shortest"] as Int) >= 10 && (titles["longest"] as Int) <= 20, "\(titles)")
      let commonest = try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM GROUP BY ZTITLE ORDER BY 1 DESC LIMIT 1")!
      let share = Double(commonest) / Double(titles["total"] as Int)
      let zipf = 1 / (1...50).reduce(0.0) { $0 + 1 / Double($1) }
      #expect(abs(share - zipf) <= 0.01, "the commonest title's share \(share), Zipf's \(zipf)")
      let created = try Row.fetchOne(
        db, sql: "SELECT count(DISTINCT ZCREATED) AS n, min(ZCREATED) AS least, max(ZCREATED) AS most FROM ZITEM")!
      #expect((created["n"] as Int) == 1000, "\(created)")
      #expect((created["least"] as Double) == 700_000_000 && (created["most"] as Double) == 700_086_400, "\(created)")
    }
    let readme = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let documented = readme.components(separatedBy: "**`--population FILE`**")[1].components(separatedBy: "```json\n")[
      1
    ]
    .components(separatedBy: "```")[0]
    try Data(documented.utf8).write(to: URL(fileURLWithPath: population))
    let example = try TestSupport.run([
      "generate", "--model", root, "--entity", "Item", "--rows", "2000", "--population", population, "--datasets",
      dir + "/documented",
    ])
    #expect(example.status == 0, "the README's population file: \(example.stderr)")
    for (bad, message) in [
      (
        #"{"entities": {"Note": {"attributes": {"pinned": {"distinct": 2}}}}}"#,
        "gives Note.pinned the setting distinct"
      ),
      (#"{"entities": {"Item": {"attributes": {"title": {"range": [1, 2]}}}}}"#, "String attributes take nullShare,"),
      (#"{"entities": {"Item": {"attributes": {"title": {"skew": 1}}}}}"#, "beside distinct"),
      (#"{"entities": {"Item": {"attributes": {"created": {"range": [5, 1]}}}}}"#, "the least first"),
    ] {
      try Data(bad.utf8).write(to: URL(fileURLWithPath: population))
      let refused = try TestSupport.run([
        "generate", "--model", root, "--entity", "Item", "--rows", "200", "--population", population, "--datasets",
        dir + "/refused",
      ])
      #expect(refused.status == 1 && refused.stderr.contains(message), "\(bad): \(refused.stderr)")
    }
  }

  /// A gate matrix's list named by the model: its store generated into the datasets folder,
  /// recorded and judged by exact counters like a database's list; a model list without an
  /// entity, or with relationships of its own, is refused before anything is measured.
  @Test func aGateMatrixListsAModelsEntity() throws {
    let dir = TestSupport.temporaryFolder("model-gate")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let matrix = dir + "/lists.json"
    try Data(
      #"{"repetitions": 3, "lists": [{"model": "\#(root)", "entity": "Item", "rows": 2000, "sort": "created desc"}]}"#
        .utf8
    ).write(to: URL(fileURLWithPath: matrix))
    let common = ["check", "--matrix", matrix, "--datasets", dir + "/datasets"]
    let record = try TestSupport.run(common + ["--update", "--update-runs", "1"])
    #expect(record.status == 0, "\(record.stdout)\(record.stderr)")
    #expect(TestSupport.listing(dir + "/datasets").contains("notes-item-2000-s1.coredata.sqlite"))
    let judged = try TestSupport.run(common)
    #expect(
      judged.status == 0 || judged.stdout.contains("not judged: busy machine"), "\(judged.stdout)\(judged.stderr)")
    #expect(judged.stdout.contains("# fetchbench check: Item (2,000 rows); batch size 20"), "\(judged.stdout)")
    #expect(
      judged.stdout.contains("| `Item/sqlite/first_screen/batched/rows_materialized` | counter | 20 | 20 |"),
      "\(judged.stdout)")
    for (list, message) in [
      (#"{"model": "\#(root)", "rows": 2000}"#, #""model" needs "entity""#),
      (#"{"model": "\#(root)", "entity": "Item", "relationships": {"a": "B"}}"#, "a model declares its own"),
      (#"{"db": "x.sqlite", "entity": "Item", "population": "p.json"}"#, #"go with "model""#),
      (#"{"model": "\#(root)", "db": "x.sqlite", "entity": "Item"}"#, #"give one of "dataset", "db" and "model""#),
    ] {
      try Data(#"{"lists": [\#(list)]}"#.utf8).write(to: URL(fileURLWithPath: matrix))
      let refused = try TestSupport.run(common)
      #expect(refused.status == 1 && refused.stderr.contains(message), "\(list): \(refused.stderr)")
    }
  }

  /// Two lists of one database (a root entity and its sub-entity) load the same tables into
  /// PostgreSQL: each load takes the other's tables as FetchBench's, and reads its own rows.
  @Test func twoListsOfOneDatabaseShareItsTablesOnPostgreSQL() throws {
    try TestSupport.requirePostgresServer()
    let dir = TestSupport.temporaryFolder("model-two-lists")
    defer { TestSupport.remove(dir) }
    let (out, path) = try Self.generate(dir)
    #expect(out.status == 0, "\(out.stderr)")
    let url = try TestDatabases.create("model_two_lists")
    let db = try DatabaseQueue(path: path)
    for entity in ["Item", "Note", "Item"] {
      let filter = entity == "Note" ? "WHERE Z_ENT = 3 " : ""
      let expected = try db.read { db in
        try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM \(filter)ORDER BY ZTITLE, Z_PK")
      }.map(String.init)
      let fetched = try TestSupport.run([
        "fetch", "--db", path, "--entity", entity, "--sort", "title asc", "--store", "postgres", "--ids",
        "--postgres-url", "\(url)",
      ])
      #expect(
        fetched.status == 0 && fetched.stdout.split(separator: "\n").map(String.init) == expected,
        "\(entity): \(fetched.stderr)")
    }
  }

  /// A list whose order the model's fetch index gives: the answer names it, from the ID
  /// query's plan with no index added (its elements, created and title, cover the ID query of
  /// a sort by title too); a sub-entity's list by its body says no statement reads it.
  @Test func theAnswerNamesTheModelsFetchIndexTheListReadsThrough() throws {
    let dir = TestSupport.temporaryFolder("model-fetch-index")
    defer { TestSupport.remove(dir) }
    let root = try ModelFiles.package(dir)
    let out = try TestSupport.run([
      "run", "--model", root, "--entity", "Item", "--rows", "1200", "--sort", "created desc, title asc", "--recommend",
      "--store", "sqlite", "--datasets", dir + "/datasets", "--out", dir + "/run",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    #expect(out.stdout.contains("Its ID query reads through the model's fetch index Z_Item_byCreated"), "\(out.stdout)")
    #expect(!out.stdout.contains("read by none of this list's statements"), "\(out.stdout)")
    let byBody = try TestSupport.run([
      "run", "--model", root, "--entity", "Note", "--rows", "1200", "--sort", "body asc", "--recommend",
      "--store", "sqlite", "--datasets", dir + "/datasets", "--out", dir + "/by-body",
    ])
    #expect(byBody.status == 0, "\(byBody.stderr)")
    #expect(
      byBody.stdout.contains(
        "The model's fetch index Z_Item_byCreated is read by none of this list's statements the index advice measured"),
      "\(byBody.stdout)")
    #expect(IndexPick.fetchIndex(in: "SCAN t0 USING COVERING INDEX Z_Item_byCreated (ZTITLE>?)") == "Z_Item_byCreated")
    #expect(IndexPick.fetchIndex(in: "SEARCH t0 USING INDEX ZITEM_ZFOLDER_INDEX (ZFOLDER=?)") == nil)
    #expect(IndexPick.fetchIndex(in: "SCAN t0; USE TEMP B-TREE FOR ORDER BY") == nil)
  }

  /// A sub-entity's list holds its rows alone, told apart in its tree's table by Z_ENT as
  /// Core Data's fetch of it filters (`WHERE t0.Z_ENT = ?`), a user's predicate ANDed to it.
  @Test func aSubentitysListHoldsItsRowsAloneAsCoreDataFiltersThem() throws {
    let dir = TestSupport.temporaryFolder("model-subentity")
    defer { TestSupport.remove(dir) }
    let (out, path) = try Self.generate(dir)
    #expect(out.status == 0, "\(out.stderr)")
    let db = try DatabaseQueue(path: path)
    let note = "(SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note')"
    for (predicate, condition) in [(nil, ""), ("pinned == 1", " AND ZPINNED = 1")] as [(String?, String)] {
      let expected = try db.read { db in
        try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM WHERE Z_ENT = \(note)\(condition) ORDER BY ZTITLE, Z_PK")
      }.map(String.init)
      let all = try db.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM") } ?? 0
      #expect(!expected.isEmpty && expected.count < all, "the table holds other entities' rows too")
      for store in ["memory", "sqlite", "sqlite-coredata"] {
        for strategy in ["full", "batched", "offset", "keyset"] {
          let fetched = try TestSupport.run(
            [
              "fetch", "--db", path, "--entity", "Note", "--sort", "title asc", "--store", store, "--strategy",
              strategy,
            ]
              + (predicate.map { ["--where", $0] } ?? []) + ["--ids"])
          #expect(
            fetched.status == 0 && fetched.stdout.split(separator: "\n").map(String.init) == expected,
            "\(predicate ?? "") \(store) \(strategy): \(fetched.stderr)")
        }
      }
    }
    let logged = try TestSupport.run([
      "fetch", "--db", path, "--entity", "Note", "--sort", "title asc", "--plan", "coredata", "--sql-debug", "--ids",
    ])
    #expect(logged.stderr.contains("FROM ZITEM t0 WHERE t0.Z_ENT = ? ORDER BY t0.ZTITLE"), "\(logged.stderr)")
    let notes = try db.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM WHERE Z_ENT = \(note)") } ?? 0
    let described = try TestSupport.run(["describe", "--db", path])
    #expect(
      described.stdout.contains("Note (Z_ENT 3): \(notes.grouped) rows")
        && described.stdout.contains("Sketch (Z_ENT 4)"),
      "\(described.stdout)")
    // A run names the list by its entity's rows, not its table's.
    let ran = try TestSupport.run([
      "run", "--db", path, "--entity", "Note", "--sort", "title asc", "--store", "sqlite", "--mode", "batched",
      "--scenario", "first_screen", "--repetitions", "1", "--out", dir + "/run",
    ])
    #expect(ran.status == 0, "\(ran.stderr)")
    let report = try String(contentsOfFile: dir + "/run/report.md", encoding: .utf8)
    #expect(report.contains("## Note, \(notes.grouped) rows, your list"), "\(report.prefix(600))")
  }
}

/// The README's "Your app's model" section, as a user copies it, on the test's model named
/// `MyApp.xcdatamodeld` (at 2,000 rows for the test's time).
@Suite struct DocumentedModelSection {
  @Test func theModelSectionRuns() throws {
    let dir = TestSupport.temporaryFolder("model-section")
    defer { TestSupport.remove(dir) }
    try FileManager.default.moveItem(atPath: try ModelFiles.package(dir), toPath: dir + "/MyApp.xcdatamodeld")
    let readme = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let block = readme.components(separatedBy: "## Your app's model")[1].components(separatedBy: "```sh\n")[1]
      .components(separatedBy: "```")[0]
    let commands = block.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
      .filter { $0.hasPrefix(".build/release/fetchbench ") }
      .map { String($0.dropFirst(".build/release/fetchbench ".count)).replacingOccurrences(of: "100000", with: "2000") }
    #expect(commands.count == 3, "\(commands)")
    var outputs: [String] = []
    for command in commands {
      let out = try TestSupport.run(DocumentedCommands.words(command), currentDirectory: dir)
      #expect(
        out.status == 0 && !out.stderr.contains("FAILED"),
        "fetchbench \(command): \(out.stderr)\(out.stdout.prefix(3000))")
      outputs.append(out.stdout)
    }
    #expect(outputs[0].contains("CREATE TABLE ZITEM ("), "\(outputs[0])")
    #expect(outputs[1].contains("wrote datasets/myapp-item-2000-s1.coredata.sqlite"), "\(outputs[1])")
    #expect(outputs[2].contains("Item at 2,000 rows, SQLite, tuned statements: "), "\(outputs[2])")
  }
}

/// Relationships Core Data allows that are easy to get wrong: rules that cascade both ways, a
/// many-to-many that is its own inverse.
extension ModelFiles {
  /// A model folder `NAME.xcdatamodel` in `dir` holding `entities` (their XML). Returns its path.
  static func writeModel(_ dir: String, _ name: String, entities: String) throws -> String {
    let model = "\(dir)/\(name).xcdatamodel"
    try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
    try """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
    \(entities)
    </model>
    """.write(toFile: model + "/contents", atomically: true, encoding: .utf8)
    return model
  }

  /// A one-to-one whose two sides both cascade: a save that deletes a note deletes its folder,
  /// whose rule leads back to the note; each object is deleted once, and an edit that deletes
  /// or changes an object the cascade already removed is dropped, as a context drops it. The
  /// diff's transactions of 100 at 300 rows reach such objects for this seed.
  @Test func deleteRulesThatCascadeBothWaysDeleteEachObjectOnce() throws {
    let dir = TestSupport.temporaryFolder("cascade")
    defer { TestSupport.remove(dir) }
    let model = try ModelFiles.writeModel(
      dir, "Cascade",
      entities: """
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="folder" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="Folder" inverseName="note" inverseEntity="Folder"/>
        </entity>
        <entity name="Folder" representedClassName="Folder" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="note" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
        </entity>
        """)
    let out = try TestSupport.run([
      "diff", "--model", model, "--entity", "Note", "--rows", "300", "--sort", "title asc", "--store", "sqlite",
      "--k", "10,100", "--repetitions", "1", "--sections", "none", "--datasets", dir + "/datasets", "--out",
      dir + "/out",
    ])
    #expect(out.status == 0, "\(out.stderr)")
    let rows = try ResultsCSV.decode(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8))
    #expect(rows.filter { $0.status == .failed }.isEmpty, "\(rows.filter { $0.status == .failed }.map(\.error))")
    let measured = Set(rows.filter { $0.isOK && $0.metric == .changeSetSize }.map(\.scenario.csv))
    #expect(measured == ["diff_k10", "diff_k100", "diff_edit10"], "\(out.stdout)")
  }

  /// A many-to-many that is its own inverse (valid in Core Data): one join table whose second
  /// column is REFLEXIVE, each pair held both ways; the model's list, and the store read with
  /// `--db`, find the same rows through it on every embedded store.
  @Test func aManyToManyThatIsItsOwnInverseIsGeneratedAndRead() throws {
    let dir = TestSupport.temporaryFolder("reflexive")
    defer { TestSupport.remove(dir) }
    let model = try ModelFiles.writeModel(
      dir, "People",
      entities: """
        <entity name="Person" representedClassName="Person" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="friends" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="friends" inverseEntity="Person"/>
        </entity>
        """)
    let generated = try TestSupport.run([
      "generate", "--model", model, "--entity", "Person", "--rows", "300", "--datasets", dir + "/datasets",
    ])
    #expect(generated.status == 0, "\(generated.stderr)")
    let file = try #require(TestSupport.listing(dir + "/datasets").first { $0.hasSuffix(".coredata.sqlite") })
    let (columns, pairs, oneWay) = try DatabaseQueue(path: "\(dir)/datasets/\(file)").read { db in
      (
        try db.columns(in: "Z_1FRIENDS").map(\.name),
        try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_1FRIENDS") ?? 0,
        try Int.fetchOne(
          db,
          sql: """
            SELECT count(*) FROM Z_1FRIENDS a WHERE NOT EXISTS \
            (SELECT 1 FROM Z_1FRIENDS b WHERE b.Z_1FRIENDS = a.REFLEXIVE AND b.REFLEXIVE = a.Z_1FRIENDS)
            """) ?? -1
      )
    }
    #expect(columns == ["Z_1FRIENDS", "REFLEXIVE"])
    #expect(pairs > 0 && oneWay == 0, "\(pairs) pairs, \(oneWay) held one way only")
    let list = ["--entity", "Person", "--sort", "name asc", "--where", "friends.@count > 2", "--ids"]
    var answers: [String] = []
    for store in ["sqlite", "memory"] {
      for source in [
        ["--model", model, "--rows", "300", "--datasets", dir + "/datasets"], ["--db", "\(dir)/datasets/\(file)"],
      ] {
        let out = try TestSupport.run(["fetch"] + source + ["--store", store] + list)
        #expect(out.status == 0, "\(store) \(source[0]): \(out.stderr)")
        answers.append(out.stdout)
      }
    }
    #expect(Set(answers).count == 1 && !answers[0].isEmpty, "\(answers.map { $0.prefix(80) })")
  }
}
