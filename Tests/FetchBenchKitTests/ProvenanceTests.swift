import Foundation
import HarnessSupport
import Reports
import ResultModel
import Testing

/// Every report names the machine its figures come from: the processor and its caches, the
/// cores, memory, OS, toolchain and commit, and whether the tree was the commit's.
@Suite struct Provenance {
  static let processor = "AMD EPYC 7B13 (L1d 32 KiB, L2 512 KiB, L3 32 MiB)"

  static func row(commit: String, processor: String = Self.processor) -> ResultRow {
    var r = figure(mode: .fetch(.batched), scenario: .scenario(.firstScreen), metric: .time, value: 3)
    (r.machine.gitCommit, r.machine.processor) = (commit, processor)
    return r
  }

  @Test func thisMachinesProcessorIsRecorded() {
    let here = Machine.current()
    #expect(here.processor == Processor.current().description && !here.processor.isEmpty)
  }

  @Test func theHeadingNamesTheProcessorAndTheTree() {
    let clean = Report(rows: [Self.row(commit: "2b526cb8e03c")]).markdown()
    #expect(
      clean.contains(
        "at commit `2b526cb8e03c` (a clean tree) on AMD EPYC 7B13 (L1d 32 KiB, L2 512 KiB, L3 32 MiB), 2 cores, 24 GiB, Debian, 6.3.1."
      ), "\(clean.prefix(400))")
    let dirty = Report(rows: [Self.row(commit: "2b526cb8e03c-dirty")]).markdown()
    #expect(dirty.contains("at commit `2b526cb8e03c-dirty` (uncommitted changes) on AMD EPYC"))
  }

  /// results.csv and results.json carry it; files recorded before it read back without it,
  /// and their report says it was not recorded.
  @Test func resultsFilesCarryTheProcessor() throws {
    let r = Self.row(commit: "abc")
    let csv = ResultsCSV.encode([r])
    #expect(csv.hasPrefix(ResultRow.columns.joined(separator: ",")) && ResultRow.columns.last == "processor")
    #expect(try ResultsCSV.decode(csv) == [r])
    let json = try JSONEncoder().encode([r])
    #expect(try JSONDecoder().decode([ResultRow].self, from: json) == [r])
    // The same row as a run before the column wrote it: one field fewer.
    let lines = csv.split(separator: "\n").map(String.init)
    let old = try #require(lines.last?.components(separatedBy: ",\"AMD").first)
    let header = ResultRow.columns.dropLast().joined(separator: ",")
    let read = try #require(try ResultsCSV.decode(header + "\n" + old + "\n").first)
    #expect(read.machine.processor == "" && read.machine.gitCommit == "abc")
    #expect(Report(rows: [read]).markdown().contains("on processor not recorded, 2 cores"))
    var object = try #require(try JSONSerialization.jsonObject(with: json) as? [[String: Any]])
    object[0]["processor"] = nil
    let oldJSON = try JSONSerialization.data(withJSONObject: object)
    #expect(try JSONDecoder().decode([ResultRow].self, from: oldJSON).first?.machine.processor == "")
  }
}
