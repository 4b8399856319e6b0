import ArgumentParser
import Foundation
import Histogram
import Jobs
import Postgres

/// `reparto bench jobs`: no-op jobs end to end against a live cluster (workers running).
///
/// Full durability: job rows committed, messages persistent and confirmed, completions committed
/// before acks. Throughput is jobs / (last finish − first enqueue); latency per job is its
/// `finished_at − created_at` as PostgreSQL recorded them.
struct BenchJobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "Enqueue no-op jobs and measure throughput and submit→finish latency.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Number of jobs.")
    var count: Int = 20_000

    @Option(help: "Offered load in jobs/s (default: as fast as possible, in batches of --batch).")
    var rate: Int?

    @Option(help: "Jobs per enqueue transaction when no --rate is given.")
    var batch: Int = 1000

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 600

    @Flag(help: "Print one JSON line instead of text.")
    var json = false

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        guard batch >= 1 else { throw ValidationError("--batch must be at least 1") }
        if let rate, rate < 1 { throw ValidationError("--rate must be at least 1") }
    }

    func run() async throws {
        let logger = cluster.makeLogger("reparto.bench")
        let report = try await cluster.withPostgres(maxConnections: 4, logger: logger) { postgres in
            let client = JobClient(postgres: postgres)
            let production = try await client.createProduction(name: "bench \(count) noop")
            let options = JobOptions(maxAttempts: 1, productionID: production)
            let parameters = Data("{}".utf8)
            let clock = ContinuousClock()
            let start = clock.now
            var sent = 0
            if let rate {
                // Small batches every 10 ms, on schedule (not "sleep after work"), so the load is offered evenly.
                let perTick = max(1, rate / 100)
                var tick = 0
                while sent < count {
                    let n = min(perTick, count - sent)
                    try await client.enqueue((0..<n).map { _ in
                        JobRequest(kind: NoopJob.kind, queue: NoopJob.queue, parameters: parameters, options: options)
                    })
                    sent += n
                    tick += 1
                    let due = start + .milliseconds(10 * tick)
                    if due > clock.now { try await Task.sleep(until: due, clock: clock) }
                }
            } else {
                while sent < count {
                    let n = min(batch, count - sent)
                    try await client.enqueue((0..<n).map { _ in
                        JobRequest(kind: NoopJob.kind, queue: NoopJob.queue, parameters: parameters, options: options)
                    })
                    sent += n
                }
            }
            let enqueued = clock.now - start
            // Every job final (the production's own state needs a coordinator; this does not).
            _ = try await client.awaitProduction(production, timeout: timeout, logger: logger) { progress in
                progress.total > 0 && progress.done >= progress.total
            }
            return try await BenchReport.load(production: production, enqueueSeconds: enqueued / .seconds(1), on: postgres)
        }
        print(json ? report.json : report.text)
    }
}

/// What `bench jobs` measured.
struct BenchReport {
    var jobs: Int
    var failed: Int
    var seconds: Double
    var enqueueSeconds: Double
    var p50: Double
    var p99: Double
    var max: Double

    var jobsPerSecond: Double { Double(jobs) / Swift.max(seconds, 1e-9) }

    static func load(production: UUID, enqueueSeconds: Double, on postgres: PostgresClient) async throws -> BenchReport {
        let summary = try await postgres.query("""
            SELECT count(*) AS n, count(*) FILTER (WHERE state <> 'succeeded') AS failed,
                   extract(epoch FROM max(finished_at) - min(created_at))::float8 AS seconds
            FROM jobs WHERE production_id = $1
            """, [production])
        let latencies = try await postgres.query("""
            SELECT (extract(epoch FROM finished_at - created_at) * 1000000)::bigint AS us
            FROM jobs WHERE production_id = $1 AND finished_at IS NOT NULL
            """, [production])
        var histogram = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        for row in latencies { histogram.record(UInt64(Swift.max(0, row.int64("us") ?? 0))) }
        let row = summary.first
        return BenchReport(
            jobs: row?.int("n") ?? 0, failed: row?.int("failed") ?? 0, seconds: row?.double("seconds") ?? 0,
            enqueueSeconds: enqueueSeconds,
            p50: Double(histogram.valueAtPercentile(50)) / 1000, p99: Double(histogram.valueAtPercentile(99)) / 1000,
            max: Double(histogram.max) / 1000)
    }

    var text: String {
        """
        jobs:        \(jobs) (\(failed) not succeeded)
        wall time:   \(String(format: "%.3f", seconds)) s (enqueue took \(String(format: "%.3f", enqueueSeconds)) s)
        throughput:  \(String(format: "%.0f", jobsPerSecond)) jobs/s
        latency:     p50 \(String(format: "%.2f", p50)) ms, p99 \(String(format: "%.2f", p99)) ms, max \(String(format: "%.2f", max)) ms
        """
    }

    var json: String {
        String(format: #"{"peer":"reparto","jobs":%d,"failed":%d,"seconds":%.4f,"jobs_per_second":%.1f,"p50_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f}"#,
               jobs, failed, seconds, jobsPerSecond, p50, p99, max)
    }
}
