import ArgumentParser
import CommandOptions
import Foundation
import Composition
import Speech

/// `reparto bench pipeline`: a generated feature-length table read on a coordinator and workers in
/// this process (``InProcessCluster``) against its engine (espeak-ng, flite or Piper) run directly
/// and against the by-hand baseline (that run, then ffmpeg and LAME); see ``PipelineBenchmark``.
struct BenchPipelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Benchmark a feature-length table read against its speech engine run directly and by hand.",
        discussion: """
            Needs the services (scripts/services up). Each run generates fresh lines, so no audio is reused. \
            The table read is loudness-normalized when ffmpeg is installed (as in production); --formats wav,mp3 \
            also encodes the MP3. The by-hand baseline is the direct run's files joined with ffmpeg, normalized with \
            ffmpeg's loudnorm (two passes, -16 LUFS, -1 dBTP) and encoded as the formats asked for (MP3 with LAME).
            """)

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Speakable lines in the generated script.") var lines: Int = 1500
    @Option(help: "Workers (and parallel engine processes for the direct and by-hand runs).") var workers: Int = ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "Speakable lines per generate job.") var linesPerJob: Int = 1
    @Option(help: "Seed of the generated script (default: random).") var seed: UInt64?
    @Option(help: "The engine the script is cast with and run directly: espeak-ng, flite or piper.") var provider: String = EspeakProvider.providerID
    @Option(help: "Files the table read delivers: wav (always), mp3, m4b, comma-separated.") var formats: String = "wav"
    @Flag(help: "Skip the direct run of the engine (and the by-hand baseline).") var skipDirect = false
    @Flag(help: "Skip the by-hand baseline (join, loudnorm and encoding with ffmpeg after the direct run).") var skipByHand = false
    @OptionGroup var libraryPeer: LibraryPeerOption

    @Option(help: "Handlers per worker (lines spoken at once by each).") var concurrency: Int = 2
    @Option(help: "Give up after this many seconds.") var timeout: Double = 900

    func validate() throws {
        guard lines >= 10 && lines <= 100_000 else { throw ValidationError("--lines must be between 10 and 100000") }
        guard workers >= 1 && workers <= 64 else { throw ValidationError("--workers must be between 1 and 64") }
        guard concurrency >= 1 && concurrency <= 64 else { throw ValidationError("--concurrency must be between 1 and 64") }
        guard PipelineBenchmark.Engine(rawValue: provider) != nil else {
            throw ValidationError("--provider must be one of \(PipelineBenchmark.Engine.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if provider != EspeakProvider.providerID && libraryPeer.path != nil {
            throw ValidationError("--library-peer is a libespeak-ng program: it goes with --provider espeak-ng")
        }
    }

    func run() async throws {
        var quiet = cluster.makeLogger("reparto.bench")
        if cluster.logLevel == "info" { quiet.logLevel = .warning }
        let logger = quiet
        var environment = cluster
        let variables = try environment.configuration.variables
        let bench = PipelineBenchmark(lines: lines, seed: seed, engine: PipelineBenchmark.Engine(rawValue: provider) ?? .espeak,
                                      formats: try AudioFileFormat.list(parsing: formats), environment: variables)
        environment.namespace = bench.namespace
        let configuration = try environment.configuration
        let workers = self.workers, concurrency = self.concurrency
        try await bench.run(processes: workers, skipDirect: skipDirect, skipByHand: skipByHand, libraryPeer: libraryPeer.url, linesPerJob: linesPerJob,
                            timeout: timeout, logger: logger, cluster: { body in
                                try await InProcessCluster.run(configuration: configuration, workers: workers, concurrency: concurrency,
                                                               namespace: bench.namespace, assetsRoot: bench.assets, logger: logger, body)
                            }, report: { print($0) })
    }
}
