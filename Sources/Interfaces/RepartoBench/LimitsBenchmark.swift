import ProductionKit
import Foundation
import Threading
import RepartoRuntime
import Logging
import Postgres

/// `reparto bench limits`: a cluster-wide rate limit obeyed by several worker processes, and
/// what the limit machinery costs jobs that run under no limit.
///
/// In a database of its own, with `workers` `reparto worker` processes:
/// 1. **Limited**: `jobs` no-op jobs under a limit of `rate`/s with `burst`; from the admission
///    instants PostgreSQL recorded, the most starts in any 1 s window (the limit allows
///    `rate + burst`) and the steady rate after the burst (the goal: ≥ 95 % of `rate`).
/// 2. **Overhead**: `overheadJobs` unlimited no-op jobs with no limit or pause defined, then the
///    same with 20 limits and a pause defined that do not apply to them (every claim then checks
///    them), alternated `rounds` times; throughput of each and their ratio.
public struct LimitsBenchmark: Sendable {
    public var jobs: Int
    public var rate: Double
    public var burst: Double
    public var workers: Int
    public var concurrency: Int
    public var overheadJobs: Int
    public var rounds: Int
    /// Extra `reparto worker` arguments (`--env-file`, `--amqp-url`).
    public var workerArguments: [String]

    public init(jobs: Int = 2000, rate: Double = 50, burst: Double = 5, workers: Int = 4, concurrency: Int = 32,
                overheadJobs: Int = 20000, rounds: Int = 2, workerArguments: [String] = []) {
        (self.jobs, self.rate, self.burst, self.workers, self.concurrency, self.overheadJobs, self.rounds,
         self.workerArguments) =
            (jobs, rate, burst, workers, concurrency, overheadJobs, rounds, workerArguments)
    }

    public struct Report: Sendable, CustomStringConvertible {
        public var jobs: Int
        public var rate: Double
        public var burst: Double
        public var workers: Int
        /// The most admissions in any window of 1 s.
        public var maxInOneSecond: Int
        /// Admissions per second after the initial burst.
        public var steadyRate: Double
        public var deferrals: Int
        /// Attempts beyond the first (waiting must never cost one).
        public var extraAttempts: Int
        /// Unlimited jobs/s with nothing defined, and with limits and a pause defined that do not apply.
        public var plain: [Double]
        public var withControls: [Double]

        public var description: String {
            func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
            let ratio = mean(plain) > 0 ? mean(withControls) / mean(plain) : 0
            return String(format: """
                limited: %d jobs, %d workers, limit %.0f/s burst %.0f
                  most starts in any 1 s window: %d (allowed %.0f) %@
                  steady rate after the burst: %.2f/s = %.1f %% of the limit %@
                  deferrals %d, attempts beyond the first %d
                unlimited jobs (%d rounds): %@ jobs/s with nothing defined, %@ jobs/s with 20 limits and a pause defined
                  ratio %.3f %@

                """, jobs, workers, rate, burst, maxInOneSecond, rate + burst,
                          Double(maxInOneSecond) <= rate + burst ? "ok" : "EXCEEDED",
                          steadyRate, 100 * steadyRate / rate, steadyRate >= 0.95 * rate ? "ok" : "below 95 %",
                          deferrals, extraAttempts, plain.count,
                          plain.map { String(format: "%.0f", $0) }.joined(separator: ", "),
                          withControls.map { String(format: "%.0f", $0) }.joined(separator: ", "),
                          ratio, ratio >= 0.95 ? "ok (overhead ≤ 5 %)" : "overhead above 5 %")
        }
    }

