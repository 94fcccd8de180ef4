import FetchedResults
import Foundation
import GRDB
import GRDBSQLite
import SQLQueries

/// Errors of the SQLite store, each naming the file.
public enum SQLiteStoreError: Error, CustomStringConvertible, Equatable {
  case missingFile(String)
  case notADatabase(String, String)
  case schemaMismatch(String, String)
  case query(String, String, String)
  case locked(String, String)

  public var description: String {
    switch self {
    case .missingFile(let p): "\(p): no such dataset file (run `fetchbench generate` first)"
    case .notADatabase(let p, let m): "\(p) is not a readable SQLite database: \(m)"
    case .schemaMismatch(let p, let m): "\(p) does not have the expected schema: \(m)"
    case .locked(let p, let m): "\(p) stayed locked by another connection for 10 s: \(m)"
    case .query(let p, let m, let sql): "\(p): query failed: \(m)\(sql.isEmpty ? "" : " (\(sql))")"
    }
  }
}
