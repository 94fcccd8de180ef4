/// A relationship's delete rule as a Core Data model declares it, in the form a save applies
/// it: when an object of `entity` is deleted, the objects of `dependent` whose key `key`
/// points at it are nullified (the key cleared), deleted in turn (cascade), or keep the delete
/// from happening (deny). `No Action` is no rule.
public struct DeleteRule: Sendable, Equatable, Codable {
  public enum Action: String, Sendable, Equatable, Codable {
    case nullify = "Nullify"
    case cascade = "Cascade"
    case deny = "Deny"
  }

  /// The entity whose object is deleted.
  public var entity: String
  /// The entity whose objects point at it, and the attribute that holds their key (the
  /// inverse to-one relationship's column).
  public var dependent: String
  public var key: String
  public var action: Action

  public init(entity: String, dependent: String, key: String, action: Action) {
    (self.entity, self.dependent, self.key, self.action) = (entity, dependent, key, action)
  }
}
