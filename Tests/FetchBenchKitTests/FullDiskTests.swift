import Foundation
import TestSupport
import Testing

/// A disk that fills up mid-write ends the command with one `Error:` line naming the file and
/// `No space left on device`, and leaves nothing half-written: no partial dataset, no output
/// folder, no journal of a run that never started. The disk is a 1 MiB tmpfs (this needs
/// root, which CI machines of this kind run as).
@Suite(.serialized) struct FullDisk {
  /// A new 1 MiB file system at a new folder; the test is skipped where this process may not
  /// mount one (it is not root), and fails where mounting fails as root.
  static func mountSmallDisk(_ name: String) throws -> String {
    try TestSupport.requireRoot(for: "mount a 1 MiB tmpfs")
    let dir = TestSupport.temporaryFolder(name)
    let status = Self.shell(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir])
    guard status == 0 else {
      TestSupport.remove(dir)
      throw TestSupport.Unavailable(description: "mount -t tmpfs failed (exit \(status)) as root")
    }
    return dir
  }

  static func unmount(_ dir: String) {
    _ = shell(["umount", dir])
    TestSupport.remove(dir)
  }

  static func shell(_ arguments: [String]) -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = arguments
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return -1 }
    p.waitUntilExit()
    return p.terminationStatus
  }

  /// Fills the disk at `dir` to the last byte with one file.
  static func fill(_ dir: String) {
    let fd = open(dir + "/fill", O_WRONLY | O_CREAT, 0o644)
    defer { close(fd) }
    let block = [UInt8](repeating: 0, count: 4096)
    while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
  }

  @Test func generateOnAFullDiskKeepsNothing() throws {
    let disk = try Self.mountSmallDisk("full-generate")
    defer { Self.unmount(disk) }
    for format in ["sqlite", "csv", "sqlite,csv"] {
      let out = try TestSupport.run(["generate", "--dataset", "banks", "--rows", "20000", "--format", format, "--datasets", disk])
      #expect(out.status == 1, "\(format): \(out.stderr)")
      let errors = UserFiles.errorLines(out.stderr)
      #expect(errors.count == 1 && errors[0].hasSuffix("No space left on device; nothing of it was kept"), "\(format): \(out.stderr)")
      #expect(errors.first?.contains(disk + "/banks-20000") == true, "\(format): \(out.stderr)")
      #expect(TestSupport.listing(disk) == [], "\(format)")
    }
  }

  @Test func runOnAFullDiskKeepsNothing() throws {
    let dir = TestSupport.temporaryFolder("full-run")
    defer { TestSupport.remove(dir) }
    let datasets = try UserFiles.banks(1_000, in: dir)
    let disk = try Self.mountSmallDisk("full-run-disk")
    defer { Self.unmount(disk) }
    Self.fill(disk)
    let out = try TestSupport.run([
      "run", "--dataset", "banks", "--rows", "1000", "--store", "sqlite", "--mode", "batched", "--scenario", "first_screen",
      "--repetitions", "1", "--no-index", "--datasets", datasets, "--out", disk + "/out",
    ])
    #expect(out.status == 1, "\(out.stderr)")
    let errors = UserFiles.errorLines(out.stderr)
    #expect(errors.count == 1 && errors[0].contains("No space left on device"), "\(out.stderr)")
    #expect(TestSupport.listing(disk) == ["fill"], "no output folder, no journal of a run that never started")
  }
}
