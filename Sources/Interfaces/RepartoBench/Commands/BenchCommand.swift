import ArgumentParser
import Composition

/// `reparto bench`: benchmarks (jobs end to end by default; parse and speech too).
public struct BenchCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Benchmarks: job throughput and latency, parsing, speech, casting, analysis.",
        subcommands: [BenchJobsCommand.self, BenchSoakCommand.self, BenchParseCommand.self, BenchSpeechCommand.self,
                      BenchPipelineCommand.self, BenchLimitsCommand.self, BenchCastingCommand.self, BenchImportCommand.self, BenchOpsCommand.self,
                      BenchAnalyzeCommand.self]
            // Each production type's own benchmarks.
            + ProductionTypes.all.flatMap { $0.benchmarks },
        defaultSubcommand: BenchJobsCommand.self)

    /// Creates the command (ArgumentParser fills it in).
    public init() {}
}
