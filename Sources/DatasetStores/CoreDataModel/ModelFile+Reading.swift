import Datasets
import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

extension ModelFile {
  /// Reads the model at `path`: a `.xcdatamodeld` folder (the version `.xccurrentversion`
  /// names, else the only or the highest-numbered one; `version` picks another), a
  /// `.xcdatamodel` folder, or its `contents` file. Every element of the format is read or
  /// refused by name, and the model is checked whole (parents, destinations, inverses, index
  /// properties). O(file size).
  public static func read(_ path: String, version: String? = nil) throws -> ModelFile {
    let (contents, chosen) = try locate(path, version: version)
    if case .other(let what) = DatasetFile.entry(at: contents) {
      throw ModelFileError(
        path: contents, problem: "is \(what), not a model file",
        fix: "name a .xcdatamodeld or .xcdatamodel folder, or its contents file")
    }
    guard let data = FileManager.default.contents(atPath: contents) else {
      throw ModelFileError(path: contents, problem: "cannot be read", fix: "check that you may read it")
    }
    var model = try ModelXML.parse(data, path: contents)
    model.version = chosen
    model.checksum = SHA256Hasher.hex(of: data)
    try model.validate()
    return model
  }

  /// The `contents` file of the version to read, and that version's name.
  static func locate(_ path: String, version: String?) throws -> (String, String?) {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw ModelFileError(
        path: path, problem: "does not exist", fix: "name a .xcdatamodeld or .xcdatamodel folder, or its contents file")
    }
    let url = URL(fileURLWithPath: path)
    guard isFolder.boolValue else {
      guard version == nil else {
        throw ModelFileError(
          path: path, problem: "is one version's file", fix: "give --model-version with the .xcdatamodeld folder")
      }
      return (path, url.lastPathComponent == "contents" ? name(of: url.deletingLastPathComponent()) : nil)
    }
    if url.pathExtension == "xcdatamodel" {
      guard version == nil || version == name(of: url) else {
        throw ModelFileError(
          path: path, problem: "is the version \(name(of: url) ?? "")",
          fix: "give --model-version with the .xcdatamodeld folder")
      }
      return (url.appendingPathComponent("contents").path, name(of: url))
    }
    let versions = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
      .filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }
    guard !versions.isEmpty else {
      throw ModelFileError(
        path: path, problem: "holds no .xcdatamodel version",
        fix: "name the model's .xcdatamodeld folder as Xcode writes it")
    }
    let chosen = try version ?? current(url, versions: versions)
    guard versions.contains(chosen) else {
      throw ModelFileError(
        path: path, problem: "has no version \(chosen)",
        fix: "name one of its versions: \(versions.sorted(by: byNumber).joined(separator: ", "))")
    }
    return (url.appendingPathComponent(chosen + ".xcdatamodel/contents").path, chosen)
  }

  /// The version `.xccurrentversion` names; without it, the only or highest-numbered one.
  static func current(_ folder: URL, versions: [String]) throws -> String {
    let plist = folder.appendingPathComponent(".xccurrentversion")
    guard let data = FileManager.default.contents(atPath: plist.path) else {
      return versions.sorted(by: byNumber).last!
    }
    guard let dictionary = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
      let named = dictionary["_XCCurrentVersionName"] as? String
    else {
      throw ModelFileError(
        path: plist.path, problem: "is not a property list naming _XCCurrentVersionName",
        fix: "restore it from the model's history, or give --model-version")
    }
    let version = named.hasSuffix(".xcdatamodel") ? String(named.dropLast(".xcdatamodel".count)) : named
    guard versions.contains(version) else {
      throw ModelFileError(
        path: plist.path, problem: "names \(named), which the folder does not hold",
        fix: "give --model-version with one of \(versions.sorted(by: byNumber).joined(separator: ", "))")
    }
    return version
  }

  /// `MyApp 9` before `MyApp 10`: the trailing number compared as a number.
  static func byNumber(_ a: String, _ b: String) -> Bool {
    func split(_ s: String) -> (String, Int) {
      let digits = s.reversed().prefix { $0.isNumber }
      return (String(s.dropLast(digits.count)), Int(String(digits.reversed())) ?? -1)
    }
    let (x, y) = (split(a), split(b))
    return x.0 == y.0 ? x.1 < y.1 : a < b
  }

  static func name(of folder: URL) -> String? {
    folder.pathExtension == "xcdatamodel" ? folder.deletingPathExtension().lastPathComponent : nil
  }
}

/// A model file that cannot be read as it is: the file, what is wrong and what to do.
public struct ModelFileError: Error, CustomStringConvertible {
  public var path: String
  public var problem: String
  public var fix: String

  public var description: String { "\(path) \(problem): \(fix)" }
}
