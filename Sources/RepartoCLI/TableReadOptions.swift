import ArgumentParser
import Foundation
import Jobs
import RepartoConfiguration
import Speech
import TableRead

/// The options `submit` and `run` share: how the script is cast and read.
struct TableReadOptions: ParsableArguments {
    @Option(help: "Cast file (YAML or JSON): provider, language, narrator, characters: {NAME: voice}.") var cast: String?
    @Option(help: "Voice provider (default: the cast file's, else espeak-ng).") var provider: String?
    @Option(help: "Language, e.g. en, en-gb, de (default: the cast file's, else the script's title page, else en).") var language: String?
    @Option(help: "Narrator voice.") var narrator: String?
    @Option(name: .customLong("voice"), help: "A character's voice as NAME=VOICE (repeatable); wins over the cast file.") var voices: [String] = []
    @Flag(help: "Announce each dialogue block (\"ISOLDE says\").") var announceCharacters = false
    @Option(help: "Priority of the production's jobs: high, normal or low.") var priority: JobPriority = .normal
    @Option(help: "Speakable lines per generate job (1 to 100).") var linesPerJob: Int = 1
    @Option(help: "Production name (default: the file name).") var name: String?
    @Option(help: "Files to deliver: wav (always), mp3, m4b, comma-separated.") var formats: String = "wav"

    /// The submission options, with the cast file and the flags merged (flags win).
    /// - Parameter configuration: the merged view the speech providers are configured from.
    func submissionOptions(configuration: ConfigurationValues) throws -> TableReadClient.Options {
        var overrides = CastOverrides()
        if let cast {
            do { overrides = try CastOverrides.load(from: URL(fileURLWithPath: cast)) } catch {
                throw CLIError("\(cast): \(error.description)")
            }
        }
        var characters: [String: String] = [:]
        for pair in voices {
            guard let eq = pair.firstIndex(of: "="), !pair[..<eq].isEmpty, !pair[pair.index(after: eq)...].isEmpty else {
                throw CLIError("--voice takes NAME=VOICE, not '\(pair)'")
            }
            characters[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        overrides = overrides.merging(CastOverrides(provider: provider, language: language, narrator: narrator,
                                                    characters: characters))
        let registry = VoiceProviderRegistry.standard(environment: configuration.variables)
        do { _ = try registry.provider(overrides.provider) } catch { throw CLIError(error.description) }
        guard (1...100).contains(linesPerJob) else { throw CLIError("--lines-per-job must be between 1 and 100") }
        return TableReadClient.Options(cast: overrides, announceCharacters: announceCharacters, priority: priority,
                                       linesPerJob: linesPerJob, name: name, formats: try Self.formats(self.formats))
    }

    /// The formats of a `--formats` list (`wav,mp3`), refusing an unknown one in one line.
    static func formats(_ list: String) throws -> [AudioFileFormat] {
        try list.split(separator: ",").map { name in
            guard let format = AudioFileFormat(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw CLIError("unknown format '\(name)' in --formats (wav, mp3, m4b)")
            }
            return format
        }
    }
}
