import Catalog
import Datasets
import FetchedResults
import Foundation
import GRDB
import TestSupport
import Testing

/// Generates the 10,000-row datasets once for the whole suite (CSV and SQLite).
final class GeneratedFixture: Sendable {
  static let shared = GeneratedFixture()
  let folder: String
  let results: [GeneratedDataset]

  init() {
    folder = TestSupport.temporaryFolder("gen")
    results = try! Generation.run(
      GenerationRequest(rows: 10_000, seed: 1, outDirectory: folder))
  }

  func sqlite(_ kind: DatasetKind) throws -> DatabaseQueue {
    var config = Configuration()
    config.readonly = true
    config.busyMode = .timeout(10)  // suites read the files in parallel
    return try DatabaseQueue(
      path: DatasetPaths.sqlite(in: folder, kind, rows: 10_000, seed: 1), configuration: config)
  }
}

@Suite struct Determinism {
  @Test func tenThousandRowChecksumsEqualTheCommittedManifest() throws {
    let committed = try TestSupport.committedManifest()
    for result in GeneratedFixture.shared.results {
      let expected = try #require(committed.entry(result.kind, rows: 10_000, seed: 1))
      #expect(result.entry == expected, "\(result.kind) differs from datasets/manifest.json")
    }
  }

  @Test func committedManifestHoldsTheDefaultSizes() throws {
    let committed = try TestSupport.committedManifest()
    for kind in DatasetKind.allCases {
      let entry = try #require(committed.entry(kind, rows: DatasetKind.defaultRows, seed: 1))
      #expect(entry.tables.count == kind.tables.count)
      #expect(entry.tables.allSatisfy { $0.rows == 244_292 && $0.sha256.count == 64 })
    }
  }

  @Test(arguments: DatasetKind.allCases)
  func sameSeedSameBytesOtherSeedOtherBytes(kind: DatasetKind) throws {
    let dir = TestSupport.temporaryFolder("seed")
    defer { TestSupport.remove(dir) }
    func checksum(seed: UInt64) throws -> String {
      let r = try Generation.run(
        GenerationRequest(
          datasets: [kind], rows: 2_000, seed: seed, outDirectory: dir, writeSQLite: false))
      return r[0].entry.sha256
    }
    let a = try checksum(seed: 7)
    // Without the manifest (and without the files, which FetchBench will not replace once
    // nothing records them), the same seed is generated again from nothing.
    try FileManager.default.removeItem(atPath: DatasetPaths.manifest(in: dir))
    try FileManager.default.removeItem(atPath: DatasetPaths.csvDirectory(in: dir, kind, rows: 2_000, seed: 7))
    let b = try checksum(seed: 7)
    let c = try checksum(seed: 8)
    #expect(a == b)
    #expect(a != c)
  }

  /// The SQLite file holds exactly the CSV's content: re-serializing its rows gives the
  /// manifest's checksum.
  @Test(arguments: DatasetKind.allCases)
  func sqliteContentEqualsCSVContent(kind: DatasetKind) throws {
    let db = try GeneratedFixture.shared.sqlite(kind)
    let entry = try #require(GeneratedFixture.shared.results.first { $0.kind == kind }).entry
    for (table, expected) in zip(kind.tables, entry.tables) {
      let writer = try CSVWriter(table: table, path: nil)
      try db.read { (db: Database) throws -> Void in
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(table.name) ORDER BY id")
        while let row = try rows.next() {
          let fields: [FieldValue] = (0..<row.count).map { i in
            switch row[i] as DatabaseValue? {
            case .none: return .null
            case .some(let v):
              switch v.storage {
              case .null: return .null
              case .int64(let x): return .integer(x)
              case .double(let x): return .real(x)
              case .string(let x): return .text(x)
              case .blob: return .null
              }
            }
          }
          try writer.write(fields)
        }
      }
      #expect(try writer.finish() == expected.sha256, "\(table.name)")
    }
  }
}

@Suite struct SchemaAndContent {
  @Test(arguments: DatasetKind.allCases)
  func schemaMatchesTheContract(kind: DatasetKind) throws {
    let expected: [String: [String]] = [
      "failed_bank_info": ["id", "name", "city", "state"],
      "failed_bank_details": [
        "id", "info_id", "close_date", "updated_date", "zip", "cert", "acquiring_institution", "fund",
      ],
      "wells": [
        "id", "api_number", "well_name", "operator", "field", "county", "state", "latitude",
        "longitude", "spud_date", "status", "well_type", "total_depth",
      ],
    ]
    try GeneratedFixture.shared.sqlite(kind).read { (db: Database) throws -> Void in
      for table in kind.tables {
        let columns = try db.columns(in: table.name)
        #expect(columns.map(\.name) == expected[table.name])
        for c in columns {
          let spec = try #require(table.column(c.name))
          #expect(c.type == spec.type.sqlType, "\(table.name).\(c.name)")
          #expect(c.isNotNull == !spec.nullable || c.name == "id", "\(table.name).\(c.name)")
        }
        #expect(try db.primaryKey(table.name).columns == ["id"])
      }
      #expect(try db.indexes(on: kind.tables[0].name).allSatisfy { $0.isUnique })
    }
  }

