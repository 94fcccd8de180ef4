import DatasetStores
import Datasets
import FetchedResults
import Foundation

/// Writes `--emit-changes FILE.jsonl`: the initial snapshot, one line per change set (old and
/// new section counts, every operation with its index paths and the ID it concerns), and the
/// final snapshot, so that any consumer can replay and check them. Written to a temporary
/// sibling and renamed by `finish`, so an interrupted run leaves no half file.
///
/// Lines: `{"type":"snapshot",...}`, `{"type":"changes",...}`, `{"type":"final",...}`;
/// index paths are `{"section":s,"row":r}`.
final class ChangeEmitter {
  let path: String
  let partial: String
  let handle: FileHandle

  init(path: String, initial: ListSnapshot) throws {
    self.path = path
    partial = try AtomicFile.createTemporaryFile(for: path)
    handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
    try line(Self.snapshot("snapshot", initial))
  }

  private func line(_ s: String) throws { try handle.write(contentsOf: Data((s + "\n").utf8)) }

  func write(_ c: ChangeSet) throws {
    func path(_ p: RowPath) -> String { "{\"section\":\(p.section),\"row\":\(p.row)}" }
    func rows(_ rs: [ChangeSet.Row]) -> String {
      "[" + rs.map { "{\"path\":\(path($0.path)),\"id\":\($0.id)}" }.joined(separator: ",") + "]"
    }
    var s = "{\"type\":\"changes\""
    if let t = c.transactions { s += ",\"transactions\":[\(t.lowerBound),\(t.upperBound)]" }
    s += ",\"old_section_counts\":\(ints(c.oldSectionCounts)),\"new_section_counts\":\(ints(c.newSectionCounts))"
    s += ",\"section_deletes\":\(ints(c.sectionDeletes))"
    s +=
      ",\"section_inserts\":["
      + c.sectionInserts.map { "{\"index\":\($0.index),\"name\":\(Self.quote($0.name)),\"ids\":\(ints($0.ids))}" }
      .joined(separator: ",")
      + "]"
    s += ",\"deletes\":\(rows(c.deletes)),\"inserts\":\(rows(c.inserts))"
    s +=
      ",\"moves\":["
      + c.moves.map {
        "{\"from\":\(path($0.from)),\"to\":\(path($0.to)),\"id\":\($0.id),\"content_changed\":\($0.contentChanged)}"
      }.joined(
        separator: ",") + "]"
    s += ",\"reloads\":\(rows(c.reloads))}"
    try line(s)
  }

  func finish(_ final: ListSnapshot) throws {
    try line(Self.snapshot("final", final))
    try handle.close()
    try AtomicFile.commitNew(partial, to: path)
  }

  static func snapshot(_ type: String, _ s: ListSnapshot) -> String {
    "{\"type\":\"\(type)\",\"sections\":["
      + s.sections.map { "{\"name\":\(quote($0.name)),\"ids\":\(ints($0.ids))}" }.joined(separator: ",") + "]}"
  }

  static func quote(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
      switch u {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
      default: out.unicodeScalars.append(u)
      }
    }
    return out + "\""
  }
}

private func ints<T: BinaryInteger>(_ a: [T]) -> String { "[" + a.map { "\($0)" }.joined(separator: ",") + "]" }
