import Catalog
import FetchedResults
import ResultModel

extension CaseExecutor {
  /// For a case whose list orders strings by a sort selector (`localizedStandardCompare:`),
  /// the same case with every sort by `compare:` (UTF-8 bytes) on the same store, timed as
  /// the case is: what the selector's comparison costs the list. None for a byte-wise list.
  static func byteWiseSort(_ spec: CaseSpec, scenario: Scenario, mode: FetchMode, store: any Store) throws
    -> [Reference]
  {
    let batchSize = mode.batchSize(spec.batchSize)
    var request =
      try spec.customRequest(scenario, batchSize: batchSize) ?? scenario.request(spec.dataset, batchSize: batchSize)
    guard request.sortDescriptors.contains(where: { $0.selector != .compare }) else { return [] }
    request.sortDescriptors = request.sortDescriptors.map { SortDescriptor($0.keyPath, ascending: $0.ascending) }
    let cells = spec.cells()
    return [
      Reference(time: .byteWiseSort, ratio: .selectorOverByteWise) {
        if let strategy = mode.paging {
          return try scenario.runPaged(
            spec.dataset, pageSize: batchSize, strategy: strategy, store: store, request: request
          ).count
        }
        return try scenario.run(spec.dataset, batchSize: batchSize, store: store, request: request, cells: cells)
          .controller.count
      }
    ]
  }
}
