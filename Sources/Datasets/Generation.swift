import Catalog
import Foundation
import GRDB

/// What `fetchbench generate` is asked to produce.
public struct GenerationRequest: Sendable {
  public var datasets: [DatasetKind]
  public var rows: Int
  public var seed: UInt64
  public var outDirectory: String
  public var writeSQLite: Bool
  public var writeCSV: Bool
  /// Indexes to add (beyond primary keys and UNIQUE constraints), by `IndexSpec` tag: a
  /// column name, or columns of one table joined by `+`.
  public var indexes: [String]
  /// Keep a dataset that already exists instead of writing it again.
  public var ifMissing: Bool
  /// How a kept dataset is checked against its manifest entry.
  public var verification = Verification.rowCounts

  /// What is read back from a dataset that `ifMissing` keeps.
  public enum Verification: Sendable {
    /// Each table's row count: milliseconds; a mismatch is an error.
    case rowCounts
    /// Every row, hashed as the generator hashed it (O(rows)); a mismatch is an error.
    case contents
    /// Every row; a mismatch is returned (the result's `entry` is the file's, and
    /// `verifiedAgainstManifest` false) for a caller that judges it, as the gate does.
    case contentsReported
  }

  public init(
    datasets: [DatasetKind] = DatasetKind.allCases, rows: Int = DatasetKind.defaultRows,
    seed: UInt64 = 1, outDirectory: String = "datasets", writeSQLite: Bool = true,
    writeCSV: Bool = true, indexes: [String] = [], ifMissing: Bool = false
  ) {
    self.datasets = datasets
    self.rows = rows
    self.seed = seed
    self.outDirectory = outDirectory
    self.writeSQLite = writeSQLite
    self.writeCSV = writeCSV
    self.indexes = indexes
    self.ifMissing = ifMissing
  }

  /// Checks the request before anything is written.
  public func validate() throws {
    guard (1...DatasetKind.maxRows).contains(rows) else { throw DatasetError.invalidRows(rows) }
    for tag in indexes where !datasets.contains(where: { IndexSpec(tag: tag, in: $0) != nil }) {
      throw DatasetError.unknownIndexColumn(tag, datasets: datasets.map(\.rawValue))
    }
  }
}

/// What one dataset's generation produced.
public struct GeneratedDataset: Sendable {
  public var kind: DatasetKind
  public var sqlitePath: String?
  public var csvDirectory: String?
  public var entry: Manifest.Entry
  public var seconds: Double
  /// True when `ifMissing` found the dataset already there.
  public var skipped: Bool
  /// True when the manifest already had this dataset and the checksums are equal.
  public var verifiedAgainstManifest: Bool

  /// Rows written per second, all tables counted.
  public var rowsPerSecond: Double {
    Double(entry.tables.reduce(0) { $0 + $1.rows }) / max(seconds, 1e-9)
  }
}

/// Where datasets live: fixed names, so that other tools and later runs find them.
public enum DatasetPaths {
  /// `banks-244292`, with `-s7` for a seed other than 1.
  public static func baseName(_ kind: DatasetKind, rows: Int, seed: UInt64) -> String {
    "\(kind.rawValue)-\(rows)" + (seed == 1 ? "" : "-s\(seed)")
  }

  /// `DIR/banks-244292.sqlite`; with indexes, `DIR/banks-244292.idx-close_date.sqlite`.
  public static func sqlite(
    in dir: String, _ kind: DatasetKind, rows: Int, seed: UInt64, indexes: [String] = []
  ) -> String {
    let suffix = indexes.isEmpty ? "" : ".idx-" + indexes.joined(separator: "-")
    return "\(dir)/\(baseName(kind, rows: rows, seed: seed))\(suffix).sqlite"
  }

  /// `DIR/banks-244292/`, holding one CSV per table.
  public static func csvDirectory(in dir: String, _ kind: DatasetKind, rows: Int, seed: UInt64)
    -> String
  { "\(dir)/\(baseName(kind, rows: rows, seed: seed))" }

  public static func manifest(in dir: String) -> String { "\(dir)/manifest.json" }
}

/// Generates datasets: streams rows into SQLite and CSV under temporary names, checks them
/// against the manifest, then, holding the folder's lock, records them in the manifest and
/// renames them into place.
public enum Generation {
  /// Runs a request. Memory is O(1) in the row count; time is O(rows).
  public static func run(_ request: GenerationRequest, progress: ProgressLine? = nil) throws
    -> [GeneratedDataset]
  {
    try request.validate()
    let out = request.outDirectory
    try prepareDirectory(out)
    let manifestPath = DatasetPaths.manifest(in: out)
    var results: [GeneratedDataset] = []
    for kind in request.datasets {
      // Read again for each dataset: another process may have recorded one meanwhile.
      let manifest = try Manifest.load(from: manifestPath)
      results.append(try generate(kind, request, manifest: manifest, progress: progress))
    }
    return results
  }

