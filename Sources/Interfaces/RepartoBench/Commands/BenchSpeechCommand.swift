import ArgumentParser
import CommandOptions

/// `reparto bench speech [--lines FILE] [--count N] [--rounds R] [--cluster]`: Reparto's espeak-ng
/// provider against espeak-ng run directly (``SpeechProviderBenchmark``), or with `--cluster` the
/// same lines as generate jobs on 1 and 2 pinned workers (``SpeechClusterBench``).
public struct BenchSpeechCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "speech",
        abstract: "Benchmark Reparto's espeak-ng provider against calling espeak-ng directly."
    )

    @Option(name: .long, help: "File with one line of text per line (default: built-in sentences).") var lines: String?
    @Option(name: .long, help: "Number of lines when no file is given.") var count: Int = 200
    @Option(name: .long, help: "Rounds per side (the median round is reported).") var rounds: Int = 3
    @Option(name: .long, help: "espeak-ng voice.") var voice: String = "en-us"
    @Flag(name: .long, help: "Also run the lines as generate jobs on the cluster with 1 and 2 pinned workers, against 1 and 2 direct espeak-ng processes.")
    var cluster = false

    @Option(name: .long, help: "With --cluster: lines per generate job.") var batch: Int = 5
    @Option(name: .customLong("worker-concurrency"), help: "With --cluster: handlers per worker.") var workerConcurrency: Int = 2
    @Flag(name: .customLong("no-pin"), help: "With --cluster: do not pin the processes to CPUs with taskset.") var noPin = false
    @OptionGroup var libraryPeer: LibraryPeerOption

    @Option(name: .long, help: "With --cluster: give up on a run after this many seconds.") var timeout: Double = 600
    @OptionGroup var clusterOptions: ClusterOptions

    public init() {}

    public func validate() throws {
        guard count > 0, rounds > 0 else { throw ValidationError("--count and --rounds must be at least 1") }
        guard batch >= 1, batch <= 100 else { throw ValidationError("--batch must be between 1 and 100") }
        guard workerConcurrency >= 1 else { throw ValidationError("--worker-concurrency must be at least 1") }
    }

    public func run() async throws {
        let file = try lines.map(BenchSentences.read)
        guard cluster else {
            print(try await SpeechProviderBenchmark(lines: file ?? BenchSentences.make(count), voice: voice, rounds: rounds).run(),
                  terminator: "")
            return
        }
        var seen = Set<String>()  // a repeated line would be reused, not synthesized
        let texts = (file ?? BenchSentences.distinct(count)).filter { seen.insert($0).inserted }
        let report = try await SpeechClusterBench(
            admin: try clusterOptions.postgresConfiguration(applicationName: "reparto-bench"), workerArguments: clusterOptions.childArguments,
            lines: texts, voice: voice, rounds: rounds, batch: batch, workerConcurrency: workerConcurrency, pin: !noPin,
            timeout: timeout, libraryPeer: libraryPeer.url, logger: clusterOptions.makeLogger("reparto.bench")).run()
        print(report, terminator: "")
    }
}
