import Foundation
import Histogram
import RepartoRuntime
import Postgres

/// What `bench jobs` measured.
public struct JobsBenchReport: Sendable {
    /// Jobs of the benchmark's production.
    public var jobs: Int
    /// Jobs that did not succeed.
    public var failed: Int
    /// First enqueue to last finish, seconds.
    public var seconds: Double
    /// How long enqueueing took, seconds.
    public var enqueueSeconds: Double
    /// Submit-to-finish latency percentiles and maximum, milliseconds.
    public var p50: Double, p99: Double, max: Double
    /// CPU spent by the processes on this machine over the run, by role (nil: not measured).
    public var cpu: ProcessCPUBreakdown?

    /// Throughput over the whole run.
    public var jobsPerSecond: Double { Double(jobs) / Swift.max(seconds, 1e-9) }

    /// The report of `production`'s jobs as PostgreSQL recorded them.
    public static func load(production: UUID, enqueueSeconds: Double, on postgres: PostgresClient) async throws -> JobsBenchReport {
        let summary = try await BenchmarkReads.summary(production: production, on: postgres)
        var histogram = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        for us in try await BenchmarkReads.latencyMicroseconds(production: production, on: postgres) {
            histogram.record(UInt64(Swift.max(0, us)))
        }
        return JobsBenchReport(
            jobs: summary.jobs, failed: summary.notSucceeded, seconds: summary.seconds, enqueueSeconds: enqueueSeconds,
            p50: Double(histogram.valueAtPercentile(50)) / 1000, p99: Double(histogram.valueAtPercentile(99)) / 1000,
            max: Double(histogram.max) / 1000)
    }

    /// The report as text lines.
    public var text: String {
        """
        jobs:        \(jobs) (\(failed) not succeeded)
        wall time:   \(String(format: "%.3f", seconds)) s (enqueue took \(String(format: "%.3f", enqueueSeconds)) s)
        throughput:  \(String(format: "%.0f", jobsPerSecond)) jobs/s
        latency:     p50 \(String(format: "%.2f", p50)) ms, p99 \(String(format: "%.2f", p99)) ms, max \(String(format: "%.2f", max)) ms
        """ + (cpuText.map { "\ncpu per job: \($0)" } ?? "") + (processText.map { "\nprocesses:   \($0)" } ?? "")
    }

    /// "312 µs (postgres 150, rabbitmq 90, …)": the CPU of the run per job, in total and by role.
    public var cpuText: String? {
        guard let cpu else { return nil }
        let perJob = cpu.microsecondsPer(jobs)
        let parts = perJob.byRole.map { "\($0.0.rawValue) \(String(format: "%.0f", $0.1))" }
        return "\(String(format: "%.0f", perJob.total)) µs (\(parts.joined(separator: ", ")))"
    }

    /// "1 worker, 1 coordinator": Reparto's processes on this machine at the end of the run.
    public var processText: String? {
        guard let cpu else { return nil }
        let workers = cpu.processes[.workers] ?? 0, coordinators = cpu.processes[.coordinator] ?? 0
        return "\(workers) worker\(workers == 1 ? "" : "s"), \(coordinators) coordinator\(coordinators == 1 ? "" : "s")"
    }

    /// The report as one JSON line (what bench/jobs/run.sh collects).
    public var json: String {
        var line = String(format: #"{"peer":"reparto","jobs":%d,"failed":%d,"seconds":%.4f,"jobs_per_second":%.1f,"p50_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f"#,
                          jobs, failed, seconds, jobsPerSecond, p50, p99, max)
        if let cpu {
            let perJob = cpu.microsecondsPer(jobs)
            let roles = perJob.byRole.map { "\"\($0.0.rawValue)\":" + String(format: "%.1f", $0.1) }
            line += #","cpu_us_per_job":"# + String(format: "%.1f", perJob.total) + #","cpu_us_per_job_by_role":{"# + roles.joined(separator: ",") + "}"
            line += #","processes":{"workers":\#(cpu.processes[.workers] ?? 0),"coordinators":\#(cpu.processes[.coordinator] ?? 0)}"#
        }
        return line + "}"
    }
}
