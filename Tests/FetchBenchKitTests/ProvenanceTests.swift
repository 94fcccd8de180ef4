import FetchBenchKit
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
    let here = Machine.current(measuringSpeed: false)
    #expect(here.processor == Processor.current().description && !here.processor.isEmpty)
    #expect(here.speed == nil)
  }

  @Test func aRunTimesTheMachinesSpeedAndTheHeadingStatesIt() throws {
    let speed = try #require(Machine.current(measuringSpeed: true).speed)
    #expect(speed.sortMs > 0 && speed.faultMs > 0)
    var r = Self.row(commit: "2b526cb8e03c")
    r.machine.speed = MachineSpeed(sortMs: 61.24, faultMs: 23.4)
    let heading = Report(rows: [r]).markdown()
    #expect(
      heading.contains(
        "Debian, 6.3.1, which sorted 1,000,000 integers in 61.2 ms and faulted in 64 MiB in 23.4 ms (medians of 5)."
      ), "\(heading.prefix(400))")
  }

  @Test func theSpeedIsReadBackFromBothFilesAndOlderRunsHaveNone() throws {
    var r = Self.row(commit: "2b526cb8e03c")
    r.machine.speed = MachineSpeed(sortMs: 61.2, faultMs: 23.4)
    let csv = try ResultsCSV.decode(ResultsCSV.encode([r]))
    #expect(csv.first?.machine.speed == MachineSpeed(sortMs: 61.2, faultMs: 23.4))
    // As a run before the column wrote it: one field fewer, no speed, and the heading says nothing of it.
    let lines = ResultsCSV.encode([Self.row(commit: "abc")]).split(separator: "\n").map { $0.dropLast() }
    let old = try #require(
      try ResultsCSV.decode(ResultRow.columns.dropLast().joined(separator: ",") + "\n" + lines[1] + "\n").first)
    #expect(old.machine.speed == nil && old.machine.processor == Self.processor)
    #expect(Report(rows: [old]).markdown().contains("Debian, 6.3.1.\n"))
    let json = try JSONDecoder().decode([ResultRow].self, from: JSONEncoder().encode([r]))
    #expect(json.first?.machine.speed == MachineSpeed(sortMs: 61.2, faultMs: 23.4))
    #expect(MachineSpeed(recorded: "") == nil && MachineSpeed(recorded: "sort_ms=1") == nil)
    #expect(MachineSpeed(recorded: "sort_ms=-1;fault_ms=2") == nil)
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
    #expect(
      csv.hasPrefix(ResultRow.columns.joined(separator: ","))
        && ResultRow.columns.suffix(2) == ["processor", "machine_speed"])
    #expect(try ResultsCSV.decode(csv) == [r])
    let json = try JSONEncoder().encode([r])
    #expect(try JSONDecoder().decode([ResultRow].self, from: json) == [r])
    // The same row as a run before the column wrote it: two fields fewer (it and the speed's).
    let lines = csv.split(separator: "\n").map(String.init)
    let old = try #require(lines.last?.components(separatedBy: ",\"AMD").first)
    let header = ResultRow.columns.dropLast(2).joined(separator: ",")
    let read = try #require(try ResultsCSV.decode(header + "\n" + old + "\n").first)
    #expect(read.machine.processor == "" && read.machine.gitCommit == "abc")
    #expect(Report(rows: [read]).markdown().contains("on processor not recorded, 2 cores"))
    var object = try #require(try JSONSerialization.jsonObject(with: json) as? [[String: Any]])
    object[0]["processor"] = nil
    let oldJSON = try JSONSerialization.data(withJSONObject: object)
    #expect(try JSONDecoder().decode([ResultRow].self, from: oldJSON).first?.machine.processor == "")
  }
}
