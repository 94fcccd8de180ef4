import Foundation
import Reports

// `compare`'s outputs: the verdict first, then what changed either way, then the rest.
extension Comparison {
  /// `regressed: 2, improved: 1, changed: 0, unchanged: 140, not judged: 12`.
  var counts: String {
    Verdict.allCases.map { v in "\(v.rawValue): \(lines.filter { $0.verdict == v }.count)" }.joined(separator: ", ")
  }

  /// One sentence: what the exit code means for these runs.
  var verdictSentence: String {
    if let refusal {
      return refusal.hasPrefix("nothing")
        ? "Not compared: \(refusal)." : "Not compared: \(refusal) (--allow-differences compares them anyway)."
    }
    let bad = lines.filter { $0.verdict == .regressed || $0.verdict == .changed }.count
    let failed = headFailures.isEmpty ? "" : "\(headFailures.count) case(s) of the head failed. "
    return failed
      + (bad > 0
        ? "\(bad) figure(s) regressed or changed."
        : failed.isEmpty ? "No figure regressed." : "No other figure regressed.")
  }

  /// The head's failed cases, a line each; empty when none failed.
  var failuresText: String {
    headFailures.keys.sorted().map { "  \($0): \(headFailures[$0]!)" }.joined(separator: "\n")
  }

  /// Why times went unjudged, and what to do: a line per reason; empty when none did.
  var processesNote: String {
    let few = lines.filter(\.tooFewProcesses).count
    let busy = lines.filter(\.busyMachine).count
    return
      (few == 0
      ? ""
      : """
      \(few) figure(s) not judged (times and page faults): measured in fewer than 3 processes a side; run both with \
      --processes 3.\n
      """)
      + (busy == 0
        ? ""
        : """
        \(busy) time(s) not judged: the machine was busy while a side measured them (each says how busy); measure \
        again on a quiet machine.\n
        """)
  }

  /// Plain text for a terminal. O(lines).
  package func text() -> String {
    var out =
      verdictSentence + "\n" + counts + "\n" + (modelNote.map { $0 + "\n" } ?? "") + (speedNote.map { $0 + "\n" } ?? "")
      + processesNote
    guard refusal == nil else { return out }
    if !headFailures.isEmpty { out += "\nfailed in the head:\n" + failuresText + "\n" }
    for v in [Verdict.regressed, .changed, .improved] {
      let these = lines.filter { $0.verdict == v }
      guard !these.isEmpty else { continue }
      out += "\n\(v.rawValue):\n" + these.map { "  \($0.name): \($0.detail)" }.joined(separator: "\n") + "\n"
    }
    return out
  }

  /// A pull-request summary for `$GITHUB_STEP_SUMMARY`: the verdict, the changed figures in a
  /// table, and every other figure in a collapsed `<details>`. O(lines).
  package func markdown() -> String {
    var md =
      "### FetchBench: \(verdictSentence)\n\n\(counts)\n\n" + (modelNote.map { $0 + "\n\n" } ?? "")
      + (speedNote.map { $0 + "\n\n" } ?? "")
      + (processesNote.isEmpty ? "" : processesNote + "\n")
    guard refusal == nil else { return md }
    if !headFailures.isEmpty {
      md +=
        "Failed in the head:\n\n"
        + headFailures.keys.sorted().map { "- `\($0)`: \(Markdown.escape(headFailures[$0]!))" }.joined(separator: "\n")
        + "\n\n"
    }
    func table(_ rows: [Line]) -> String {
      MarkdownTable(.left("figure"), .left("verdict"), .left("base → head")).header
        + rows.map { "| `\($0.name)` | \($0.verdict.rawValue) | \(Markdown.escape($0.detail)) |" }.joined(
          separator: "\n") + "\n"
    }
    let changed = lines.filter { [.regressed, .changed, .improved].contains($0.verdict) }
    if !changed.isEmpty { md += table(changed) + "\n" }
    let rest = lines.filter { ![.regressed, .changed, .improved].contains($0.verdict) }
    if !rest.isEmpty {
      md += "<details><summary>\(rest.count) other figures</summary>\n\n" + table(rest) + "\n</details>\n"
    }
    return md
  }

  /// Every line as JSON, with the verdict and the exit code: `{"verdict", "exitCode",
  /// "refusal", "modelNote", "speedNote", "failedInHead", "figures": [{"name", "verdict", "detail"}]}`. O(lines).
  package func json() throws -> Data {
    struct Figure: Encodable {
      var name: String
      var verdict: String
      var detail: String
    }
    struct Document: Encodable {
      var verdict: String
      var exitCode: Int32
      var refusal: String?
      var modelNote: String?
      var speedNote: String?
      /// The head's failed cases and why.
      var failedInHead: [String: String]
      var figures: [Figure]
    }
    return try RunExport.encode(
      Document(
        verdict: verdictSentence, exitCode: exitCode, refusal: refusal, modelNote: modelNote,
        speedNote: speedNote,
        failedInHead: headFailures,
        figures: lines.map { Figure(name: $0.name, verdict: $0.verdict.rawValue, detail: $0.detail) }))
  }
}
