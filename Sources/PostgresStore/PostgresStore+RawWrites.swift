#if PostgreSQL
  import FetchedResults
  import Foundation
  import PostgresNIO
  import SQLQueries

  // The server's own write limit: the least statements, all pipelined.
  extension PostgresStore {
    /// The server's durability settings: `fsync=on, synchronous_commit=on`. Two queries.
    public func durabilitySettings() throws -> String {
      """
      fsync=\(try scalarText("SHOW fsync") ?? "?"), \
      synchronous_commit=\(try scalarText("SHOW synchronous_commit") ?? "?")
      """
    }

    /// Applies `operations` and appends `payload` to the change log (with its notification) in
    /// one transaction, through postgres-nio alone: `WriteSQL`'s statements, no old values read,
    /// nothing recorded or delivered to observers. Every statement, BEGIN to COMMIT, is sent
    /// before the first is waited for. What the server takes for the same transactions: the
    /// limit `commit(_:)` is measured against. O(operations) statements, one wait.
    public func rawCommit(_ operations: [WriteOperation], payload: String) throws {
      var sent = [try send("BEGIN", [])]
      do {
        for op in operations {
          let s = try WriteSQL.statement(op, model: model, dialect: .postgres)
          sent.append(try send(s.sql, s.arguments))
        }
        sent.append(try send("SELECT pg_advisory_xact_lock(hashtext('\(Self.changeLog)'))", []))
        sent.append(
          try send(
            """
            WITH ins AS (\(WriteSQL.appendToLog(.postgres)) RETURNING seq) SELECT pg_notify('\(Self.changeLog)', \
            seq::text) FROM ins
            """,
            [.double(Date().timeIntervalSince1970), .string(payload)]))
        // After a failed statement the server ends the transaction at COMMIT with a rollback.
        sent.append(try send("COMMIT", []))
      } catch {
        _ = waitForAll(sent)
        try? run("ROLLBACK", []) { _ in }
        throw error
      }
      if let failure = waitForAll(sent) { throw failure }
    }
  }
#endif
