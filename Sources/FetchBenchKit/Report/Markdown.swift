/// Text from data (error messages, names, commit ids, machine descriptions) made safe to put
/// into a Markdown report: what it holds is shown, never read as table, code or HTML syntax.
enum Markdown {
  /// Escapes a table cell or a list item: `|`, backslashes, backticks, `*`, `<`, `>`, `&`,
  /// and line breaks (as `<br>`; "\r\n" is one Character). O(n).
  static func escape(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s {
      switch c {
      case "|", "\\", "`", "*": out += "\\\(c)"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "&": out += "&amp;"
      case "\n", "\r", "\r\n": out += "<br>"
      default: out.append(c)
      }
    }
    return out
  }

  /// `s` as an inline code span: fenced by one backtick more than its longest run of
  /// backticks (CommonMark), on one line, `|` escaped so a table cell stays whole. O(n).
  static func code(_ s: String) -> String {
    let line = s.split(whereSeparator: \.isNewline).joined(separator: " ")
    var longest = 0
    var run = 0
    for c in line {
      run = c == "`" ? run + 1 : 0
      longest = max(longest, run)
    }
    let fence = String(repeating: "`", count: longest + 1)
    let pad = line.first == "`" || line.last == "`" ? " " : ""
    return fence + pad + line.replacingOccurrences(of: "|", with: "\\|") + pad + fence
  }
}
