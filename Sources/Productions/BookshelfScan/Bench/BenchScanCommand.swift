import Foundation
import ProductionKit

/// `reparto bench scan`: a bookshelf scan against a vision stand-in under a limit (docs: the
/// type's README, "Benchmark").
struct BenchScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan", abstract: "Benchmark a bookshelf scan: time against the limit's ideal, correct and wrong matches.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Photos.") var photos: Int = 20
    @Option(help: "Spines over all photos.") var spines: Int = 300
    @Option(help: "Spines misread (dropped subtitles, OCR confusions, initials).") var misread: Int = 30
    @Option(help: "Seconds the vision stand-in takes to answer.") var latency: Double = 1
    @Option(help: "The limit provider:openai, requests a second.") var rate: Double = 5
    @Option(help: "Worker processes.") var workers: Int = 2
    @Option(help: "Handlers per worker.") var concurrency: Int = 8

    func validate() throws {
        guard (1...200).contains(photos) else { throw ValidationError("--photos must be between 1 and 200") }
        guard (1...5000).contains(spines) else { throw ValidationError("--spines must be between 1 and 5000") }
        guard (0...spines).contains(misread) else { throw ValidationError("--misread must be between 0 and --spines") }
        guard latency >= 0, latency <= 60 else { throw ValidationError("--latency must be between 0 and 60") }
        guard rate > 0, rate <= 1000 else { throw ValidationError("--rate must be between 0 and 1000") }
        guard (1...16).contains(workers) else { throw ValidationError("--workers must be between 1 and 16") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
    }

    func run() async throws {
        let logger = cluster.makeLogger("reparto.bench.scan")
        let benchmark = ScanBenchmark(photos: photos, spines: spines, misread: misread, latency: latency, rate: rate, burst: 1,
                                      workers: workers, concurrency: concurrency, childArguments: cluster.childArguments)
        let report = try await benchmark.run(admin: try cluster.postgresConfiguration(applicationName: "reparto-bench"), logger: logger)
        print(report.text, terminator: "")
    }
}
