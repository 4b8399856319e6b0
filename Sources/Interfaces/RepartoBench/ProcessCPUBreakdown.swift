import Foundation

/// CPU time of every process on this machine that takes part in a run, by role: the database,
/// the broker, Reparto's workers and coordinators, the benchmark itself. Two snapshots, one
/// before and one after, give what each role spent on the run (``ProcessCPUBreakdown/spent(since:)``).
///
/// Read from /proc: a process's own user + system time plus that of the children it reaped, so
/// PostgreSQL backends that end during the run are counted through the postmaster. A process
/// that exits between the snapshots without a measured parent is lost to the figure, which the
/// benchmarks avoid by keeping their processes alive across the run.
public struct ProcessCPUBreakdown: Sendable, Equatable {
    /// The roles a process is counted under.
    public enum Role: String, Sendable, CaseIterable {
        case postgres, rabbitmq, workers, coordinator, otherReparto = "other-reparto", bench
    }

    /// CPU seconds per role.
    public var seconds: [Role: Double]
    /// How many processes had each role (at the later snapshot, for a difference): a report shows
    /// a run that had a stray worker or a second coordinator taking jobs and CPU from it.
    public var processes: [Role: Int]

    public init(seconds: [Role: Double], processes: [Role: Int] = [:]) {
        self.seconds = seconds
        self.processes = processes
    }

    /// CPU seconds summed over every role.
    public var total: Double { seconds.values.reduce(0, +) }

    /// What each role spent since `earlier` (never negative: a process that exited took its time with it).
    public func spent(since earlier: ProcessCPUBreakdown) -> ProcessCPUBreakdown {
        var delta: [Role: Double] = [:]
        for role in Role.allCases {
            delta[role] = max(0, (seconds[role] ?? 0) - (earlier.seconds[role] ?? 0))
        }
        return ProcessCPUBreakdown(seconds: delta, processes: processes)
    }

    /// Microseconds of CPU per item (a job), per role and in total.
    public func microsecondsPer(_ items: Int) -> (total: Double, byRole: [(Role, Double)]) {
        let n = Double(max(items, 1))
        return (total * 1e6 / n, Role.allCases.map { ($0, (seconds[$0] ?? 0) * 1e6 / n) })
    }

    /// The processes running now, by role.
    public static func now() -> ProcessCPUBreakdown {
        let me = getpid()
        var seconds: [Role: Double] = [:]
        var processes: [Role: Int] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry) else { continue }
            let comm = ((try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard let role = role(pid: pid, comm: comm, me: me) else { continue }
            seconds[role, default: 0] += CPUTime.process(pid)
            processes[role, default: 0] += 1
        }
        return ProcessCPUBreakdown(seconds: seconds, processes: processes)
    }

    /// The role of a process, or nil for one that takes no part.
    static func role(pid: Int32, comm: String, me: Int32) -> Role? {
        if pid == me { return .bench }
        switch comm {
        case "postgres": return .postgres
        case "beam.smp", "epmd", "erl_child_setup", "inet_gethost": return .rabbitmq
        case "reparto":
            return role(arguments: arguments(of: pid))
        default: return nil
        }
    }

    /// The role of a `reparto` process from its arguments: the first that is a subcommand.
    static func role(arguments: [String]) -> Role {
        for argument in arguments.dropFirst() where !argument.hasPrefix("-") {
            switch argument {
            case "worker": return .workers
            case "coordinator": return .coordinator
            default: return .otherReparto
            }
        }
        return .otherReparto
    }

    private static func arguments(of pid: Int32) -> [String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }
}
