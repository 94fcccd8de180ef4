import Foundation

/// How busy the machine was while a measured child ran: CPU time spent by everything else
/// (other processes, the kernel's own work) and stolen by the hypervisor, from /proc/stat,
/// less the child's own CPU time and the PostgreSQL server's (which works for the child). A
/// gate figure that moved while others took a core is weaker evidence than one measured on a
/// quiet machine; the gate says so next to it.
///
/// Linux only; elsewhere every figure reads 0.
package struct CPUWatch {
  /// Jiffies of busy and stolen CPU time, all cores, and the children's CPU seconds so far.
  package struct Reading {
    package var busyTicks: UInt64
    package var stealTicks: UInt64
    package var childrenSeconds: Double
    package var ownSeconds: Double
    package var serverTicks: UInt64
    package var wallNanos: UInt64
  }

  /// What the rest of the machine did between two readings, in cores (1.0 = one core fully
  /// busy) averaged over the interval.
  package struct Load: Sendable, Equatable {
    package var othersCores: Double
    package var stealCores: Double
    package var seconds: Double

    package init(othersCores: Double, stealCores: Double, seconds: Double) {
      (self.othersCores, self.stealCores, self.seconds) = (othersCores, stealCores, seconds)
    }
  }

  package static func read() -> Reading {
    var busy: UInt64 = 0
    var steal: UInt64 = 0
    if let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
    {
      // cpu user nice system idle iowait irq softirq steal guest guest_nice
      let f = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
      if f.count >= 8 {
        busy = f[0] + f[1] + f[2] + f[5] + f[6]
        steal = f[7]
      }
    }
    func seconds(_ who: Int32) -> Double {
      var u = rusage()
      getrusage(who, &u)
      return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
    return Reading(
      busyTicks: busy, stealTicks: steal, childrenSeconds: seconds(RUSAGE_CHILDREN.rawValue),
      ownSeconds: seconds(RUSAGE_SELF.rawValue),
      serverTicks: postgresTicks(), wallNanos: Clock.wallNanos)
  }

  /// CPU ticks of every `postgres` process, with those of its reaped children (a backend
  /// that ended during the case is counted in the postmaster's cutime). O(processes).
  package static func postgresTicks() -> UInt64 {
    guard let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
    var total: UInt64 = 0
    for pid in pids where pid.first?.isNumber == true {
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
        stat[stat.index(after: open)..<close] == "postgres"
      else { continue }
      // After "(comm)": state is field 3; utime, stime, cutime, cstime are fields 14–17.
      let f = stat[stat.index(after: close)...].split(separator: " ")
      guard f.count > 14 else { continue }
      total += [11, 12, 13, 14].reduce(UInt64(0)) { $0 + (UInt64(f[$1]) ?? 0) }
    }
    return total
  }

  package static func load(from a: Reading, to b: Reading) -> Load {
    let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
    let wall = Double(b.wallNanos - a.wallNanos) / 1e9
    guard wall > 0, hz > 0 else { return Load(othersCores: 0, stealCores: 0, seconds: wall) }
    let busy = Double(b.busyTicks &- a.busyTicks) / hz
    let ours =
      (b.childrenSeconds - a.childrenSeconds) + (b.ownSeconds - a.ownSeconds) + Double(b.serverTicks &- a.serverTicks)
      / hz
    return Load(
      othersCores: max(0, busy - ours) / wall, stealCores: Double(b.stealTicks &- a.stealTicks) / hz / wall,
      seconds: wall)
  }
}
