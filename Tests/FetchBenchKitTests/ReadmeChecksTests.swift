import Foundation
import TestSupport
import Testing

/// What the README states, checked against where it comes from: each figure in a
/// section marked `<!-- figures: SOURCE … -->` … `<!-- /figures -->` appears in one of its
/// sources (a committed results file, or `help:COMMAND`, the command's own help), and the
/// section's links into results/ point at those sources' runs; each default a command's
/// synopsis states is the one its help states; the first 150 lines have no sentence over 40
/// words. Each check is also shown failing on a README edited to break it.
@Suite struct ReadmeChecks {
  static let root = TestSupport.packageRoot

  static func readme(_ name: String = "README.md") throws -> String {
    try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
  }

  @Test func everyFigureInAMarkedSectionIsInItsSource() throws {
    for name in ["README.md", "results/README.md"] {
      let text = try Self.readme(name)
      let sections = ReadmeText.figureSections(text)
      if name == "README.md" { #expect(sections.count >= 3, "the README marks its figures' sections") }
      for section in sections {
        let sources = try section.sources.map(Self.source)
        let missing = ReadmeText.unmatchedFigures(section.text, in: sources)
        #expect(missing.isEmpty, "\(name), section from \(section.sources): not in its sources: \(missing)")
        let base = (name as NSString).deletingLastPathComponent
        let foreign = ReadmeText.foreignLinks(
          section.text, sources: section.sources, base: base.isEmpty ? "" : base + "/")
        #expect(foreign.isEmpty, "\(name): links to another run than the section's sources: \(foreign)")
      }
    }
  }

  /// A figure edited by hand, or a chart from another run, fails the check.
  @Test func anEditedFigureFailsTheCheck() throws {
    let text = try Self.readme()
    let section = try #require(
      ReadmeText.figureSections(text).first { $0.sources.contains("results/reference/report.md") })
    let sources = try section.sources.map(Self.source)
    let figure = try #require(ReadmeText.figures(section.text).first { $0.contains(".") && $0 != "0.0" })
    let edited = section.text.replacingOccurrences(of: figure, with: figure + "1")
    #expect(ReadmeText.unmatchedFigures(edited, in: sources).contains(figure + "1"))
    let otherRun = section.text + "\n![x](results/scale/reference/charts/banks-0-sqlite-scaling.svg)\n"
    #expect(
      ReadmeText.foreignLinks(otherRun, sources: section.sources) == [
        "results/scale/reference/charts/banks-0-sqlite-scaling.svg"
      ])
  }

  /// `fetchbench run [--batch-size 20]`: a value in a synopsis's brackets that is not a
  /// placeholder or a list of choices is the option's default, and the help says it.
  @Test func eachSynopsisDefaultIsTheHelps() throws {
    let text = try Self.readme()
    let stated = ReadmeText.synopsisDefaults(text)
    #expect(stated.count >= 20, "\(stated.count)")
    var helps: [String: String] = [:]
    for d in stated {
      if helps[d.command] == nil { helps[d.command] = try Self.help(d.command) }
      #expect(
        ReadmeText.helpStates(helps[d.command]!, option: d.option, default: d.value),
        "README: `fetchbench \(d.command) [\(d.option) \(d.value)]`, but its help does not say that default")
    }
    let wrong = try Self.help("run")
    #expect(!ReadmeText.helpStates(wrong, option: "--store", default: "memory,sqlite"))
    #expect(ReadmeText.helpStates(wrong, option: "--store", default: "memory,sqlite,sqlite-coredata"))
  }

  @Test func theFirst150LinesHaveNoSentenceOver40Words() throws {
    let long = ReadmeText.sentences(try Self.readme(), lines: 150).filter { ReadmeText.words($0) > 40 }
    #expect(long.isEmpty, "\(long.count) sentences over 40 words: \(long.map { "(\(ReadmeText.words($0))) \($0)" })")
    let one = Array(repeating: "word", count: 41).joined(separator: " ") + ". Short one (e.g. `x`). Next."
    #expect(ReadmeText.sentences(one, lines: 1).map(ReadmeText.words) == [41, 4, 1])
  }

  /// A source's text: a file of the repository, or a command's help.
  static func source(_ name: String) throws -> String {
    if name.hasPrefix("help:") { return try help(String(name.dropFirst(5))) }
    return try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
  }

  static func help(_ command: String) throws -> String {
    let out = try TestSupport.run(["help", command])
    #expect(out.status == 0, "\(out.stderr)")
    return out.stdout
  }
}

/// The README's text as the checks read it.
enum ReadmeText {
  struct Section {
    var sources: [String]
    var text: String
  }

  /// The sections between `<!-- figures: A B -->` and `<!-- /figures -->`.
  static func figureSections(_ text: String) -> [Section] {
    text.components(separatedBy: "<!-- figures: ").dropFirst().compactMap { part in
      guard let head = part.range(of: " -->"), let end = part.range(of: "<!-- /figures -->") else { return nil }
      let sources = part[..<head.lowerBound].split(separator: " ").map(String.init)
      return Section(sources: sources, text: String(part[head.upperBound..<end.lowerBound]))
    }
  }

  /// Prose without what is not a stated figure: code blocks, link targets, comments, and code
  /// spans (which may wrap a line), each read as `codeSpan` (a sentence counts one as a word).
  static func prose(_ text: String, codeSpan: String = " ") -> String {
    var s = text
    for (pattern, with) in [
      ("```[\\s\\S]*?```", " "), ("`[^`]+`", codeSpan), ("\\]\\([^)]*\\)", "]"), ("<!--[\\s\\S]*?-->", " "),
    ] {
      s = s.replacingOccurrences(of: pattern, with: with, options: .regularExpression)
    }
    return s
  }

