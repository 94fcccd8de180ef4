import Catalog
import TextFormatting

/// Errors of dataset generation and loading, each naming what is wrong and where.
public enum DatasetError: Error, CustomStringConvertible, Equatable {
  case invalidRows(Int)
  case unknownDataset(String)
  case unknownFormat(String)
  case unknownIndexColumn(String, datasets: [String])
  case cannotWrite(path: String, reason: String)
  case corruptManifest(path: String, reason: String)
  case checksumMismatch(dataset: String, table: String, expected: String, actual: String)
  /// A file where a dataset goes that FetchBench did not record writing.
  case foreignFile(path: String, manifest: String)
  /// A dataset file that is not what its manifest entry describes.
  case doesNotMatchManifest(path: String, detail: String)
  case notADataset(path: String, reason: String)
  /// A dataset kind that FetchBench reads but does not generate.
  case notGenerated(String)

  public var description: String {
    switch self {
    case .invalidRows(let n):
      "--rows must be between 1 and \(DatasetKind.maxRows.grouped), got \(n)"
    case .unknownDataset(let s):
      "unknown dataset '\(s)'; expected one of: \(DatasetKind.allCases.map(\.rawValue).joined(separator: ", ")), all"
    case .unknownFormat(let s): "unknown format '\(s)'; expected sqlite, csv, or sqlite,csv for both"
    case .unknownIndexColumn(let c, let ds):
      """
      cannot index '\(c)': no table of \(ds.joined(separator: ", ")) has such a column (several columns of one \
      table: a+b)
      """
    case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
    case .corruptManifest(let path, let reason): "the manifest \(path) is unreadable: \(reason)"
    case .foreignFile(let path, let manifest):
      """
      \(path) exists but \(manifest) has no entry for it: FetchBench does not replace a file it did not write. Move \
      it away (or delete it) and run again to generate the dataset there.
      """
    case .doesNotMatchManifest(let path, let detail):
      "\(path) does not match its manifest entry: \(detail). Delete it and run again to generate it anew."
    case .notADataset(let path, let reason): "\(path) is not a readable dataset: \(reason)"
    case .notGenerated(let kind):
      "\(kind) is read from its own database and cannot be generated; name the database with --db"
    case .checksumMismatch(let d, let t, let e, let a):
      """
      \(d) table \(t): SHA-256 \(a) differs from the manifest's \(e); the generator is no longer deterministic or \
      the manifest was edited. Nothing was replaced.
      """
    }
  }
}
