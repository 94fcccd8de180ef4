import FetchedResults
import SQLQueries

/// A user's own database, read and never written: a SQLite file (an app's schema, or a Core
/// Data store), opened `immutable=1` when no `-wal` file says an app may be writing it,
/// read-only otherwise; or a PostgreSQL schema, read in read-only transactions.
public struct UserDatabase: Sendable, Codable, Equatable {
  /// The file's path, or the server's `postgres://user@host:port/database?schema=NAME`
  /// (without its password, which `named` moves to the environment).
  public var path: String
  /// To-one relationships the column names do not say, `column` → entity (`plane` → `Plane`).
  public var relationships: [String: String]
  /// To-many relationships a model declares, by the entity of their table (a Core Data
  /// model's names and join tables); the others are read from the to-one keys.
  public var toMany: [String: [ToManyRelationship]] {
    get { declaredToMany ?? [:] }
    set { declaredToMany = newValue.isEmpty ? nil : newValue }
  }
  /// `toMany` as results record it: absent from runs recorded before it existed.
  package var declaredToMany: [String: [ToManyRelationship]]? = nil
  /// On a server: whether index candidates may be tried in a schema of FetchBench's own
  /// (`PostgresTrials`); nil or false, none is. A file's candidates are always tried in copies.
  public var allowsIndexTrials: Bool? = nil
  /// A store generated from a Core Data model: the model's delete rules, which a save on a
  /// private copy of it applies (`SQLiteStore.deleteRules`).
  public var deleteRules: [DeleteRule]? = nil

  public init(path: String, relationships: [String: String] = [:]) {
    self.path = path
    self.relationships = relationships
  }

  /// Whether `path` names a PostgreSQL server's schema (`postgres://…`) rather than a file. O(1).
  public var isOnServer: Bool { Self.isServerURL(path) }

  /// Whether `text` is a PostgreSQL URL (`postgres://` or `postgresql://`). O(1).
  public static func isServerURL(_ text: String) -> Bool {
    text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
  }
}

/// A list over a user's database as a run's cases carry it to their child processes, which
/// register its kind again from the file.
public struct UserList: Sendable, Codable, Equatable {
  public var database: UserDatabase
  public var entity: String
  /// The kind's name when not the entity's (a generated dataset in Core Data's schema:
  /// `banks-coredata`), with the sort, section and prefetch its list has when none is given.
  public var kindName: String? = nil
  public var defaultSort: [SortDescriptor]? = nil
  public var defaultSection: String? = nil
  public var prefetch: [String]? = nil
  public var cells: [String]? = nil

  public init(database: UserDatabase, entity: String) {
    self.database = database
    self.entity = entity
  }
}

extension UserList {
  /// Decodes a list as a case's request or a results file holds it; a results file written
  /// before sorts were recorded typed holds the default sort as its text (`details.closeDate
  /// desc`), parsed here.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    database = try c.decode(UserDatabase.self, forKey: .database)
    entity = try c.decode(String.self, forKey: .entity)
    kindName = try c.decodeIfPresent(String.self, forKey: .kindName)
    if let text = try? c.decodeIfPresent(String.self, forKey: .defaultSort) {
      defaultSort = try ListSpec(parsing: ListSpec.Text(sort: text)).sortDescriptors
    } else {
      defaultSort = try c.decodeIfPresent([SortDescriptor].self, forKey: .defaultSort)
    }
    defaultSection = try c.decodeIfPresent(String.self, forKey: .defaultSection)
    prefetch = try c.decodeIfPresent([String].self, forKey: .prefetch)
    cells = try c.decodeIfPresent([String].self, forKey: .cells)
  }
}
