import Foundation

/// What a child process that died by a signal said about it, in one line a user can act on:
/// the runtime's failure line and where in this project's sources it happened.
///
/// The Swift runtime's backtracer prints, on standard error:
///
/// ```
/// *** Swift runtime failure: precondition failure ***
/// …
/// Thread 3 "writer-0" crashed:
///
///   0 [inlined] [system] 0x… Swift runtime failure: precondition failure in fetchbench at …
///   1                    0x… SeededRandom.below(_:) + 46 in fetchbench at …/Datasets/SeededRandom.swift:33:5
///   2                    0x… BankWorkload.takeRandom() + 80 in fetchbench at …/FetchBenchKit/…:64:20
/// …
/// Images (17 omitted):
/// …
/// Backtrace took 3.29s
/// ```
///
/// Its last lines (the image list) name no cause, so the summary takes the failure line and the
/// crashed thread's first frames in `Sources/`:
/// `Swift runtime failure: precondition failure at SeededRandom.swift:33 in SeededRandom.below(_:)
/// ← BankWorkload.swift:64 in BankWorkload.takeRandom()`.
public enum CrashReport {
  /// Frames of the project's own sources that the summary names, innermost first.
  static let frames = 3

  /// One line: the failure and where it happened; the output's last lines when it holds no
  /// backtrace. O(n) in the length of `stderr`.
  public static func summary(of stderr: String) -> String {
    let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard let failure = failureLine(lines) else { return tail(stderr) }
    let places = projectFrames(lines).prefix(frames)
    guard !places.isEmpty else { return failure }
    return failure + " at " + places.joined(separator: " ← ")
  }

  /// "Fatal error: message" (it carries the message), else the backtracer's headline.
  static func failureLine(_ lines: [String]) -> String? {
    if let fatal = lines.first(where: { $0.contains("Fatal error:") }) {
      return String(fatal[fatal.range(of: "Fatal error:")!.lowerBound...])
    }
    for line in lines {
      if line.hasPrefix("*** Swift runtime failure:") {
        return line.trimmingCharacters(in: CharacterSet(charactersIn: "* "))
      }
      if let r = line.range(of: "Program crashed: ") {
        return "Program crashed: " + line[r.upperBound...]
      }
    }
    return nil
  }

  /// `File.swift:LINE in Symbol` for the crashed thread's frames under a `Sources/` folder
  /// (not a dependency's checkout under `.build/`).
  static func projectFrames(_ lines: [String]) -> [String] {
    guard let start = lines.firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix("crashed:") }) else {
      return []
    }
    var out: [String] = []
    for line in lines[(start + 1)...] {
      if line.hasPrefix("Thread ") || line.hasPrefix("Registers:") || line.hasPrefix("Images") { break }
      guard let at = line.range(of: " at /", options: .backwards) else { continue }
      let path = line[line.index(after: at.lowerBound)...]
      guard path.contains("/Sources/"), !path.contains("/.build/") else { continue }
      // "…/SeededRandom.swift:33:5" → "SeededRandom.swift:33"
      let file = path.split(separator: "/").last.map(String.init) ?? String(path)
      let parts = file.split(separator: ":")
      let place = parts.count >= 2 ? "\(parts[0]):\(parts[1])" : file
      out.append("\(place) in \(symbol(line[..<at.lowerBound]))")
    }
    return out
  }

  /// "1   0x… SeededRandom.below(_:) + 46 in fetchbench" → "SeededRandom.below(_:)".
  static func symbol(_ frame: Substring) -> String {
    var text = frame
    if let inBinary = text.range(of: " in ", options: .backwards) { text = text[..<inBinary.lowerBound] }
    if let offset = text.range(of: " + ", options: .backwards) { text = text[..<offset.lowerBound] }
    guard let address = text.range(of: "0x") else { return String(text) }
    let afterAddress = text[address.upperBound...].drop { $0.isHexDigit }
    return afterAddress.trimmingCharacters(in: .whitespaces)
  }

  /// The last three lines, for output that holds no backtrace.
  public static func tail(_ s: String) -> String {
    let lines = s.split(separator: "\n").suffix(3).joined(separator: " | ")
    return lines.isEmpty ? "(no output)" : String(lines.prefix(600))
  }
}
