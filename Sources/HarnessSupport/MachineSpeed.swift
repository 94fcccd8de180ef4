import Foundation
import TextFormatting

/// Two fixed pieces of work timed on the machine a run measures on, so that a reader can tell
/// two machines apart that report the same processor and caches: shared machines of one kind
/// run the same work at speeds that differ by up to about two times from one day to another, and
/// the allocation-heavy work (fresh pages faulted in) differs by more than the cache-resident one
/// (a sort). A report's machine line states both; compare absolute times across reports only
/// where they are close.
package struct MachineSpeed: Sendable, Codable, Hashable, CustomStringConvertible {
  /// Sorting `sortCount` pseudo-random 64-bit integers (the same ones every time), in ms.
  package var sortMs: Double
  /// Writing one byte to each 4 KiB page of `faultBytes` of freshly mapped memory, in ms.
  package var faultMs: Double

  package static let sortCount = 1_000_000
  package static let faultBytes = 64 << 20
  package static let repetitions = 5

  package init(sortMs: Double, faultMs: Double) { (self.sortMs, self.faultMs) = (sortMs, faultMs) }

  /// Times both pieces of work, the median of `repetitions` after one warm-up each: about half
  /// a second; nil where fresh memory cannot be mapped. O(sortCount · log sortCount + faultBytes / 4096).
  package static func measure() -> MachineSpeed? {
    let numbers = pseudoRandom(count: sortCount)
    func median(_ work: () -> Void) -> Double {
      work()
      return Summary(
        (0..<repetitions).map { _ in
          let t0 = Clock.wallNanos
          work()
          return Double(Clock.wallNanos - t0) / 1e6
        }
      ).median
    }
    let sort = median {
      var copy = numbers
      copy.sort()
      precondition(copy.count == numbers.count)
    }
    var mapped = true
    let fault = median { mapped = mapped && faultInFreshPages() }
    return mapped ? MachineSpeed(sortMs: sort, faultMs: fault) : nil
  }

  /// "sorted 1,000,000 integers in 61.2 ms and faulted in 64 MiB in 23.4 ms (medians of 5)".
  package var description: String {
    "sorted \(Self.sortCount.grouped) integers in \(Self.ms(sortMs)) ms and faulted in "
      + "\(Self.faultBytes >> 20) MiB in \(Self.ms(faultMs)) ms (medians of \(Self.repetitions))"
  }

  /// The text results files hold: "sort_ms=61.2;fault_ms=23.4".
  package var recorded: String { "sort_ms=\(Self.ms(sortMs));fault_ms=\(Self.ms(faultMs))" }

  /// Reads `recorded`'s text; nil for any other (a run recorded before speeds were).
  package init?(recorded text: String) {
    var values: [Substring: Double] = [:]
    for part in text.split(separator: ";") {
      let pair = part.split(separator: "=", maxSplits: 1)
      guard pair.count == 2, let v = Double(pair[1]), v.isFinite, v >= 0 else { return nil }
      values[pair[0]] = v
    }
    guard let sort = values["sort_ms"], let fault = values["fault_ms"] else { return nil }
    self.init(sortMs: sort, faultMs: fault)
  }

  private static func ms(_ v: Double) -> String { String(format: "%.1f", v) }

  /// xorshift64: the same integers on every machine and toolchain.
  private static func pseudoRandom(count: Int) -> [UInt64] {
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    return (0..<count).map { _ in
      x ^= x << 13
      x ^= x >> 7
      x ^= x << 17
      return x
    }
  }

  /// Maps fresh anonymous memory, so that every page faults whatever the allocator keeps, and
  /// writes a byte to each page; false where the memory cannot be mapped.
  private static func faultInFreshPages() -> Bool {
    let page = 4096
    guard let base = mmap(nil, faultBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      base != MAP_FAILED
    else { return false }
    defer { munmap(base, faultBytes) }
    let bytes = base.assumingMemoryBound(to: UInt8.self)
    for offset in stride(from: 0, to: faultBytes, by: page) { bytes[offset] = 1 }
    return true
  }
}
