import ArgumentParser
import CommandOptions
import RepartoRuntime

/// `reparto bench jobs`: no-op jobs end to end against a live cluster (workers running); see ``JobsBenchmark``.
struct BenchJobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "Enqueue no-op jobs and measure throughput and submit→finish latency.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Number of jobs.") var count: Int = 20_000
    @Option(help: "Offered load in jobs/s (default: as fast as possible, in batches of --batch).") var rate: Int?
    @Option(help: "Jobs per enqueue transaction when no --rate is given.") var batch: Int = 1000
    @Option(help: "Give up after this many seconds.") var timeout: Double = 600
    @Option(help: "Untimed no-op jobs run first through the same producer and workers (0: none), as the peers' benchmarks do.")
    var warmup: Int = 200
    @Option(help: "Who publishes the jobs: direct (the producer, after its commit, for enqueues of up to 100 jobs; larger ones go to the relays) or relay (the outbox relays).")
    var publish: JobsBenchmark.Publishing = .direct
    @Flag(help: "Print one JSON line instead of text.") var json = false

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        guard batch >= 1 else { throw ValidationError("--batch must be at least 1") }
        if let rate, rate < 1 { throw ValidationError("--rate must be at least 1") }
        guard (0...JobsBenchmark.maxWarmup).contains(warmup) else {
            throw ValidationError("--warmup must be from 0 to \(JobsBenchmark.maxWarmup)")
        }
    }

    func run() async throws {
        let logger = cluster.makeLogger("reparto.bench")
        let benchmark = JobsBenchmark(count: count, rate: rate, batch: batch, timeout: timeout, warmup: warmup)
        let report = try await cluster.withPostgres(maxConnections: 4, logger: logger) { postgres in
            guard publish == .direct else { return try await benchmark.run(client: JobClient(postgres: postgres)) }
            return try await cluster.withJobPublisher(logger: logger) { publisher in
                try await benchmark.run(client: JobClient(postgres: postgres, publisher: publisher))
            }
        }
        print(json ? report.json : report.text)
    }
}

extension JobsBenchmark.Publishing: ExpressibleByArgument {}
