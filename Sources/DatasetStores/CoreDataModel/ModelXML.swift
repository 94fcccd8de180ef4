import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The `contents` XML, element by element, through Foundation's `XMLParser`: what the format
/// holds is read or, where FetchBench does not know it, refused by name.
final class ModelXML: NSObject, XMLParserDelegate {
  private let path: String
  private var model: ModelFile
  private var entity: EntityDeclaration?
  private var fetchIndex: FetchIndexDeclaration?
  private var constraint: [String]?
  /// Collected here and given to the model once: the model indexes its entities by name.
  private var entities: [EntityDeclaration] = []
  private var sawModel = false
  /// Inside `<elements>` (old files' diagram layout), `<fetchRequest>` or `<userInfo>`:
  /// nothing there describes the store.
  private var skipping = 0
  private var failure: ModelFileError?

  /// Elements read for what they say; any other is refused.
  static let known: Set<String> = [
    "model", "entity", "attribute", "relationship", "fetchIndex", "fetchIndexElement", "uniquenessConstraints",
    "uniquenessConstraint", "constraint", "fetchRequest", "configuration", "memberEntity", "elements", "element",
    "userInfo", "entry", "fetchedProperty", "compoundIndexes", "compoundIndex", "index",
  ]

  private init(path: String) {
    self.path = path
    model = ModelFile(path: path, version: nil, entities: [], fetchRequests: [], configurations: [])
  }