  /// Holding the folder's lock: records `entry` in the manifest as it is now (merged with what
  /// other processes recorded), then renames the finished files into place. In that order, an
  /// interrupt between the two leaves an entry whose files are missing, which the next run
  /// generates again, never a finished file that the manifest does not record (which would be
  /// refused as the user's ever after). A file that appeared at a path meanwhile without an
  /// entry is the user's: nothing is recorded or replaced. O(manifest).
  private static func record(
    _ entry: Manifest.Entry, label: String, in out: String, files: [(tmp: String?, path: String?)]
  ) throws {
    let manifestPath = DatasetPaths.manifest(in: out)
    var manifest = try Manifest.load(from: manifestPath)
    let recorded = manifest.entry(entry.dataset, rows: entry.rows, seed: entry.seed)
    if let recorded, recorded.sha256 != entry.sha256 {
      throw DatasetError.checksumMismatch(dataset: label, table: "all", expected: recorded.sha256, actual: entry.sha256)
    }
    for (tmp, path) in files {
      guard tmp != nil, let path else { continue }
      if recorded == nil && (FileManager.default.fileExists(atPath: path) || DatasetFile.isSymbolicLink(path)) {
        throw DatasetError.foreignFile(path: path, manifest: manifestPath)
      }
    }
    if recorded == nil {
      manifest.upsert(entry)
      try manifest.save(to: manifestPath)
    }
    for (tmp, path) in files {
      guard let tmp, let path else { continue }
      try AtomicFile.commit(tmp, to: path)
    }
  }

  private static func prepareDirectory(_ path: String) throws {
    do {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
      throw DatasetError.cannotWrite(path: path, reason: AtomicFile.describe(error))
    }
    guard access(path, W_OK) == 0 else {
      throw DatasetError.cannotWrite(path: path, reason: "the folder is not writable")
    }
  }

