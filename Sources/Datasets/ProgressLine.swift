import Foundation
import Synchronization
import TextFormatting

/// One line of progress on standard error: redrawn in place on a terminal, silent otherwise
/// (logs and CI output stay clean).
public final class ProgressLine: Sendable {
  private struct State {
    var lastDraw: UInt64 = 0
    var drawn = false
    var started: [String: UInt64] = [:]
  }
  private let state = Mutex(State())
  private let enabled: Bool

  /// `enabled` defaults to whether standard error is a terminal.
  public init(enabled: Bool = isatty(STDERR_FILENO) == 1) { self.enabled = enabled }

  /// Redraws `label: done/total (pct) ETA`, at most ten times a second. O(1).
  public func update(_ label: String, done: Int, total: Int) {
    guard enabled else { return }
    let now = DispatchTime.now().uptimeNanoseconds
    let text: String? = state.withLock { s in
      let start = s.started[label] ?? now
      s.started[label] = start
      guard now - s.lastDraw > 100_000_000 || done == total else { return nil }
      s.lastDraw = now
      s.drawn = true
      let fraction = total > 0 ? Double(done) / Double(total) : 1
      let elapsed = Double(now - start) / 1e9
      let eta = fraction > 0.01 ? elapsed / fraction - elapsed : 0
      let width = 30
      let filled = Int(fraction * Double(width))
      let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
      return "\r\(label) [\(bar)] \(done.grouped)/\(total.grouped) \(Int(fraction * 100))%"
        + (done < total ? " ~\(Int(eta.rounded()))s left " : "            ")
    }
    if let text { FileHandle.standardError.write(Data(text.utf8)) }
  }

  /// Writes `text` on a line of its own, on a terminal or not: a wait the user should know of.
  public func note(_ text: String) {
    finish()
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// Ends the line, if one was drawn.
  public func finish() {
    guard enabled else { return }
    let drawn = state.withLock { s in
      defer { s.drawn = false }
      return s.drawn
    }
    if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
  }
}