  @Test(arguments: DatasetKind.allCases)
  func exactRowCounts(kind: DatasetKind) throws {
    try GeneratedFixture.shared.sqlite(kind).read { (db: Database) throws -> Void in
      for table in kind.tables {
        #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.name)") == 10_000)
        #expect(try Int.fetchOne(db, sql: "SELECT max(id) FROM \(table.name)") == 10_000)
      }
    }
  }

  @Test func banksAreOneToOne() throws {
    try GeneratedFixture.shared.sqlite(.banks).read { (db: Database) throws -> Void in
      let orphans = try Int.fetchOne(
        db,
        sql: """
          SELECT count(*) FROM failed_bank_details d
          LEFT JOIN failed_bank_info i ON i.id = d.info_id WHERE i.id IS NULL
          """)
      #expect(orphans == 0)
      #expect(try Int.fetchOne(db, sql: "SELECT count(DISTINCT info_id) FROM failed_bank_details") == 10_000)
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_foreign_key_check") == 0)
      // Details are not in info order: a join on info_id does real work.
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM failed_bank_details WHERE id = info_id")! < 100)
    }
  }

  @Test func apiNumbersAreUniqueAndWellFormed() throws {
    try GeneratedFixture.shared.sqlite(.wells).read { (db: Database) throws -> Void in
      #expect(try Int.fetchOne(db, sql: "SELECT count(DISTINCT api_number) FROM wells") == 10_000)
      let bad = try Int.fetchOne(
        db,
        sql: "SELECT count(*) FROM wells WHERE api_number NOT GLOB '[0-9][0-9]-[0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9]-[0-9][0-9]-00'")
      #expect(bad == 0)
    }
    // Uniqueness up to the largest size, from the generator directly.
    let g = try DatasetGenerator(kind: .wells, rows: DatasetKind.maxRows, seed: 1)
    var row: [FieldValue] = []
    var seen = Set<String>()
    for id in [1, 100_000, 100_001, 9_999_999, 10_000_000, 200_001] {
      g.fill(table: 0, id: id, into: &row)
      guard case .text(let api) = row[1] else {
        Issue.record("api_number not text")
        continue
      }
      let tail = api.split(separator: "-").dropFirst(2).joined(separator: "-")
      #expect(seen.insert(tail).inserted, "\(api)")
    }
  }

  @Test func infoIDIsABijection() {
    for rows in [1, 2, 10, 997, 1_000, 4_096] {
      let g = BankRows(rows: rows, seed: 3)
      let ids = Set((1...rows).map(g.infoID(forDetails:)))
      #expect(ids == Set(1...rows), "rows \(rows)")
    }
  }
}

@Suite struct Distributions {
  @Test func banksAreSkewedLikeTheFDICList() throws {
    try GeneratedFixture.shared.sqlite(.banks).read { (db: Database) throws -> Void in
      let states = try Row.fetchAll(
        db, sql: "SELECT state, count(*) AS n FROM failed_bank_info GROUP BY state ORDER BY n DESC")
      #expect(states.first?["state"] == "TX")
      let tx: Int = states[0]["n"]
      #expect((2_000...3_000).contains(tx), "Texas \(tx) of 10,000")
      #expect(states.count > 40)
      let smallest: Int = states.last!["n"]
      #expect(smallest * 20 < tx, "sections must be unequal")
      // Day resolution with failure waves: close_date has many ties.
      let distinct = try Int.fetchOne(db, sql: "SELECT count(DISTINCT close_date) FROM failed_bank_details")!
      #expect(distinct < 5_000)
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM failed_bank_details WHERE CAST(close_date AS INTEGER) % 86400 != 0") == 0)
      let wave1 = try Int.fetchOne(
        db,
        sql: "SELECT count(*) FROM failed_bank_details WHERE close_date BETWEEN strftime('%s','1985-12-25') AND strftime('%s','1994-01-01')"
      )!
      let wave2 = try Int.fetchOne(
        db,
        sql: "SELECT count(*) FROM failed_bank_details WHERE close_date BETWEEN strftime('%s','2007-12-25') AND strftime('%s','2014-01-01')"
      )!
      #expect((4_200...5_300).contains(wave1), "1986–1993 wave \(wave1)")
      #expect((3_200...4_200).contains(wave2), "2008–2013 wave \(wave2)")
      let fridays = try Int.fetchOne(
        db, sql: "SELECT count(*) FROM failed_bank_details WHERE strftime('%w', close_date, 'unixepoch') = '5'")!
      #expect(fridays > 8_000)
    }
  }

