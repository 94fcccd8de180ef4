import Foundation
import TextFormatting

/// The checks of a population file's settings for one attribute or relationship: each setting
/// named, of its kind and within its bounds, on a property of a type it applies to.
extension ModelPopulation {
  static func shape(
    _ settings: [String: Any], of a: AttributeDeclaration, in entity: String,
    _ error: (String, String) -> ModelFileError
  ) throws -> ValueShape {
    var shape = ValueShape()
    let name = "\(entity).\(a.name)"
    func refuse(_ setting: String, _ v: Any, _ fix: String) -> ModelFileError {
      error("gives \(name) \(setting) \(v)", fix)
    }
    for (setting, v) in settings.sorted(by: { $0.key < $1.key }) {
      switch setting {
      case "nullShare":
        guard let share = v as? Double, (0...1).contains(share), a.optional || share == 0 else {
          throw refuse(setting, v, "a share from 0 to 1, on an optional attribute or to-one")
        }
        shape.nullShare = share
      case "distinct" where a.type != .boolean:
        guard let n = v as? Int, (1...ValueShape.maxDistinct).contains(n) else {
          throw refuse(setting, v, "a whole number from 1 to \(ValueShape.maxDistinct.grouped)")
        }
        shape.distinct = n
      case "range" where a.type.isNumber || a.type == .date:
        let bounds = Self.rangeBounds(a.type)
        guard let pair = v as? [Double], pair.count == 2,
          pair.allSatisfy({ (bounds.lower...bounds.upper).contains($0) }),
          pair[0] <= pair[1],
          (pair[1] - pair[0]).isFinite, !a.type.isInteger || pair.allSatisfy({ $0 == $0.rounded() })
        else {
          let kind = a.type.isInteger ? "whole numbers" : a.type == .date ? "seconds since 2001" : "numbers"
          throw refuse(
            setting, v,
            "[least, greatest], two \(kind) from \(bounds.text), the least first")
        }
        shape.range = pair[0]...pair[1]
      case "length" where a.type == .string || a.type == .binary || a.type == .transformable:
        guard let pair = v as? [Int], pair.count == 2, 0 <= pair[0], pair[0] <= pair[1], pair[1] <= 100_000 else {
          throw refuse(setting, v, "[least, greatest], two whole numbers from 0 to 100,000, the least first")
        }
        shape.length = pair[0]...pair[1]
      case "skew" where a.type != .boolean:
        guard let s = v as? Double, (0...10).contains(s), settings["distinct"] != nil else {
          throw refuse(setting, v, "a number from 0 to 10, beside distinct (the values it skews)")
        }
        shape.skew = s
      default:
        throw error("gives \(name) the setting \(setting)", "\(a.type.rawValue) attributes take \(a.type.settings)")
      }
    }
    return shape
  }

  static func shape(
    _ settings: [String: Any], of r: RelationshipDeclaration, in entity: String,
    _ error: (String, String) -> ModelFileError
  ) throws -> RelationshipShape {
    var shape = RelationshipShape()
    for (setting, v) in settings.sorted(by: { $0.key < $1.key }) {
      switch setting {
      case "nullShare":
        let optional = (r.minCount ?? 0) == 0 && !r.toMany
        guard let share = v as? Double, (0...1).contains(share), optional || share == 0 else {
          throw error(
            "gives \(entity).\(r.name) nullShare \(v)", "a share from 0 to 1, on an optional attribute or to-one")
        }
        shape.nullShare = share
      case "fanOut":
        guard let n = v as? Int, n >= 1 else { throw error("gives \(entity).\(r.name) fanOut \(v)", "1 or more") }
        shape.fanOut = n
      default:
        throw error("gives \(entity).\(r.name) the setting \(setting)", "a relationship takes fanOut and nullShare")
      }
    }
    return shape
  }
}

extension ModelPopulation {
  /// The values a range of an attribute of `type` may reach: what its column holds (an
  /// Integer 32 no more than Int32 does), dates from year 1 to 9999, numbers whose spread is
  /// finite.
  static func rangeBounds(_ type: AttributeKind) -> (lower: Double, upper: Double, text: String) {
    switch type {
    case .integer16: (-32_768, 32_767, "-32,768 to 32,767")
    case .integer32: (-2_147_483_648, 2_147_483_647, "-2,147,483,648 to 2,147,483,647")
    case .integer64: (-4e18, 4e18, "-4e18 to 4e18")
    case .date: (-63_113_904_000, 252_423_993_599, "-63,113,904,000 (year 1) to 252,423,993,599 (year 9999)")
    default: (-1e300, 1e300, "-1e300 to 1e300")
    }
  }
}

extension AttributeKind {
  var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }
  var isNumber: Bool { isInteger || self == .decimal || self == .double || self == .float }

  /// The population settings an attribute of this type takes, for an error's fix.
  var settings: String {
    switch self {
    case .boolean: "nullShare"
    case .string, .binary, .transformable: "nullShare, distinct, length and skew"
    case .date, .integer16, .integer32, .integer64, .decimal, .double, .float: "nullShare, distinct, range and skew"
    case .uuid, .uri, .objectID, .undefined: "nullShare, distinct and skew"
    }
  }
}
