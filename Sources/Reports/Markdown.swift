import Foundation
import ResultModel
import TextFormatting

/// Text from data (error messages, names, commit ids, machine descriptions) made safe to put
/// into a Markdown report: what it holds is shown, never read as table, code or HTML syntax.
package enum Markdown {
  /// "Run `R` at commit `C` (a clean tree) on PROCESSOR, 2 cores, 23 GiB, OS, Swift." for one
  /// run's rows; a report
  /// rendered from several runs' rows (`fetchbench report` on joined CSVs) names each run
  /// with its commit. O(rows · runs).
  package static func provenance(_ rows: [ResultRow]) -> String {
    guard let first = rows.first else { return "" }
    var runs: [(id: String, commit: String, figures: Int)] = []
    for r in rows {
      if let i = runs.firstIndex(where: { $0.id == r.runID }) {
        runs[i].figures += 1
      } else {
        runs.append((r.runID, r.machine.gitCommit, 1))
      }
    }
    let which =
      runs.count <= 1
      ? "Run \(code(first.runID)) at commit \(code(first.machine.gitCommit)) (\(first.machine.commitSummary))"
      : "Runs "
        + runs.map { "\(code($0.id)) (commit \(code($0.commit)), \($0.figures) figure\($0.figures == 1 ? "" : "s"))" }
        .joined(
          separator: ", ")
    return
      """
      \(which) on \(escape(first.machine.summary)).\n\n
      """
  }

  /// Escapes a table cell or a list item: `|`, backslashes, backticks, `*`, `<`, `>`, `&`,
  /// and line breaks (as `<br>`; "\r\n" is one Character). O(n).
  package static func escape(_ s: String) -> String {
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
  package static func code(_ s: String) -> String {
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

  /// The cases that did not give figures: those that failed, with their error, and those
  /// stopped at the memory ceiling, with the row count at which they stop fitting here.
  /// `label` names a case. Empty when every case measured.
  package static func caseOutcomes(_ rows: [ResultRow], label: (ResultRow) -> String) -> String {
    var md = ""
    let unfit = rows.filter { $0.status == .doesNotFit }
    if !unfit.isEmpty {
      md += "## Cases that do not fit in this machine's memory\n\n"
      md +=
        """
        Each was stopped when its process's resident memory passed the ceiling given in its row (by default the \
        memory available when the case started, less 1 GiB; `--memory-ceiling` sets another), before the kernel's \
        out-of-memory killer: at this row count the case does not fit in that memory.\n\n
        """
      md += MarkdownTable(.left("case"), .right("rows"), .right("stopped at"), .left("why")).header
      for f in unfit {
        md += "| \(escape(label(f))) | \(f.rows.grouped) | \(bytes(f.value)) | \(escape(f.error)) |\n"
      }
      md += "\n"
    }
    let failed = rows.filter { $0.status == .failed }
    if !failed.isEmpty {
      md += "## Failed cases\n\n" + MarkdownTable(.left("case"), .left("error")).header
      for f in failed { md += "| \(escape(label(f))) | \(escape(f.error)) |\n" }
      md += "\n"
    }
    return md
  }
}
