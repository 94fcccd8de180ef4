import Foundation
import Synchronization

/// A child process with both output pipes drained as it runs, a timeout, and one line that
/// says how it ended: the one way the harness, the loaders and the tests start processes.
///
/// Not swift-subprocess (1.0.2 is in the mirror): its API is `async` only, and every caller
/// here is synchronous on a thread of its own (the command line's main thread, a load run's
/// threads, a COPY fed row by row from a SQLite cursor). Bridging would mean a thread blocked
/// on a task; from the tests, which run on the cooperative pool (two threads on this machine
/// kind), two such waits at once leave no thread to finish either task.
///
/// Both pipes are read on threads of their own from the start, so a child that writes more
/// than a pipe holds (64 KiB) to either never blocks. `timeout` sends SIGKILL when it passes;
/// so does `memoryCeiling`, when the child's resident memory passes it, before the kernel's
/// out-of-memory killer takes this machine's other processes (or this one) down with it.
public final class ChildProcess: @unchecked Sendable {
  /// How a child ended.
  public enum Termination: Sendable, Equatable {
    case exited(Int32)
    case signalled(Int32)
    /// Killed by `timeout`.
    case timedOut(Double)
    /// Killed when its resident memory passed the ceiling (bytes), as last read.
    case exceededMemory(ceiling: Int, resident: Int)
  }

  /// What a child wrote and how it ended.
  public struct Output: Sendable {
    public var termination: Termination
    public var standardOutput: Data
    public var standardError: String

    public var text: String { String(decoding: standardOutput, as: UTF8.self) }
    public var succeeded: Bool { termination == .exited(0) }
    /// The exit status, or 128 + the signal as a shell reports it; -1 after a timeout.
    public var status: Int32 {
      switch termination {
      case .exited(let s): s
      case .signalled(let s): 128 + s
      case .timedOut, .exceededMemory: -1
      }
    }

    /// One line for a failed child: `crashed (signal 4): <the runtime's failure line and
    /// where>`, `exit 1: <its last output lines>`, `timed out after 30 s: …`; nil on success.
    public var failure: String? {
      switch termination {
      case .exited(0): nil
      case .exited(let s): "exit \(s): \(CrashReport.tail(standardError))"
      case .signalled(let s): "crashed (signal \(s)): \(CrashReport.summary(of: standardError))"
      case .timedOut(let t): "timed out after \(t) s: \(CrashReport.tail(standardError))"
      case .exceededMemory(let ceiling, let resident):
        """
        stopped at \(Self.gibibytes(resident)) resident, past the ceiling of \(Self.gibibytes(ceiling)): it does not \
        fit in that memory
        """
      }
    }

    static func gibibytes(_ bytes: Int) -> String {
      bytes >= 1 << 30
        ? String(format: "%.1f GiB", Double(bytes) / Double(1 << 30))
        : String(format: "%.0f MiB", Double(bytes) / Double(1 << 20))
    }

    /// Whether the child was stopped for its memory.
    public var exceededMemory: Bool {
      if case .exceededMemory = termination { true } else { false }
    }
  }

  /// Where the child's standard input comes from.
  public enum Input {
    case none
    /// A pipe the caller writes through `standardInput` and closes.
    case pipe
    /// A pipe that carries `message` (its length first, as 8 bytes big-endian), then nothing,
    /// held open until the child has ended: a child of FetchBench's own reads the message
    /// with `receiveFromParent()`, then sees the pipe close when this process ends, however
    /// it ends (SIGKILL too), and ends itself. The one channel from a parent to its child:
    /// the message never appears in the child's arguments or environment, where other users
    /// of the machine can read them.
    case lifeline(Data)
  }

  /// In a child started with `.lifeline`: reads its parent's message from standard input, then
  /// ends this process with SIGTERM (its interrupt handler removes its temporary files) when
  /// the parent's end of standard input closes. Throws when standard input holds no whole
  /// message (the process was not started so). O(message).
  public static func receiveFromParent() throws -> Data {
    let length = try readExactly(8).reduce(0) { $0 << 8 | Int($1) }
    let message = try readExactly(length)
    let thread = Thread {
      var byte: UInt8 = 0
      while true {
        let n = read(0, &byte, 1)
        if n == 0 || (n < 0 && errno != EINTR) { break }
      }
      kill(getpid(), SIGTERM)
    }
    thread.start()
    return message
  }

