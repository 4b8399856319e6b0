import ArgumentParser
import CommandOptions
import Foundation
import RepartoConfiguration
import Speech

/// `reparto bench casting --corpus DIR [--labels FILE] [--provider P] [--json]`: casts hand-labelled
/// real screenplays and prints, per script and in total, how many people with ≥ 10 lines got a voice
/// of their gender and how many identity merges were found, with the misses.
struct BenchCastingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "casting",
        abstract: "Score casting against hand-labelled screenplays (gender of the voice, identity merges).",
        discussion: "The scripts are not in the repository: bench/casting/README.md says how to fetch them into DIR."
    )

    @Option(help: "Folder holding the labelled scripts.") var corpus: String
    @Option(help: "Labels file.") var labels: String = "bench/casting/labels.json"
    @Option(help: "Cast from this provider only (default: the configured offline engines).") var provider: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let labels = try CastingLabels.load(URL(fileURLWithPath: labels))
        let configuration = try ConfigurationValues.load(flags: [:], envFile: nil)
        let registry = VoiceProviderRegistry.standard(environment: configuration.variables)
        let results: [CastingBenchmark.ScriptResult]
        do {
            results = try await CastingBenchmark.run(corpus: URL(fileURLWithPath: corpus), labels: labels, registry: registry,
                                                     overrides: CastOverrides(provider: provider))
        } catch let error as SpeechError {
            throw CLIError("bench casting: \(error.description)")
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
            print(CastingBenchmark.report(results), terminator: "")
        }
    }
}
