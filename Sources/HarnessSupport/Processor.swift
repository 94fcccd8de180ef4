import Foundation

/// The processor a run was measured on: its model and cache sizes. Two machines of the same
/// kind (cores, memory, OS, toolchain) can differ here, and a time ratio between work of
/// different kinds (a cache-resident sort against an allocation-heavy fetch) moves with the
/// caches: the gate judges such ratios only against a baseline from the same processor.
package struct Processor: Sendable, Codable, Hashable, CustomStringConvertible {
  /// `/proc/cpuinfo`'s `model name`, spaces collapsed ("AMD EPYC", "Intel(R) Xeon(R) Processor").
  package var model: String
  /// Data or unified cache sizes of CPU 0 by level, in bytes (0 where the kernel does not say).
  package var l1dBytes: Int
  package var l2Bytes: Int
  package var l3Bytes: Int

  package init(model: String, l1dBytes: Int, l2Bytes: Int, l3Bytes: Int) {
    (self.model, self.l1dBytes, self.l2Bytes, self.l3Bytes) = (model, l1dBytes, l2Bytes, l3Bytes)
  }

  package var description: String {
    func size(_ b: Int) -> String { b >= 1 << 20 && b % (1 << 20) == 0 ? "\(b >> 20) MiB" : "\(b >> 10) KiB" }
    return "\(model) (L1d \(size(l1dBytes)), L2 \(size(l2Bytes)), L3 \(size(l3Bytes)))"
  }

  /// This machine's processor, read from `/proc/cpuinfo` and `/sys/devices/system/cpu/cpu0/cache`.
  /// Elsewhere the model reads "unknown" and the sizes 0. O(1).
  package static func current() -> Processor {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
      cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
      .flatMap { $0.split(separator: ":", maxSplits: 1).last }
      .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") } ?? "unknown"
    var sizes: [Int: Int] = [:]
    let cache = "/sys/devices/system/cpu/cpu0/cache"
    for index in (try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? [] where index.hasPrefix("index") {
      func read(_ name: String) -> String {
        ((try? String(contentsOfFile: "\(cache)/\(index)/\(name)", encoding: .utf8)) ?? "").trimmingCharacters(
          in: .whitespacesAndNewlines)
      }
      guard read("type") != "Instruction", let level = Int(read("level")) else { continue }
      sizes[level] = CacheSize.bytes(read("size")) ?? 0
    }
    return Processor(
      model: model.isEmpty ? "unknown" : model, l1dBytes: sizes[1] ?? 0, l2Bytes: sizes[2] ?? 0, l3Bytes: sizes[3] ?? 0)
  }
}

/// The kernel's cache sizes: "512K", "8192K", "32M".
package enum CacheSize {
  package static func bytes(_ text: String) -> Int? {
    guard let unit = text.last, let n = Int(text.dropLast()) else { return Int(text) }
    switch unit {
    case "K": return n << 10
    case "M": return n << 20
    case "G": return n << 30
    default: return Int(text)
    }
  }
}
