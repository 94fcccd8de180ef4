import Datasets
import Foundation
import ResultModel
import Vocabulary

/// A folder of results that FetchBench writes whole (`run`, `diff`, `load`): built under a new
/// temporary name beside its destination, marked with the command that wrote it and every
/// file it holds, then renamed into place.
///
/// An existing folder is replaced only when it is an earlier output of the same command, as
/// its marker says, holding exactly the files the marker lists: a folder with a file of the
/// user's anywhere in its tree, another command's output, or a folder without a marker is
/// left untouched.
package enum OutputFolder {
  /// The command whose output a folder is.
  package enum Command: String, Codable, Sendable {
    /// `report DIR… --out OUT`: runs' figures joined. Its own kind, so that a join never
    /// replaces a run's measured folder, only an earlier join.
    case run, diff, load, history, export, report
  }

  /// The marker's name: hidden, so that listings of a results folder show the results.
  package static let markerName = ".fetchbench-output.json"

  package struct Marker: Codable {
    package var command: Command
    /// Every file of the folder but the marker, relative to it, sorted.
    package var files: [String]
    /// Each file's SHA-256 as written (folders have none): a file edited by hand since makes
    /// the folder the user's. nil in folders marked before checksums were kept.
    package var checksums: [String: String]?
  }

  /// Checks, before any work, that an output of `command` can be written at `path`: nothing
  /// is there, an empty folder is, or an earlier output of `command` is (see the type's
  /// doc); and the parent folder can be created and written. `acceptUnmarked`: also an
  /// unmarked folder whose whole tree is among `legacyNames` and `charts/*.svg` (FetchBench's
  /// own `latest` folders, written before outputs were marked). Returns the normalized path.
  /// O(files in the folder).
  @discardableResult
  package static func checkTarget(_ path: String, command: Command, legacyNames: Set<String>? = nil) throws -> String {
    let p = AtomicFile.normalized(path)
    if let why = whyNotReplaceable(p, command: command, legacyNames: legacyNames) {
      throw DatasetError.cannotWrite(path: p, reason: why)
    }
    let parent = (p as NSString).deletingLastPathComponent
    guard p != "/", !parent.isEmpty else { throw DatasetError.cannotWrite(path: p, reason: "name a folder below /") }
    do {
      try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    } catch {
      throw DatasetError.cannotWrite(path: p, reason: AtomicFile.describe(error))
    }
    guard access(parent, W_OK) == 0 else {
      throw DatasetError.cannotWrite(path: p, reason: "\(parent) is not writable (\(String(cString: strerror(errno))))")
    }
    return p
  }

  /// Writes the folder at `path`: `fill` writes the files into a new temporary folder, then
  /// the marker is written and the folder renamed into place, replacing only what
  /// `checkTarget` accepts (checked again: the folder may have changed while the command ran).
  /// O(files).
  package static func write(
    to path: String, command: Command, legacyNames: Set<String>? = nil, _ fill: (_ folder: String) throws -> Void
  ) throws {
    let p = try checkTarget(path, command: command, legacyNames: legacyNames)
    // One writer at a time; a command that claimed the folder at its start holds it already.
    let claim = try OutputLock.claim(p)
    defer { claim.release() }
    let tmp = try AtomicFile.createTemporaryFolder(for: p)
    defer { AtomicFile.discard(tmp) }
    do {
      try fill(tmp)
      try mark(tmp, command: command)
    } catch let error as DatasetError {
      throw error
    } catch {
      // A full disk or a removed folder: one line, not Foundation's dump.
      throw DatasetError.cannotWrite(path: p, reason: AtomicFile.describe(error))
    }
    try replace(p, with: tmp, command: command, legacyNames: legacyNames)
  }

  /// Copies the output folder `source` to `destination` (results/latest), under the same rules.
  package static func copy(_ source: String, to destination: String, legacyNames: Set<String>? = nil) throws {
    let marker = try readMarker(source)
    let p = try checkTarget(destination, command: marker.command, legacyNames: legacyNames)
    let claim = try OutputLock.claim(p, waiting: true)
    defer { claim.release() }
    let tmp = AtomicFile.temporaryPath(for: p)
    AtomicFile.register(tmp)
    defer { AtomicFile.discard(tmp) }
    do {
      try FileManager.default.copyItem(atPath: source, toPath: tmp)
    } catch {
      throw DatasetError.cannotWrite(path: p, reason: AtomicFile.describe(error))
    }
    try replace(p, with: tmp, command: marker.command, legacyNames: legacyNames)
  }

  /// `folder/name` for a file name built from data; throws unless it is one safe component.
  package static func child(_ folder: String, _ name: String) throws -> String {
    guard name == FileName.safeComponent(name) else {
      throw DatasetError.cannotWrite(
        path: "\(folder)/\(name)", reason: "the name comes from the data and is not a plain file name")
    }
    return "\(folder)/\(name)"
  }

  /// After `report` wrote `files` (relative paths) into a marked folder: the marker lists
  /// them too, so that the folder stays replaceable by its command. An unmarked folder stays
  /// unmarked. O(files).
  package static func addToMarker(_ files: [String], in folder: String) throws {
    guard var marker = try? readMarker(folder) else { return }
    marker.files = Array(Set(marker.files).union(files)).sorted()
    if marker.checksums != nil {
      for file in files where !file.hasSuffix("/") { marker.checksums?[file] = checksum("\(folder)/\(file)") }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try AtomicFile.write(try encoder.encode(marker), to: "\(folder)/\(markerName)")
  }

  // MARK: - Steps

  package static func mark(_ folder: String, command: Command) throws {
    let files = try tree(folder).filter { $0 != markerName }
    let checksums = Dictionary(
      uniqueKeysWithValues: files.filter { !$0.hasSuffix("/") }.map { ($0, checksum("\(folder)/\($0)")) })
    let marker = Marker(command: command, files: files, checksums: checksums)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try encoder.encode(marker).write(to: URL(fileURLWithPath: "\(folder)/\(markerName)"))
  }

  package static func readMarker(_ folder: String) throws -> Marker {
    let path = "\(folder)/\(markerName)"
    guard DatasetFile.entry(at: path) == .file, let data = FileManager.default.contents(atPath: path),
      let marker = try? JSONDecoder().decode(Marker.self, from: data)
    else { throw DatasetError.cannotWrite(path: folder, reason: "it holds no readable \(markerName)") }
    return marker
  }

  /// Renames `tmp` to `path`: an existing folder is renamed aside after the check, then removed.
  package static func replace(_ path: String, with tmp: String, command: Command, legacyNames: Set<String>?) throws {
    if let why = whyNotReplaceable(path, command: command, legacyNames: legacyNames) {
      throw DatasetError.cannotWrite(path: path, reason: why)
    }
    var isDir: ObjCBool = false
    var aside: String?
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
      let old = AtomicFile.temporaryPath(for: path)
      guard rename(path, old) == 0 else {
        throw DatasetError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
      }
      aside = old
    }
    guard rename(tmp, path) == 0 else {
      let reason = String(cString: strerror(errno))
      if let aside { _ = rename(aside, path) }
      throw DatasetError.cannotWrite(path: path, reason: reason)
    }
    if let aside { try? FileManager.default.removeItem(atPath: aside) }
  }

  /// Nil when `path` may be replaced by an output of `command`; otherwise why not, in words.
  /// `kept`: files the writer leaves as they are (the inputs `report` renders from), whose
  /// edits therefore lose nothing.
  package static func whyNotReplaceable(
    _ path: String, command: Command, legacyNames: Set<String>?, kept: Set<String> = []
  ) -> String? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    guard (st.st_mode & S_IFMT) == S_IFDIR else {
      return (st.st_mode & S_IFMT) == S_IFLNK
        ? "it is a symbolic link, and FetchBench does not replace it; name a new folder"
        : "it is a file, not a folder; name a new folder"
    }
    guard let files = try? tree(path) else { return "its files cannot be listed; name a new folder" }
    if files.isEmpty { return nil }
    let listed = (try? readMarker(path)).map { (command: $0.command, files: Set($0.files), checksums: $0.checksums) }
    let unlisted = files.filter { $0 != markerName && !(listed?.files.contains($0) ?? false) }
    if let listed {
      guard listed.command == command else {
        return
          "it is the output of `fetchbench \(listed.command.rawValue)`, not of `\(command.rawValue)`; name a new folder"
      }
      if unlisted.isEmpty {
        guard let edited = editedFiles(path, listed.checksums).first(where: { !kept.contains($0) }) else { return nil }
        return
          """
          \(edited) was changed since FetchBench wrote it, and FetchBench does not replace it; move it away, or name \
          a new folder
          """
      }
    } else if let legacyNames, files.allSatisfy({ legacy($0, legacyNames) }),
      files.contains(where: { !$0.hasPrefix("charts") })
    {
      return nil
    }
    let foreign = listed == nil ? files : unlisted
    let shown = foreign.prefix(3).joined(separator: ", ") + (foreign.count > 3 ? ", …" : "")
    return
      """
      the folder holds files FetchBench did not write (\(shown)); name a new or empty folder, or an earlier output \
      of `fetchbench \(command.rawValue)`
      """
  }

  /// SHA-256 of the file at `path`, "" when it cannot be read. O(file).
  package static func checksum(_ path: String) -> String {
    FileManager.default.contents(atPath: path).map { SHA256Hasher.hex(of: $0) } ?? ""
  }

  /// The files of the marked folder at `path` whose contents differ from their checksums; a
  /// file removed since holds nothing to lose. O(files' bytes).
  package static func editedFiles(_ path: String, _ checksums: [String: String]?) -> [String] {
    guard let checksums else { return [] }
    return checksums.keys.sorted().filter { file in
      FileManager.default.fileExists(atPath: "\(path)/\(file)") && checksum("\(path)/\(file)") != checksums[file]
    }
  }

  package static func legacy(_ file: String, _ names: Set<String>) -> Bool {
    if file == "charts/" { return names.contains("charts") }
    let parts = file.split(separator: "/", omittingEmptySubsequences: false)
    switch parts.count {
    case 1: return names.contains(file) && file != "charts"
    case 2: return parts[0] == "charts" && parts[1].hasSuffix(".svg") && !parts[1].hasPrefix(".")
    default: return false
    }
  }

  /// Every entry under `folder` (files, links, FIFOs, and folders with a trailing `/`:
  /// anything the user may have put there), relative and sorted; a symbolic link is listed,
  /// never followed.
  package static func tree(_ folder: String) throws -> [String] {
    var out: [String] = []
    func walk(_ relative: String) throws {
      let full = relative.isEmpty ? folder : "\(folder)/\(relative)"
      for name in try FileManager.default.contentsOfDirectory(atPath: full) {
        let r = relative.isEmpty ? name : "\(relative)/\(name)"
        var st = stat()
        guard lstat("\(folder)/\(r)", &st) == 0 else { continue }
        if (st.st_mode & S_IFMT) == S_IFDIR {
          out.append(r + "/")
          try walk(r)
        } else {
          out.append(r)
        }
      }
    }
    try walk("")
    return out.sorted()
  }
}
