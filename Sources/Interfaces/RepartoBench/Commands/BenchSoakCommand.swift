import ArgumentParser
import CommandOptions
import RepartoRuntime

/// `reparto bench soak`: rounds of no-op jobs with the workers' RSS and descriptors after each.
struct BenchSoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak", abstract: "Run no-op jobs in rounds and print the local workers' RSS and open descriptors after each.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Jobs in all.") var jobs: Int = 1_000_000
    @Option(help: "Jobs per round (a sample after each).") var every: Int = 50_000

    func validate() throws {
        guard jobs >= 1, every >= 1 else { throw ValidationError("--jobs and --every must be at least 1") }
    }

    func run() async throws {
        let logger = cluster.makeLogger("reparto.bench")
        let soak = SoakBenchmark(jobs: jobs, every: every, timeout: 3600)
        let samples = try await cluster.withPostgres(maxConnections: 4, logger: logger) { postgres in
            try await cluster.withJobPublisher(logger: logger) { publisher in
                try await soak.run(client: JobClient(postgres: postgres, publisher: publisher)) { print($0.line) }
            }
        }
        print(SoakBenchmark.growth(samples))
    }
}