  static func parse(_ data: Data, path: String) throws -> ModelFile {
    let reader = ModelXML(path: path)
    let parser = XMLParser(data: data)
    parser.delegate = reader
    let finished = parser.parse()
    if let failure = reader.failure { throw failure }
    // A truncated file can end without `parse()` saying so; `parserError` does.
    if !finished || parser.parserError != nil {
      throw ModelFileError(
        path: path, problem: "is not well-formed XML (line \(parser.lineNumber), column \(parser.columnNumber))",
        fix: "restore it from the model's history, or save the model again in Xcode")
    }
    guard reader.sawModel else {
      throw ModelFileError(path: path, problem: "has no <model> element", fix: "name a Core Data model's contents file")
    }
    var model = reader.model
    model.entities = reader.entities
    return model
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String]
  ) {
    guard failure == nil else { return }
    guard skipping == 0 else {
      skipping += 1
      return
    }
    guard Self.known.contains(name) else {
      return fail(
        parser, "holds <\(name)>, an element FetchBench does not know", "tell FetchBench's issues which Xcode wrote it")
    }
    do {
      try start(name, attributes, parser)
    } catch let error as ModelFileError {
      failure = error
      parser.abortParsing()
    } catch {}
  }

  private func start(_ name: String, _ a: [String: String], _ parser: XMLParser) throws {
    if Self.insideEntity.contains(name) && entity == nil {
      throw error(parser, "has an <\(name)> outside every <entity>", "move it into the entity it belongs to")
    }
    if name == "fetchIndexElement" && fetchIndex == nil {
      throw error(parser, "has a <fetchIndexElement> outside every <fetchIndex>", "move it into its fetch index")
    }
    switch name {
    case "model": sawModel = true
    case "entity":
      if let outer = entity {
        throw error(parser, "nests an <entity> inside <entity name=\"\(outer.name)\">", "close the outer one first")
      }
      entity = EntityDeclaration(
        name: try required(a, "name", of: name, parser), className: a["representedClassName"],
        isAbstract: a["isAbstract"] == "YES",
        parent: a["parentEntity"], attributes: [], relationships: [], fetchIndexes: [], uniquenessConstraints: [])
    case "attribute":
      let attribute = try required(a, "name", of: name, parser)
      let typeName = a["attributeType"] ?? "Undefined"
      guard let type = AttributeKind(rawValue: typeName) else {
        throw error(
          parser,
          "gives \(entity?.name ?? "").\(attribute) the attributeType \"\(typeName)\", which FetchBench does not know",
          "use one of: " + AttributeKind.allCases.map(\.rawValue).joined(separator: ", "))
      }
      entity?.attributes.append(
        AttributeDeclaration(
          name: attribute, type: type, optional: a["optional"] == "YES", defaultValue: a["defaultValueString"],
          transient: a["transient"] == "YES", derived: a["derived"] == "YES",
          externalStorage: a["allowsExternalBinaryDataStorage"] == "YES"
        ))
    case "relationship":
      let relationship = try required(a, "name", of: name, parser)
      let rule = a["deletionRule"] ?? "Nullify"
      guard Self.deletionRules.contains(rule) else {
        throw error(
          parser,
          "gives \(entity?.name ?? "").\(relationship) the deletionRule \"\(rule)\", which Core Data does not know",
          "use one of: " + Self.deletionRules.joined(separator: ", "))
      }
      func count(_ key: String) throws -> Int? {
        guard let text = a[key] else { return nil }
        guard let n = Int(text), n >= 0 else {
          throw error(
            parser, "gives \(entity?.name ?? "").\(relationship) the \(key) \"\(text)\", which is not a count",
            "give a whole number of 0 or more, or none")
        }
        return n
      }
      let declaration = RelationshipDeclaration(
        name: relationship, destination: try required(a, "destinationEntity", of: name, parser),
        inverse: a["inverseName"], toMany: a["toMany"] == "YES", ordered: a["ordered"] == "YES",
        minCount: try count("minCount"), maxCount: try count("maxCount"), deletionRule: rule)
      entity?.relationships.append(declaration)
    case "fetchIndex": fetchIndex = FetchIndexDeclaration(name: try required(a, "name", of: name, parser), elements: [])
    case "fetchIndexElement":
      let property = try required(a, "property", of: name, parser)
      let type = a["type"] ?? "Binary"
      guard type == "Binary" else {
        throw error(
          parser,
          """
          gives \(entity?.name ?? "")'s fetch index \(fetchIndex?.name ?? "") the element \(property) of type \
          \(type), which FetchBench does not build (it builds B-tree indexes)
          """,
          "make it Binary, or remove the element")
      }
      fetchIndex?.elements.append(.init(property: property, type: type, ascending: a["order"] != "descending"))
    case "uniquenessConstraint": constraint = []
    case "constraint": constraint?.append(try required(a, "value", of: name, parser))
    case "fetchRequest":
      model.fetchRequests.append(a["name"] ?? "")
      skipping = 1
    case "configuration": model.configurations.append(a["name"] ?? "")
    case "elements", "userInfo", "fetchedProperty": skipping = 1
    default: break
    }
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    guard failure == nil else { return }
    if skipping > 0 {
      skipping -= 1
      return
    }
    switch name {
    case "entity":
      if let entity { entities.append(entity) }
      entity = nil
    case "fetchIndex":
      if let fetchIndex { entity?.fetchIndexes.append(fetchIndex) }
      fetchIndex = nil
    case "uniquenessConstraint":
      if let constraint { entity?.uniquenessConstraints.append(constraint) }
      constraint = nil
    default: break
    }
  }

  /// What only an entity holds: one outside every entity would describe nothing.
  static let insideEntity: Set<String> = ["attribute", "relationship", "fetchIndex", "uniquenessConstraints"]

  /// `deletionRule` as the model editor writes it.
  static let deletionRules = ["Nullify", "Cascade", "Deny", "No Action"]

  private func required(_ a: [String: String], _ key: String, of element: String, _ parser: XMLParser) throws -> String
  {
    guard let value = a[key], !value.isEmpty else {
      throw error(parser, "has a <\(element)> without \(key)", "give it one in Xcode's model editor")
    }
    return value
  }

  private func error(_ parser: XMLParser, _ problem: String, _ fix: String) -> ModelFileError {
    ModelFileError(path: path, problem: problem + " (line \(parser.lineNumber))", fix: fix)
  }

  private func fail(_ parser: XMLParser, _ problem: String, _ fix: String) {
    failure = error(parser, problem, fix)
    parser.abortParsing()
  }
}
