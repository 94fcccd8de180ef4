#if PostgreSQL
  import FetchedResults
  import Foundation
  import Logging
  import NIOPosix
  import PostgresNIO
  import SQLQueries

  // Change tracking: keys of affected rows, and rows related through a to-one key.
  extension PostgresStore {

    public func fetchKeyedIDs(_ request: ResolvedRequest, ids: [Int64]?) throws -> KeyedIDs {
      let sql = try Self.builder(request)
      let types = request.sorts.dropLast().map(\.keyPath.attribute.type)
      let out = UncheckedBox(KeyedIDs(ids: [], keys: Array(repeating: [], count: types.count)))
      counters.queries += 1
      try run(ids == nil ? sql.keyQuery : sql.keysByIDArrayQuery, sql.arguments, ids: ids) { row in
        try row.forEach { i, cell in
          if i == 0 {
            out.value.ids.append(try Self.int64(cell))
          } else {
            out.value.keys[i - 1].append(try Self.value(cell, types[i - 1]))
          }
        }
      }
      return out.value
    }

    public func relatedIDs(_ request: ResolvedRequest, through relationship: Relationship, destinationIDs: [Int64])
      throws -> [Int64]
    {
      guard !destinationIDs.isEmpty else { return [] }
      let dest = try model.entity(relationship.destination)
      let text = SQLBuilder.relatedIDsQuery(
        request, through: relationship, destination: dest, count: destinationIDs.count, dialect: .postgres)
      let out = UncheckedBox([Int64]())
      counters.queries += 1
      try run(text, [], ids: destinationIDs) { row in out.value.append(try row[0].decode(Int64.self)) }
      return out.value
    }
  }
#endif