  /// `count` bytes of standard input. O(count).
  private static func readExactly(_ count: Int) throws -> Data {
    guard count >= 0, count < 1 << 32 else { throw CocoaError(.fileReadCorruptFile) }
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let n = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress! + done, count - done) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw CocoaError(.fileReadCorruptFile) }
      done += n
    }
    return Data(bytes)
  }

  /// `message` as `.lifeline` sends it: its length, 8 bytes big-endian, then its bytes. O(message).
  static func framed(_ message: Data) -> Data {
    Data((0..<8).reversed().map { UInt8(truncatingIfNeeded: message.count >> ($0 * 8)) }) + message
  }

  /// Children started and not yet waited for, and whether `stopAll` has begun: an interrupt
  /// handler on another thread stops them, and no new one starts after it.
  private static let live = Mutex<(pids: Set<Int32>, stopping: Bool)>(([], false))

  public let pid: Int32
  /// The write end of the child's standard input (`Input.pipe`).
  public let standardInput: FileHandle?
  private let process: Process
  private let stdoutReader: PipeReader
  private let stderrReader: PipeReader
  private let timer: DispatchWorkItem?
  private let timedOut = Flag()
  private let timeout: Double?
  private let memoryWatch: MemoryWatch?
  private let lifeline: FileHandle?

  /// Starts `executable` with `arguments`; `environment` entries are added to this process's
  /// environment. `relayStandardError` copies the child's standard error to ours as it
  /// arrives (progress lines), besides keeping it.
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], currentDirectory: String? = nil,
    input: Input = .none, relayStandardError: Bool = false, timeout: Double? = nil, memoryCeiling: Int? = nil
  ) throws {
    let process = Process()
    self.process = process
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    var inputPipe: Pipe?
    if case .none = input {
      process.standardInput = FileHandle.nullDevice
    } else {
      inputPipe = Pipe()
      process.standardInput = inputPipe
    }
    try Self.live.withLock { live in
      guard !live.stopping else { throw CocoaError(.userCancelled) }
      try process.run()
      live.pids.insert(process.processIdentifier)
    }
    pid = process.processIdentifier
    (standardInput, lifeline) =
      switch input {
      case .none: (nil, nil)
      case .pipe: (inputPipe?.fileHandleForWriting, nil)
      case .lifeline: (nil, inputPipe?.fileHandleForWriting)
      }
    if case .lifeline(let message) = input, let lifeline { Self.send(Self.framed(message), to: lifeline) }
    stdoutReader = PipeReader(out.fileHandleForReading, relay: false)
    stderrReader = PipeReader(err.fileHandleForReading, relay: relayStandardError)
    self.timeout = timeout
    if let timeout {
      let (pid, flag) = (pid, timedOut)
      let item = DispatchWorkItem {
        flag.set()
        kill(pid, SIGKILL)
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: item)
      timer = item
    } else {
      timer = nil
    }
    let child = pid
    memoryWatch = memoryCeiling.map { MemoryWatch(pid: child, ceiling: $0) }
  }

  /// Writes `data` to `handle` on a thread of its own, through a duplicate of its descriptor
  /// that the thread closes, with SIGPIPE blocked there: a message longer than a pipe holds
  /// waits for the child to read it without holding up this thread, and a child that ended
  /// before reading it makes the write fail, not this process. O(data).
  private static func send(_ data: Data, to handle: FileHandle) {
    let fd = dup(handle.fileDescriptor)
    guard fd >= 0 else { return }
    Thread.detachNewThread {
      var blocked = sigset_t()
      sigemptyset(&blocked)
      sigaddset(&blocked, SIGPIPE)
      pthread_sigmask(SIG_BLOCK, &blocked, nil)
      defer { close(fd) }
      data.withUnsafeBytes { bytes in
        var done = 0
        while done < bytes.count {
          let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
          if n < 0 && errno == EINTR { continue }
          guard n > 0 else { return }
          done += n
        }
      }
    }
  }

  /// Sends `signal` to the child.
  public func send(_ signal: Int32) { kill(pid, signal) }

  /// Waits for the child to end and for both pipes to close. Call once.
  public func wait() -> Output {
    try? standardInput?.close()
    let stdout = stdoutReader.wait()
    let stderr = stderrReader.wait()
    process.waitUntilExit()
    try? lifeline?.close()
    let stopping = Self.live.withLock { live in
      live.pids.remove(pid)
      return live.stopping
    }
    // Ended by an interrupt's `stopAll`, whose handler ends this process with the signal's
    // status: the caller must not go on to report the child as failed (and exit 1 first).
    while stopping { sleep(60) }
    timer?.cancel()
    let stoppedAt = memoryWatch?.stop()
    let termination: Termination =
      if let stoppedAt, let ceiling = memoryWatch?.ceiling {
        .exceededMemory(ceiling: ceiling, resident: stoppedAt)
      } else if timedOut.isSet, let timeout { .timedOut(timeout) } else if process.terminationReason == .uncaughtSignal
      {
        .signalled(process.terminationStatus)
      } else { .exited(process.terminationStatus) }
    return Output(
      termination: termination, standardOutput: stdout, standardError: String(decoding: stderr, as: UTF8.self))
  }

  /// For an interrupt: sends `signal` to every child still running, so that each removes its
  /// own temporary files and ends, and waits until each has been waited for (by the threads
  /// that started them) or `grace` seconds have passed, then kills the rest. No child starts
  /// after this is called. O(children) plus the wait.
  public static func stopAll(_ signal: Int32, grace: Double = 10) {
    let pids = live.withLock { live in
      live.stopping = true
      return live.pids
    }
    for pid in pids { kill(pid, signal) }
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(grace * 1e9)
    while !live.withLock({ $0.pids.isEmpty }) && DispatchTime.now().uptimeNanoseconds < deadline { usleep(10_000) }
    for pid in live.withLock({ $0.pids }) { kill(pid, SIGKILL) }
  }

  /// Starts a child and waits for it.
  public static func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], currentDirectory: String? = nil,
    input: Input = .none, relayStandardError: Bool = false, timeout: Double? = nil, memoryCeiling: Int? = nil
  ) throws -> Output {
    try ChildProcess(
      executable, arguments, environment: environment, currentDirectory: currentDirectory, input: input,
      relayStandardError: relayStandardError, timeout: timeout, memoryCeiling: memoryCeiling
    ).wait()
  }

  /// What a measuring child may hold: the memory available when this process asks (Linux's
  /// `MemAvailable`, which counts reclaimable caches), less 1 GiB for this process, the
  /// kernel and what the polling can miss between two reads. nil where it cannot be read.
  public static func defaultMemoryCeiling() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
      let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return nil }
    return max(1 << 28, kib * 1024 - (1 << 30))
  }

  /// This binary, to start children of.
  public static var currentExecutable: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  }

  /// The first of `candidates` that is an executable file.
  public static func executable(_ candidates: [String]) -> String? {
    candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeReader: Sendable {
  private let data = Mutex(Data())
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle, relay: Bool) {
    Thread.detachNewThread { [self] in
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        if relay { FileHandle.standardError.write(chunk) }
        data.withLock { $0.append(chunk) }
      }
      done.signal()
    }
  }

  /// The bytes read, once the pipe has closed.
  func wait() -> Data {
    done.wait()
    return data.withLock { $0 }
  }
}

