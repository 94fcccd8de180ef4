import Vocabulary

/// Why a run cannot start over an unfinished one, or `--resume` cannot continue it: results
/// of two programs or two plans are never mixed in one run.
package enum ResumeError: CodedError, Equatable {
  case unfinishedRunThere(journal: String, out: String)
  case nothingToResume(out: String, journal: String)
  case nothingToResumeUnder(String)
  case unreadablePlan(journal: String)
  case otherCommit(journal: String, kept: String, built: String)
  case otherOptions(journal: String, why: String)
  case unreadableCase(file: String, detail: String)

  package var code: String {
    switch self {
    case .unfinishedRunThere: "resume.unfinished-run-there"
    case .nothingToResume: "resume.nothing-to-resume"
    case .nothingToResumeUnder: "resume.nothing-to-resume-under"
    case .unreadablePlan: "resume.unreadable-plan"
    case .otherCommit: "resume.other-commit"
    case .otherOptions: "resume.other-options"
    case .unreadableCase: "resume.unreadable-case"
    }
  }

  package var description: String {
    switch self {
    case .unfinishedRunThere(let dir, let out):
      "\(dir) holds an unfinished run into \(out): add --resume to continue it, or remove that folder to start over"
    case .nothingToResume(let out, let dir):
      "--resume: no unfinished run into \(out) (no \(dir)/plan.json); run without --resume"
    case .nothingToResumeUnder(let runs):
      "--resume: no unfinished run under \(runs); give its --out, or run without --resume"
    case .unreadablePlan(let dir): "\(dir)/plan.json is unreadable; remove \(dir) and run without --resume"
    case .otherCommit(let dir, let kept, let built):
      """
      --resume: \(dir) was measured at commit \(kept), this build is at \(built); build \(kept) to continue it, or \
      remove \(dir) to start over
      """
    case .otherOptions(let dir, let why):
      "--resume: \(dir) was started with other options (\(why)); give the same options, or remove \(dir) to start over"
    case .unreadableCase(let file, let detail):
      """
      \(file), a finished case kept by the unfinished run, is unreadable (\(detail)); remove that file and --resume \
      runs the case again
      """
    }
  }

  package static let examples: [Self] = [
    .unfinishedRunThere(journal: "runs/a.unfinished", out: "runs/a"),
    .nothingToResume(out: "runs/a", journal: "runs/a.unfinished"), .nothingToResumeUnder("results/runs"),
    .unreadablePlan(journal: "runs/a.unfinished"),
    .otherCommit(journal: "runs/a.unfinished", kept: "abc", built: "def"),
    .otherOptions(journal: "runs/a.unfinished", why: "3 cases there, 4 here"),
    .unreadableCase(file: "runs/a.unfinished/case-1.csv", detail: "results.csv: the header is not run_id"),
  ]
}
