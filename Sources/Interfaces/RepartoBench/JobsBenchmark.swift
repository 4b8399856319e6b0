import Foundation
import RepartoRuntime
import Logging
import Postgres

/// `reparto bench jobs`: no-op jobs end to end against a live cluster (workers running).
///
/// Full durability: job rows committed, messages persistent and confirmed, completions committed
/// before acks. Throughput is jobs / (last finish − first enqueue); latency per job is its
/// `finished_at − created_at` as PostgreSQL recorded them. CPU is every local process's that
/// takes part (``ProcessCPUBreakdown``), from the first enqueue to the last job's end.
///
/// Before the clock starts, ``warmup`` untimed jobs go through the same client and workers, as
/// the peers' benchmarks do (bench/celery, bench/dramatiq, bench/pgqueuer): the figures are of a
/// producer that has planned its statements and opened its broker channel, not of its first
/// enqueue.
public struct JobsBenchmark: Sendable {
    /// Number of jobs.
    public var count: Int
    /// Offered load in jobs/s; nil: as fast as possible, in batches of `batch`.
    public var rate: Int?
    /// Jobs per enqueue transaction when no `rate` is given.
    public var batch: Int
    /// Seconds to wait for every job to finish (the warm-up's and the measured ones', each).
    public var timeout: Double
    /// Untimed no-op jobs run first, in a production of their own (0: none).
    public var warmup: Int
    /// The most warm-up jobs `bench jobs` accepts.
    public static let maxWarmup = 100_000

    /// A benchmark of `count` no-op jobs, after `warmup` untimed ones.
    public init(count: Int, rate: Int?, batch: Int, timeout: Double, warmup: Int = 0) {
        self.count = count
        self.rate = rate
        self.batch = batch
        self.timeout = timeout
        self.warmup = warmup
    }

    /// The warm-up's enqueues: at most `largestPublished` jobs each, so they take the path a
    /// rate's ticks take (published by the producer itself, ``JobPublisher/maxJobsPerEnqueue``).
    static func warmupBatches(_ warmup: Int, largestPublished: Int) -> [Int] {
        guard warmup > 0 else { return [] }
        let size = max(1, largestPublished)
        return stride(from: 0, to: warmup, by: size).map { min(size, warmup - $0) }
    }

    /// Who publishes the benchmark's jobs to the broker.
    public enum Publishing: String, Sendable, CaseIterable {
        /// The producer, right after its commit (``JobPublisher``), for enqueues of up to its
        /// ``JobPublisher/maxJobsPerEnqueue`` jobs (a rate's ticks; not the flat-out batches).
        case direct
        /// The outbox relays.
        case relay
    }

    /// Jobs offered by the end of 10 ms tick `tick` (from 0) at `rate` jobs/s: the ticks' batches
    /// add up to the rate exactly (a whole `rate / 100` each offered 1,400 jobs/s for 1,496).
    static func jobsDue(throughTick tick: Int, rate: Int) -> Int {
        guard tick >= 0 else { return 0 }
        let (product, overflow) = (tick + 1).multipliedReportingOverflow(by: rate)
        return overflow ? Int.max : product / 100
    }

    /// Enqueues the jobs into a production of their own through `client` (with its publisher or
    /// without), waits until all are final, and reports.
    public func run(client: JobClient) async throws -> JobsBenchReport {
        let postgres = client.postgres
        let parameters = Data("{}".utf8)
        let clock = ContinuousClock()
        if warmup > 0 {
            let warm = try await client.createProduction(name: "bench warm-up \(warmup) noop")
            let options = JobOptions(maxAttempts: 1, productionID: warm)
            for size in Self.warmupBatches(warmup, largestPublished: client.publisher?.maxJobsPerEnqueue ?? warmup) {
                try await client.enqueue(Self.noops(size, parameters: parameters, options: options))
            }
            try await awaitFinal(warm, what: "warm-up", jobs: warmup, postgres: postgres, clock: clock)
        }
        let production = try await client.createProduction(name: "bench \(count) noop")
        let options = JobOptions(maxAttempts: 1, productionID: production)
        let cpuBefore = ProcessCPUBreakdown.now()
        let start = clock.now
        var sent = 0
        func enqueue(_ n: Int) async throws {
            try await client.enqueue(Self.noops(n, parameters: parameters, options: options))
            sent += n
        }
        if let rate {
            // Small batches every 10 ms, on schedule (not "sleep after work"), so the load is offered evenly.
            var tick = 0
            while sent < count {
                let jobs = Self.jobsDue(throughTick: tick, rate: rate) - Self.jobsDue(throughTick: tick - 1, rate: rate)
                if jobs > 0 { try await enqueue(min(jobs, count - sent)) }
                tick += 1
                let due = start + .milliseconds(10 * tick)
                if due > clock.now { try await Task.sleep(until: due, clock: clock) }
            }
        } else {
            while sent < count { try await enqueue(min(batch, count - sent)) }
        }
        let enqueued = clock.now - start
        try await awaitFinal(production, what: "benchmark", jobs: count, postgres: postgres, clock: clock)
        let cpu = ProcessCPUBreakdown.now().spent(since: cpuBefore)
        var report = try await JobsBenchReport.load(production: production, enqueueSeconds: enqueued / .seconds(1), on: postgres)
        report.cpu = cpu
        return report
    }

    private static func noops(_ n: Int, parameters: Data, options: JobOptions) -> [JobRequest] {
        (0..<n).map { _ in JobRequest(kind: NoopJob.kind, queue: NoopJob.queue, parameters: parameters, options: options) }
    }

    /// Returns once every job of `production` is final (the production's own state needs a
    /// coordinator; this does not). A probe every 250 ms: the figures are PostgreSQL's
    /// timestamps, not when this looked.
    private func awaitFinal(_ production: UUID, what: String, jobs: Int, postgres: PostgresClient,
                            clock: ContinuousClock) async throws {
        let deadline = clock.now + .seconds(timeout)
        while try await BenchmarkReads.hasActiveJobs(production: production, on: postgres) {
            guard clock.now < deadline else {
                throw RepartoError.timeout("the \(what)'s \(jobs) jobs did not all finish within \(timeout) s")
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
