import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CPU time as the kernel counts it: of this process, of its reaped children, and of other
/// processes (from /proc). What the benchmarks compare besides wall time.
enum CPUTime {
    /// User + system CPU seconds of this process and its reaped children.
    static func selfAndChildren() -> Double {
        var me = rusage()
        getrusage(RUSAGE_SELF.rawValue, &me)
        return seconds(me) + children()
    }

    /// User + system CPU seconds of the reaped children (and theirs).
    static func children() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return seconds(usage)
    }

    private static func seconds(_ usage: rusage) -> Double {
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// User + system CPU seconds of a running process and of the children it reaped (from /proc).
    static func process(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // After "pid (comm)": state is field 3; utime, stime, cutime, cstime are fields 14–17.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 14 else { return 0 }
        let ticks = fields[11...14].compactMap { Double($0) }.reduce(0, +)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds (own and reaped children) of the database's and the broker's processes.
    static func servers() -> Double {
        let now = ProcessCPUBreakdown.now()
        return (now.seconds[.postgres] ?? 0) + (now.seconds[.rabbitmq] ?? 0)
    }

    /// The 1, 5 and 15 minute load averages, as /proc/loadavg shows them.
    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }
}