  /// The numbers stated: `320.5`, `244,292`, `0.10`, `6.3.1`; not those inside a word (`x86`).
  static func figures(_ text: String) -> [String] {
    let s = prose(text)
    // Foundation's regular expressions: Swift's Regex has no lookbehind.
    let regex = try! NSRegularExpression(pattern: "(?<![\\w.,/#-])\\d+(?:[.,]\\d+)*(?![\\w])")
    return regex.matches(in: s, range: NSRange(s.startIndex..., in: s)).map { String(s[Range($0.range, in: s)!]) }
  }

  /// The figures of `text` found in none of `sources` as a whole number. O(figures · sources).
  static func unmatchedFigures(_ text: String, in sources: [String]) -> [String] {
    var missing: [String] = []
    for f in figures(text) where !missing.contains(f) {
      let escaped = NSRegularExpression.escapedPattern(for: f)
      let whole = "(?<![\\d.,])\(escaped)(?![\\d]|[.,]\\d)"
      if !sources.contains(where: { $0.range(of: whole, options: .regularExpression) != nil }) { missing.append(f) }
    }
    return missing
  }

  /// Links and images into results/ outside the folders of `sources`, each as the path from
  /// the repository's root (`base` is the folder of the file the links are in).
  static func foreignLinks(_ text: String, sources: [String], base: String = "") -> [String] {
    let folders = sources.filter { !$0.hasPrefix("help:") }.map { ($0 as NSString).deletingLastPathComponent + "/" }
    return text.matches(of: /\]\(([^)#:]+)\)/).map { base + String($0.output.1) }.filter { link in
      link.hasPrefix("results/") && !link.hasSuffix("README.md") && !folders.contains { link.hasPrefix($0) }
    }
  }

  /// `fetchbench CMD [--option VALUE]` in a synopsis line: VALUE when it reads as a value
  /// (no placeholder in capitals, no `|` of choices, no `…`).
  static func synopsisDefaults(_ text: String) -> [(command: String, option: String, value: String)] {
    var out: [(String, String, String)] = []
    for line in text.split(separator: "\n") {
      guard let m = line.firstMatch(of: /`fetchbench ([a-z]+) (?:--recommend )?\[/) else { continue }
      let command = String(m.output.1)
      for o in line.matches(of: /\[(--[a-z-]+) ([^\[\]\s]+)\]/) {
        let value = String(o.output.2)
        guard !value.contains("|"), !value.contains("…"), !value.contains("..."),
          value.rangeOfCharacter(from: .uppercaseLetters) == nil
        else { continue }
        out.append((command, String(o.output.1), value))
      }
    }
    return out
  }

  /// Whether `help`'s entry for `option` states `value` as its default: the same text, or the
  /// same number to the digits the README writes (`16.7` for 16.666…, `500` for 500.0).
  static func helpStates(_ help: String, option: String, default value: String) -> Bool {
    // ArgumentParser lists an option as `  --name <value>  help` or `  -o, --name <value>  help`.
    let bare = option.dropFirst()
    let entries = help.components(separatedBy: "\n  -").filter {
      $0.hasPrefix("\(bare) ") || $0.hasPrefix("\(bare)\n") || $0.contains(", \(option) ")
    }
    let stated = entries.flatMap { entry in
      entry.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        .matches(of: /default:? ([^\s);,]+(?:,[^\s);,]+)*)/).map { String($0.output.1) }
    }
    return stated.contains { s in
      if s == value { return true }
      guard let a = Double(s), Double(value) != nil else { return false }
      let decimals = value.split(separator: ".").dropFirst().first?.count ?? 0
      return String(format: "%.\(decimals)f", a) == value
    }
  }

  /// The sentences of the first `lines` lines' prose: paragraphs and list items, without
  /// headings, tables, code blocks, comments and images; split after `.`, `!` or `?` before a
  /// capital, a digit, a backtick or a bracket, but not after `e.g.`, `i.e.`, `vs.` or `etc.`.
  static func sentences(_ text: String, lines: Int) -> [String] {
    var paragraphs: [String] = []
    var current: [String] = []
    var inCode = false
    func flush() {
      if !current.isEmpty { paragraphs.append(current.joined(separator: " ")) }
      current = []
    }
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(lines) {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("```") {
        inCode.toggle()
        flush()
        continue
      }
      if inCode { continue }
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("|") || line.hasPrefix("![") || line.hasPrefix("<!--") {
        flush()
        continue
      }
      if line.hasPrefix("- ") || line.hasPrefix("* ") || line.firstMatch(of: #/^\d+\. /#) != nil { flush() }
      current.append(line)
    }
    flush()
    var out: [String] = []
    for p in paragraphs {
      let words = prose(p, codeSpan: "X").split(separator: " ").map(String.init)
      var sentence: [String] = []
      for (i, w) in words.enumerated() {
        sentence.append(w)
        let next = i + 1 < words.count ? words[i + 1] : nil
        let ends = w.last.map { ".!?".contains($0) } ?? false
        let abbreviation = ["e.g.", "i.e.", "vs.", "etc.", "cf."].contains { w.lowercased().hasSuffix($0) }
        let starts =
          next.map { n in n.first.map { $0.isUppercase || $0.isNumber || "`([*\"".contains($0) } ?? false } ?? true
        if ends && !abbreviation && starts {
          out.append(sentence.joined(separator: " "))
          sentence = []
        }
      }
      if !sentence.isEmpty { out.append(sentence.joined(separator: " ")) }
    }
    return out
  }

  /// Words: whitespace-separated pieces with a letter or digit in them.
  static func words(_ sentence: String) -> Int {
    sentence.split(whereSeparator: \.isWhitespace).filter { $0.contains { $0.isLetter || $0.isNumber } }.count
  }
}