  private static func generate(
    _ kind: DatasetKind, _ request: GenerationRequest, manifest: Manifest, progress: ProgressLine?
  ) throws -> GeneratedDataset {
    let (rows, seed, out) = (request.rows, request.seed, request.outDirectory)
    let tables = kind.tables
    let indexes = request.indexes.compactMap { IndexSpec(tag: $0, in: kind) }
    let sqlitePath =
      request.writeSQLite
      ? DatasetPaths.sqlite(in: out, kind, rows: rows, seed: seed, indexes: indexes.map(\.tag))
      : nil
    let csvDir =
      request.writeCSV ? DatasetPaths.csvDirectory(in: out, kind, rows: rows, seed: seed) : nil
    let expected = manifest.entry(kind, rows: rows, seed: seed)

    try checkOwnPaths(sqlitePath: sqlitePath, csvDir: csvDir, recorded: expected != nil, in: out)
    let exists = { (path: String?) in path.map { FileManager.default.fileExists(atPath: $0) } ?? false }
    if request.ifMissing, let expected, [sqlitePath, csvDir].allSatisfy({ $0 == nil || exists($0) }) {
      return try kept(kind, request, expected: expected, sqlitePath: sqlitePath, csvDir: csvDir)
    }

    let sqliteTmp = try sqlitePath.map(AtomicFile.createTemporaryFile(for:))
    defer { sqliteTmp.map(AtomicFile.discard) }
    let csvTmp = try csvDir.map(AtomicFile.createTemporaryFolder(for:))
    defer { csvTmp.map(AtomicFile.discard) }

    let start = DispatchTime.now()
    let label = DatasetPaths.baseName(kind, rows: rows, seed: seed)
    let entry = try writing(label, in: out) {
      try write(
        kind, tables, seed: seed, rows: rows, indexes: indexes, sqliteTmp: sqliteTmp, csvTmp: csvTmp, progress: progress
      )
    }
    if let expected {
      for (e, a) in zip(expected.tables, entry.tables) where e.sha256 != a.sha256 {
        throw DatasetError.checksumMismatch(
          dataset: label, table: a.table, expected: e.sha256, actual: a.sha256)
      }
    }
    try FolderLock.withLock(out, progress: progress) {
      try record(entry, label: label, in: out, files: [(sqliteTmp, sqlitePath), (csvTmp, csvDir)])
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    return GeneratedDataset(
      kind: kind, sqlitePath: sqlitePath, csvDirectory: csvDir, entry: entry, seconds: seconds,
      skipped: false, verifiedAgainstManifest: expected != nil)
  }

  /// Throws unless the dataset's paths are FetchBench's to write: a SQLite file or a folder of
  /// CSV files the manifest records (`recorded`), never a symbolic link.
  private static func checkOwnPaths(sqlitePath: String?, csvDir: String?, recorded: Bool, in out: String) throws {
    let manifestPath = DatasetPaths.manifest(in: out)
    // A dataset's paths are FetchBench's only when the manifest records the dataset and each
    // is what FetchBench writes there (a SQLite file, a folder of CSV files): anything else,
    // a symbolic link included, is the user's and is neither read through nor replaced.
    for path in [sqlitePath, csvDir].compactMap({ $0 }) where DatasetFile.isSymbolicLink(path) {
      throw DatasetError.notADataset(
        path: path, reason: "it is a symbolic link, and FetchBench does not replace it; move it away and run again")
    }
    if let sqlitePath, try DatasetFile.checkReadable(sqlitePath) {
      guard recorded else { throw DatasetError.foreignFile(path: sqlitePath, manifest: manifestPath) }
      guard DatasetFile.isSQLite(sqlitePath) else {
        throw DatasetError.notADataset(
          path: sqlitePath,
          reason:
            "it is not a SQLite database, and FetchBench does not replace it; move it away (or delete it) and run again"
        )
      }
    }
    let exists = { (path: String?) in path.map { FileManager.default.fileExists(atPath: $0) } ?? false }
    if exists(csvDir), let csvDir, !recorded {
      throw DatasetError.foreignFile(path: csvDir + "/", manifest: manifestPath)
    }
  }

  /// The dataset as it is on disk (`ifMissing`), checked against its manifest entry as the
  /// request's verification says.
  private static func kept(
    _ kind: DatasetKind, _ request: GenerationRequest, expected: Manifest.Entry, sqlitePath: String?, csvDir: String?
  ) throws -> GeneratedDataset {
    let (rows, seed) = (request.rows, request.seed)
    var entry = expected
    if let sqlitePath {
      let checksums = request.verification != .rowCounts
      let actual =
        checksums
        ? try DatasetFile.entry(sqlitePath, kind, rows: rows, seed: seed).tables
        : zip(expected.tables, try DatasetFile.rowCounts(sqlitePath, kind)).map { e, count in
          Manifest.Table(table: e.table, rows: count, csv: e.csv, sha256: e.sha256)
        }
      if let detail = DatasetFile.difference(actual, expected, checksums: checksums) {
        guard request.verification == .contentsReported else {
          throw DatasetError.doesNotMatchManifest(path: sqlitePath, detail: detail)
        }
        entry = Manifest.Entry(
          dataset: kind, rows: rows, seed: seed, sha256: Manifest.combined(actual), tables: actual)
      }
    }
    return GeneratedDataset(
      kind: kind, sqlitePath: sqlitePath, csvDirectory: csvDir, entry: entry, seconds: 0,
      skipped: true, verifiedAgainstManifest: entry == expected)
  }

  /// Generates the rows into the temporary SQLite file and CSV folder (either may be nil)
  /// and returns the dataset's entry: its checksums. O(rows).
  private static func write(
    _ kind: DatasetKind, _ tables: [TableSchema], seed: UInt64, rows: Int, indexes: [IndexSpec], sqliteTmp: String?,
    csvTmp: String?,
    progress: ProgressLine?
  ) throws -> Manifest.Entry {
    let csv = try tables.map { t in
      try CSVWriter(table: t, path: csvTmp.map { "\($0)/\(t.name).csv" })
    }
    let generator = try DatasetGenerator(kind: kind, rows: rows, seed: seed)
    let label = DatasetPaths.baseName(kind, rows: rows, seed: seed)
    var row: [FieldValue] = []
    row.reserveCapacity(16)

    // Table by table, referenced table first: foreign keys hold at every insert.
    func stream(into sqlite: SQLiteWriter?) throws {
      let total = rows * tables.count
      for t in tables.indices {
        for id in 1...rows {
          generator.fill(table: t, id: id, into: &row)
          try csv[t].write(row)
          try sqlite?.write(table: t, row)
          if id & 0xFFF == 0 { progress?.update(label, done: t * rows + id, total: total) }
        }
      }
      progress?.update(label, done: total, total: total)
    }

    if let sqliteTmp {
      let queue: DatabaseQueue
      do {
        queue = try DatabaseQueue(path: sqliteTmp)
      } catch {
        throw DatasetError.cannotWrite(path: sqliteTmp, reason: "\(error)")
      }
      try queue.inDatabase { db in
        let writer = try SQLiteWriter(db: db, tables: tables)
        do {
          try stream(into: writer)
          try writer.finish(indexes: indexes)
        } catch {
          if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
          throw error
        }
      }
      try queue.close()
    } else {
      try stream(into: nil)
    }
    progress?.finish()

    let tableEntries = try zip(tables, csv).map { table, writer in
      Manifest.Table(
        table: table.name, rows: rows,
        csv: "\(DatasetPaths.baseName(kind, rows: rows, seed: seed))/\(table.name).csv",
        sha256: try writer.finish())
    }
    return Manifest.Entry(
      dataset: kind, rows: rows, seed: seed, sha256: Manifest.combined(tableEntries),
      tables: tableEntries)
  }

  /// Runs `body`, naming the dataset and the reason in a failed write (`No space left on
  /// device`) instead of Foundation's or SQLite's words; nothing of it is kept.
  private static func writing<T>(_ label: String, in out: String, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as DatasetError {
      throw error
    } catch {
      throw DatasetError.cannotWrite(
        path: AtomicFile.normalized(out) + "/" + label, reason: AtomicFile.describe(error) + "; nothing of it was kept")
    }
  }
}
