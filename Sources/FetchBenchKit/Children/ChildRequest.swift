import ChildProcesses
import DatasetStores
import Foundation
import Vocabulary

/// Work a FetchBench process does in a process of its own: a case, a load run.
package protocol ChildWork: Codable, Sendable {
  /// The hidden command that does it (`_case`).
  static var command: String { get }
  /// Runs in the child on the request's JSON, after the parent's settings and schemas are in
  /// place and before the work is decoded: what decoding it needs first. Does nothing by default.
  static func prepare(_ request: Data) throws
}

extension ChildWork {
  package static func prepare(_ request: Data) throws {}
}

/// What a parent sends a process it starts for one piece of work: the work, the command's
/// settings and the schemas of users' files it has read, as JSON on the child's standard input
/// (`ChildProcess.Input.lifeline`). The one channel from parent to child: no environment
/// variable, no argument, no file carries anything else.
package struct ChildRequest<Work: ChildWork>: Codable, Sendable {
  package var settings: CommandSettings
  package var schemas: [SchemaCache.Entry]
  package var work: Work

  /// `work` with this process's settings and schemas. O(schemas).
  package init(_ work: Work) {
    (settings, schemas, self.work) = (CommandSettings.current, SchemaCache.entries, work)
  }

  /// Starts this binary's `Work.command` for the request, stopped after `timeout` seconds or
  /// at `memoryCeiling` bytes resident, and waits for it. Throws when it cannot start.
  package func run(relayStandardError: Bool, timeout: Double? = nil, memoryCeiling: Int? = nil) throws
    -> ChildProcess.Output
  {
    try ChildProcess.run(
      ChildProcess.currentExecutable, [Work.command], input: .lifeline(try JSONEncoder().encode(self)),
      relayStandardError: relayStandardError, timeout: timeout, memoryCeiling: memoryCeiling)
  }

  /// In the child: reads the parent's request, makes its settings this process's and keeps its
  /// schemas, then decodes the work. O(request).
  package static func receive() throws -> Work {
    let json = try ChildProcess.receiveFromParent()
    let envelope = try JSONDecoder().decode(ChildEnvelope.self, from: json)
    CommandSettings.update { $0 = envelope.settings }
    SchemaCache.adopt(envelope.schemas)
    try Work.prepare(json)
    return try JSONDecoder().decode(Self.self, from: json).work
  }
}

/// What every request holds besides its work, decoded first.
private struct ChildEnvelope: Decodable {
  var settings: CommandSettings
  var schemas: [SchemaCache.Entry]
}
