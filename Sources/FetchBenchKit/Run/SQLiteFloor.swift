import Catalog
import DatasetStores
import Datasets
import FetchedResults
import GRDBSQLite
import SQLiteStore

/// The physical limit the engine is held against: the same SQL the SQLite store issues, run
/// through the raw SQLite C API with nothing on top.
enum Floor {
  /// A value read from a column, as plainly as the C API gives it.
  enum Raw {
    case null, integer(Int64), double(Double), text(String)
  }

  static func measure(_ spec: CaseSpec) throws -> CaseResult {
    let model = DatasetModels.model(for: spec.dataset)
    let request = try DatasetModels.defaultRequest(for: spec.dataset, batchSize: spec.batchSize).resolve(in: model)
    let sql = SQLiteStore.statements(for: request)
    guard sql.arguments.isEmpty else { throw HarnessError.invalidArgument("the floor runs requests without predicates") }
    // Opening checks the file exactly as the store does.
    _ = try spec.location.open(.sqlite)
    var db: OpaquePointer?
    guard sqlite3_open_v2(spec.location.sqlitePath, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
      throw HarnessError.invalidArgument("cannot open \(spec.location.sqlitePath)")
    }
    defer { sqlite3_close(db) }
    sqlite3_busy_timeout(db, 10_000)  // as the store: wait out another connection's checkpoint
    func prepare(_ text: String) throws -> OpaquePointer {
      var stmt: OpaquePointer?
      guard sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil) == SQLITE_OK, let stmt else {
        throw HarnessError.invalidArgument("floor: cannot prepare \(text): \(String(cString: sqlite3_errmsg(db)))")
      }
      return stmt
    }
    let idStmt = try prepare(sql.ids)
    let fullStmt = try prepare(sql.full)
    let batchSize = spec.batchSize
    let batchStmt = try prepare(sql.rowsByID(batchSize))
    defer { [idStmt, fullStmt, batchStmt].forEach { sqlite3_finalize($0) } }

    func ids() -> [Int64] {
      var out: [Int64] = []
      sqlite3_reset(idStmt)
      while sqlite3_step(idStmt) == SQLITE_ROW { out.append(sqlite3_column_int64(idStmt, 0)) }
      return out
    }
    func rows(_ stmt: OpaquePointer, into out: inout [[Raw]]) {
      let n = sqlite3_column_count(stmt)
      while sqlite3_step(stmt) == SQLITE_ROW {
        var row: [Raw] = []
        row.reserveCapacity(Int(n))
        for i in 0..<n {
          switch sqlite3_column_type(stmt, i) {
          case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(stmt, i)))
          case SQLITE_FLOAT: row.append(.double(sqlite3_column_double(stmt, i)))
          case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(stmt, i))))
          default: row.append(.null)
          }
        }
        out.append(row)
      }
    }
    let times = try Sampler.repeated(warmups: spec.warmups, repetitions: spec.repetitions) { _ in
      let (tIDs, all) = Sampler.wall { ids() }
      let tFull = Sampler.wall {
        var full: [[Raw]] = []
        sqlite3_reset(fullStmt)
        rows(fullStmt, into: &full)
        return full
      }.nanos
      // A scroll-through: every batch by one reused statement (the last, shorter batch by
      // its own), the rows of a batch read and then dropped.
      let tScroll = try Sampler.wall {
        var tailStmt: OpaquePointer?
        var batch: [[Raw]] = []
        var start = 0
        while start < all.count {
          let end = min(all.count, start + batchSize)
          let stmt: OpaquePointer
          if end - start == batchSize {
            stmt = batchStmt
          } else {
            tailStmt = try prepare(sql.rowsByID(end - start))
            stmt = tailStmt!
          }
          sqlite3_reset(stmt)
          for (k, id) in all[start..<end].enumerated() { sqlite3_bind_int64(stmt, Int32(k + 1), id) }
          batch.removeAll(keepingCapacity: true)
          rows(stmt, into: &batch)
          blackHole(batch)
          start = end
        }
        if let tailStmt { sqlite3_finalize(tailStmt) }
      }.nanos
      return (ids: Double(tIDs) / 1e6, full: Double(tFull) / 1e6, scroll: Double(tScroll) / 1e6)
    }
    return CaseResult(
      spec: spec,
      measurements: [
        Measurement(.floorIDs, Summary(times.map(\.ids))),
        Measurement(.floorFull, Summary(times.map(\.full))),
        Measurement(.floorScroll, Summary(times.map(\.scroll))),
      ], error: nil)
  }
}