  @Test func wellsAreTexasOklahomaKansasHeavy() throws {
    try GeneratedFixture.shared.sqlite(.wells).read { (db: Database) throws -> Void in
      let top = try String.fetchAll(
        db, sql: "SELECT state FROM wells GROUP BY state ORDER BY count(*) DESC LIMIT 3")
      #expect(top == ["TX", "OK", "KS"])
      let spud = try Row.fetchOne(
        db,
        sql: "SELECT min(spud_date) AS lo, max(spud_date) AS hi, count(DISTINCT spud_date) AS d, sum(spud_date IS NULL) AS nulls FROM wells"
      )!
      let lo: Double = spud["lo"]
      let hi: Double = spud["hi"]
      #expect((hi - lo) / 86_400 / 365.25 > 95, "spud dates span a century")
      #expect((spud["d"] as Int) < 9_000, "spud_date has ties")
      #expect((200...600).contains(spud["nulls"] as Int))
      let latOK = try Int.fetchOne(db, sql: "SELECT count(*) FROM wells WHERE state = 'TX' AND latitude NOT BETWEEN 25.9 AND 37.0")
      #expect(latOK == 0)
    }
  }

  /// A bank's city lies in its state, and so does a city its name or its acquirer's carries
  /// ("First National Bank of Casper" is in Wyoming); a well's county lies in its state.
  @Test func placesLieInTheirStates() throws {
    try GeneratedFixture.shared.sqlite(.banks).read { (db: Database) throws -> Void in
      let rows = try Row.fetchAll(
        db,
        sql:
          "SELECT i.name, i.city, i.state, d.acquiring_institution AS acquirer FROM failed_bank_info i JOIN failed_bank_details d ON d.info_id = i.id"
      )
      #expect(rows.count == 10_000)
      for row in rows {
        let (name, city, state, acquirer): (String, String, String, String) = (row["name"], row["city"], row["state"], row["acquirer"])
        let cities = try #require(Places.cities[state], "\(state)")
        #expect(cities.contains(city), "\(city), \(state)")
        for text in [name, acquirer] {
          let named = Places.cities.values.joined().filter { text.hasSuffix(" of \($0)") }
          #expect(named.isEmpty || named.contains { cities.contains($0) }, "\(text) in \(state)")
        }
      }
    }
    try GeneratedFixture.shared.sqlite(.wells).read { (db: Database) throws -> Void in
      let pairs = try Row.fetchAll(db, sql: "SELECT DISTINCT county, state FROM wells")
      #expect(pairs.count > 50)
      for pair in pairs {
        let (county, state): (String, String) = (pair["county"], pair["state"])
        #expect(Places.counties[state]?.contains(county) == true, "\(county) County, \(state)")
      }
    }
  }
}

@Suite struct Formats {
  @Test func csvQuotesFieldsThatNeedIt() {
    var out: [UInt8] = []
    CSVWriter.appendQuoted("Bank of X, N.A.", to: &out)
    out.append(0x7C)
    CSVWriter.appendQuoted("say \"hi\"", to: &out)
    out.append(0x7C)
    CSVWriter.appendQuoted("plain", to: &out)
    #expect(String(decoding: out, as: UTF8.self) == "\"Bank of X, N.A.\"|\"say \"\"hi\"\"\"|plain")
  }

  @Test func isoDatesRoundTrip() {
    for days in stride(from: -800_000, through: 800_000, by: 997) {
      let (y, m, d) = CivilDate.date(days: days)
      #expect(CivilDate.days(year: y, month: m, day: d) == days)
    }
    var out: [UInt8] = []
    CivilDate.appendISO8601(seconds: 1_234_567_890, to: &out)
    #expect(String(decoding: out, as: UTF8.self) == "2009-02-13T23:31:30Z")
    #expect(ISO8601.parse("2009-02-13T23:31:30Z") == 1_234_567_890)
    #expect(ISO8601.parse("2009-01-01") == 1_230_768_000)
    #expect(ISO8601.parse("2009-02-30") == nil)
    #expect(ISO8601.parse("2009-2-3") == nil)
    #expect(CivilDate.weekday(days: 0) == 4)  // 1970-01-01 was a Thursday
  }

  @Test func randomIsUniformEnoughAndBounded() {
    var r = SeededRandom(seed: 42)
    var counts = [Int](repeating: 0, count: 7)
    for _ in 0..<70_000 { counts[Int(r.below(7))] += 1 }
    #expect(counts.allSatisfy { (9_500...10_500).contains($0) }, "\(counts)")
    // The sequence is part of the dataset contract.
    var fixed = SeededRandom(seed: 1)
    #expect(fixed.next() == 0x910A_2DEC_8902_5CC1)
  }
}
