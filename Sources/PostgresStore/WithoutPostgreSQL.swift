#if !PostgreSQL
  import FetchedResults
  import Foundation

  // A build without the `PostgreSQL` trait (`make build`): the PostgreSQL store's types keep
  // their interface, so every caller compiles unchanged, and opening one throws
  // `PostgresStoreError.notBuilt`, which says how to build with PostgreSQL. No instance ever
  // exists, so the members below are never reached.

  /// The PostgreSQL store, left out of this build: `init` throws `PostgresStoreError.notBuilt`.
  public final class PostgresStore: ChangeLogStore {
    public let model: Model
    public let url: PostgresURL
    public internal(set) var counters = StoreCounters()
    public let observers = TransactionObservers()
    public let userSchema: String? = nil
    public var deliveredSequence: Int { 0 }
    public var dataVersion: String? { nil }
    public var isDisconnected: Bool { true }
    package var runOnEventLoop: @Sendable (@escaping @Sendable () -> Void) throws -> Void {
      { _ in throw PostgresStoreError.notBuilt }
    }

    public init(url: PostgresURL, model: Model) throws { throw PostgresStoreError.notBuilt }
    public init(url: PostgresURL, model: Model, userSchema schema: String, readOnly: Bool = true) throws {
      throw PostgresStoreError.notBuilt
    }

    public func close() {}
    @discardableResult public func reconnect() throws -> Int { throw PostgresStoreError.notBuilt }
    public func backendPID() throws -> Int { throw PostgresStoreError.notBuilt }
    public func resetCounters() { counters = StoreCounters() }
    public func ping() throws { throw PostgresStoreError.notBuilt }
    public func scalarText(_ sql: String) throws -> String? { throw PostgresStoreError.notBuilt }
    public func pollChanges() throws -> Int { throw PostgresStoreError.notBuilt }
    public func waitForChanges(timeout: Double) throws -> Int { throw PostgresStoreError.notBuilt }
    public func awaitNotification(timeout: Double) {}
    public func durabilitySettings() throws -> String { throw PostgresStoreError.notBuilt }
    public func rawCommit(_ operations: [WriteOperation], payload: String) throws { throw PostgresStoreError.notBuilt }
    public func fetchIDs(_ request: ResolvedRequest) throws -> [Int64] { throw PostgresStoreError.notBuilt }
    public func fetchObjects(_ request: ResolvedRequest, ids: ArraySlice<Int64>) throws -> [FetchedObject] {
      throw PostgresStoreError.notBuilt
    }
    public func fetchObjects(_ request: ResolvedRequest) throws -> [FetchedObject] { throw PostgresStoreError.notBuilt }
    public func count(_ request: ResolvedRequest) throws -> Int { throw PostgresStoreError.notBuilt }
    public func fetchDestination(of relationship: Relationship, key: Int64) throws -> [Value]? {
      throw PostgresStoreError.notBuilt
    }
    public func fetchIDsAndSections(_ request: ResolvedRequest) throws -> (ids: [Int64], sections: [SectionCount]) {
      throw PostgresStoreError.notBuilt
    }
    public func fetchJoinRows(_ table: JoinTable) throws -> [(source: Int64, destination: Int64)] {
      throw PostgresStoreError.notBuilt
    }
    public func fetchElements(of relationship: ToManyRelationship, keys: [Int64]) throws -> [Int64: [FetchedObject]] {
      throw PostgresStoreError.notBuilt
    }
    public func sectionCounts(_ request: ResolvedRequest) throws -> [SectionCount] { throw PostgresStoreError.notBuilt }
    public func fetchKeyedIDs(_ request: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs {
      throw PostgresStoreError.notBuilt
    }
    public func relatedIDs(_ request: ResolvedRequest, through relationship: Relationship, destinationIDs: [Int64])
      throws -> [Int64]
    {
      throw PostgresStoreError.notBuilt
    }
    public func commit(_ operations: [WriteOperation]) throws -> StoreTransaction { throw PostgresStoreError.notBuilt }
  }

  /// The PostgreSQL administration session, left out of this build: `init` throws
  /// `PostgresStoreError.notBuilt`.
  public final class PostgresAdmin {
    public let url: PostgresURL

    public init(url: PostgresURL) throws { throw PostgresStoreError.notBuilt }
    public func execute(_ sql: String) throws { throw PostgresStoreError.notBuilt }
    public func scalar(_ sql: String) throws -> String? { throw PostgresStoreError.notBuilt }
    public func rows(_ sql: String) throws -> [[String?]] { throw PostgresStoreError.notBuilt }
    public func readOnly() throws { throw PostgresStoreError.notBuilt }
    public func column(_ sql: String) throws -> [String] { throw PostgresStoreError.notBuilt }
  }
#endif
