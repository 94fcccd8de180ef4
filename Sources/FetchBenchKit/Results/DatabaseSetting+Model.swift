import DatasetStores
import ResultModel
import Vocabulary

extension DatabaseSetting {
  /// Reads the list's model from the file again, when the file is still there and unchanged,
  /// so that a report rendered anew names candidates and key paths as the run did; otherwise
  /// the report keeps to what the results recorded. O(file size): the file is hashed first.
  package func reregister(request: ListSpec?) {
    guard (try? list.database.sha256()) == sha256 else { return }
    _ = try? list.register(sort: request?.sortDescriptors, section: request?.section)
  }
}
