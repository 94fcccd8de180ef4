extension Int {
  /// `244292` → `244,292`, independent of locale.
  public var grouped: String {
    let digits = String(self.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
      out.append(c)
    }
    return self < 0 ? "-" + out : out
  }
}

extension String {
  /// The text broken at spaces into lines of at most `width` characters (a longer word keeps
  /// its own line), each after `indent`; the lines end in a newline. O(length).
  public func wrapped(width: Int = 80, indent: String = "") -> String {
    var lines: [String] = []
    var line = indent
    for word in split(separator: " ", omittingEmptySubsequences: true) {
      if line.count > indent.count && line.count + 1 + word.count > width {
        lines.append(line)
        line = indent
      }
      line += (line.count > indent.count ? " " : "") + word
    }
    lines.append(line)
    return lines.joined(separator: "\n") + "\n"
  }
}
