import ArgumentParser
import CommandOptions

/// `reparto bench limits`: a cluster-wide rate limit across worker processes, and its overhead.
struct BenchLimitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limits",
        abstract: "Run jobs under a rate limit on several worker processes (in a database of its own) and measure the limit's overhead.")

    @OptionGroup var cluster: ClusterOptions
    @Option(help: "Jobs under the limit.") var jobs: Int = 2000
    @Option(help: "The limit, starts per second.") var rate: Double = 50
    @Option(help: "The limit's burst.") var burst: Double = 5
    @Option(help: "Worker processes.") var workers: Int = 4
    @Option(help: "Handlers per worker.") var concurrency: Int = 32
    @Option(help: "Unlimited jobs per overhead run.") var overheadJobs: Int = 20000
    @Option(help: "Overhead rounds (each runs with and without limits defined).") var rounds: Int = 2

    func validate() throws {
        guard jobs >= 10, rate > 0, burst >= 1, workers >= 1, concurrency >= 1, overheadJobs >= 100, rounds >= 1 else {
            throw ValidationError("--jobs ≥ 10, --rate > 0, --burst ≥ 1, --workers, --concurrency, --rounds ≥ 1, --overhead-jobs ≥ 100")
        }
    }

    func run() async throws {
        let benchmark = LimitsBenchmark(jobs: jobs, rate: rate, burst: burst, workers: workers, concurrency: concurrency,
                                        overheadJobs: overheadJobs, rounds: rounds, workerArguments: cluster.childArguments)
        let report = try await benchmark.run(admin: try cluster.postgresConfiguration(applicationName: "reparto-bench"),
                                             logger: cluster.makeLogger("reparto.bench"))
        print(report, terminator: "")
    }
}