    public func run(admin: PostgresConfiguration, logger: Logger) async throws -> Report {
        let namespace = "benchlimits_\(SpeechClusterBench.hex(8))"
        let database = try await BenchDatabase.create(admin: admin, namespace: namespace, logger: logger)
        var environment = ProcessInfo.processInfo.environment
        if let password = database.configuration.password { environment["REPARTO_DATABASE_PASSWORD"] = password }
        let arguments = ["worker", "--queues", NoopJob.queue, "--concurrency", "\(concurrency)", "--prefetch", "\(concurrency * 8)",
                         "--heartbeat", "1", "--drain-timeout", "5", "--namespace", namespace, "--database-url", database.url,
                         "--log-level", "warning"] + workerArguments
        let children = try (0..<workers).map { _ in
            try ChildProcess.start((SpeechClusterBench.executable.path, arguments), environment: environment)
        }
        return try await withCleanup {
            try await measure(database.postgres, logger: logger)
        } cleanup: {
            await ChildProcess.stop(children)
            await database.drop()
        }
    }

    private func measure(_ postgres: PostgresClient, logger: Logger) async throws -> Report {
        let client = JobClient(postgres: postgres)
        _ = try await batch(200, limit: nil, client: client, logger: logger)  // warm-up: every worker up and consuming

        try await client.setLimit(LimitSpec(name: "bench:limit", rate: rate, burst: burst))
        let limited = try await batch(jobs, limit: "bench:limit", client: client, logger: logger)
        let starts = try await BenchmarkReads.starts(production: limited.production, on: postgres)
        try await client.deleteLimit("bench:limit")
        var maxInOneSecond = 0
        for (index, start) in starts.seconds.enumerated() {
            maxInOneSecond = max(maxInOneSecond, starts.seconds[index...].prefix { $0 < start + 1 }.count)
        }
        let afterBurst = starts.seconds.dropFirst(Int(burst))
        let steady = afterBurst.count > 1
            ? Double(afterBurst.count - 1) / ((afterBurst.last ?? 0) - (afterBurst.first ?? 0)) : 0

        var plain: [Double] = [], withControls: [Double] = []
        for round in 0..<rounds {
            for defined in (round % 2 == 0 ? [false, true] : [true, false]) {
                if defined {
                    for index in 0..<20 { try await client.setLimit(LimitSpec(name: "bench:other-\(index)", concurrency: 1)) }
                    try await client.pause(PauseTarget(.kind, "bench-nothing"))
                }
                let run = try await batch(overheadJobs, limit: nil, client: client, logger: logger)
                if defined {
                    withControls.append(run.throughput)
                    for index in 0..<20 { try await client.deleteLimit("bench:other-\(index)") }
                    try await client.resume(PauseTarget(.kind, "bench-nothing"))
                } else {
                    plain.append(run.throughput)
                }
            }
        }
        return Report(jobs: jobs, rate: rate, burst: burst, workers: workers, maxInOneSecond: maxInOneSecond,
                      steadyRate: steady, deferrals: starts.deferrals, extraAttempts: starts.extraAttempts,
                      plain: plain, withControls: withControls)
    }

    /// Enqueues `count` no-op jobs in one production, waits for all, returns it and jobs/s.
    private func batch(_ count: Int, limit: String?, client: JobClient, logger: Logger) async throws
        -> (production: UUID, throughput: Double) {
        let production = try await client.createProduction(name: "bench limits \(count)")
        let options = JobOptions(maxAttempts: 1, productionID: production, limit: limit)
        let parameters = Data("{}".utf8)
        _ = try await client.enqueue(count: count, chunkSize: 2000) { _ in
            JobRequest(kind: NoopJob.kind, queue: NoopJob.queue, parameters: parameters, options: options)
        }
        _ = try await client.awaitProduction(production, timeout: 600, logger: logger) { $0.total > 0 && $0.done >= $0.total }
        let summary = try await BenchmarkReads.summary(production: production, on: client.postgres)
        guard summary.notSucceeded == 0 else { throw BenchError("\(summary.notSucceeded) of \(count) jobs did not succeed") }
        return (production, summary.seconds > 0 ? Double(summary.jobs) / summary.seconds : 0)
    }
}