/// Reads a child's resident memory every 10 ms on a thread of its own and kills the child
/// when it passes the ceiling. Allocating faster than 1 GiB in 10 ms is not something these
/// children do: touching new pages runs at a few GiB per second here.
private final class MemoryWatch: Sendable {
  let ceiling: Int
  /// The resident bytes read when the ceiling was passed.
  private let exceeded = Mutex<Int?>(nil)
  private let running = Mutex(true)
  private let done = DispatchSemaphore(value: 0)

  init(pid: Int32, ceiling: Int) {
    self.ceiling = ceiling
    let page = sysconf(Int32(_SC_PAGESIZE))
    let path = "/proc/\(pid)/statm"
    Thread.detachNewThread { [self] in
      defer { done.signal() }
      while running.withLock({ $0 }) {
        // statm: size resident shared … in pages. Gone once the child is reaped.
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        let fields = text.split(separator: " ")
        if fields.count > 1, let pages = Int(fields[1]), pages * page > ceiling {
          exceeded.withLock { $0 = pages * page }
          kill(pid, SIGKILL)
          return
        }
        usleep(10_000)
      }
    }
  }

  /// Stops watching; the resident bytes at which the child was killed, if it was.
  func stop() -> Int? {
    running.withLock { $0 = false }
    done.wait()
    return exceeded.withLock { $0 }
  }
}

/// Set once by the timer's thread, read after it.
private final class Flag: Sendable {
  private let value = Mutex(false)
  func set() { value.withLock { $0 = true } }
  var isSet: Bool { value.withLock { $0 } }
}
