import ChildProcesses
import Foundation
import Testing

/// A parent's message reaches its child on standard input, its length first, whole however
/// much longer it is than a pipe holds, and never in the child's arguments or environment.
@Suite struct ChildChannelTests {
  @Test func aMessageLongerThanAPipeArrivesWholeAfterItsLength() throws {
    let message = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let script = "head -c 200008 | { dd bs=8 count=1 2>/dev/null | od -An -tu1; cksum; }"
    let output = try ChildProcess.run("/bin/sh", ["-c", script], input: .lifeline(message), timeout: 60)
    let empty = try ChildProcess.run(
      "/bin/sh", ["-c", "head -c 8 | od -An -tu1"], input: .lifeline(Data()), timeout: 60)
    #expect(output.succeeded)
    let lines = output.text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    #expect(lines.first == "0 0 0 0 0 3 13 64")
    #expect(lines.dropFirst().first == Self.cksum(of: message))
    #expect(
      empty.text.split(separator: "\n").first?.split(separator: " ").joined(separator: " ") == "0 0 0 0 0 0 0 0",
      "an empty message is its length alone")
  }

  /// `cksum`'s line for `data`, from the tool itself over a file.
  static func cksum(of data: Data) -> String {
    let path = NSTemporaryDirectory() + "fetchbench-cksum-\(getpid())"
    FileManager.default.createFile(atPath: path, contents: data)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let output = try? ChildProcess.run("/bin/sh", ["-c", "cksum < '\(path)'"])
    return output?.text.split(separator: "\n").first.map { $0.split(separator: " ").joined(separator: " ") } ?? ""
  }
}
