import ArgumentParser
import CommandOptions

/// `reparto bench analyze`: a synthetic script analysed under a provider rate limit (bench/analyze/run.sh
/// points `OPENAI_BASE_URL` at a stand-in answering in 200 ms).
struct BenchAnalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Analyse a synthetic script under a provider rate limit (in a database of its own) and compare the achieved rate and time with the ideal.",
        discussion: "The provider is whatever OPENAI_BASE_URL points at; bench/analyze/run.sh starts a stand-in for it.")

    @OptionGroup var cluster: ClusterOptions
    @Option(help: "Scenes in the synthetic script.") var scenes: Int = 120
    @Option(help: "The limit on provider:<text provider>, jobs per second.") var rate: Double = 20
    @Option(help: "The limit's burst (default: the limits' default, a quarter second's starts).") var burst: Double?
    @Option(help: "Worker processes.") var workers: Int = 2
    @Option(help: "Handlers per worker.") var concurrency: Int = 16
    @Option(name: .customLong("round-trip"), help: "The provider's answer time in seconds, for the ideal.") var roundTrip: Double = 0.2

    func validate() throws {
        guard scenes >= 2, rate > 0, (burst ?? 1) >= 1, workers >= 1, concurrency >= 1, roundTrip >= 0 else {
            throw ValidationError("--scenes ≥ 2, --rate > 0, --burst ≥ 1, --workers and --concurrency ≥ 1, --round-trip ≥ 0")
        }
    }

    func run() async throws {
        let benchmark = AnalysisBenchmark(scenes: scenes, rate: rate, burst: burst, workers: workers, concurrency: concurrency,
                                          roundTrip: roundTrip, childArguments: cluster.childArguments)
        let report = try await benchmark.run(admin: try cluster.postgresConfiguration(applicationName: "reparto-bench"),
                                             logger: cluster.makeLogger("reparto.bench"))
        print(report, terminator: "")
    }
}
