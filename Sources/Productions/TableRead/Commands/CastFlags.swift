import SpeechJobs
import ProductionKit
import ArgumentParser
import Foundation
import Speech

/// The casting flags `submit`, `run` and `cast` share: a cast file and the choices that win over it.
struct CastFlags: ParsableArguments {
    @Option(help: "Cast file (YAML or JSON): provider, language, narrator, characters: {NAME: voice or provider:voice}.") var cast: String?
    @Option(help: "Cast from this voice provider only (default: the cast file's, else the configured offline engines).") var provider: String?
    @Option(help: "Language, e.g. en, en-gb, de (default: the cast file's, else the script's title page, else en).") var language: String?
    @Option(help: "Narrator voice (VOICE or PROVIDER:VOICE).") var narrator: String?
    @Option(name: .customLong("voice"), help: "A character's voice as NAME=VOICE (repeatable); wins over the cast file.") var voices: [String] = []

    /// The cast file merged with the flags (flags win).
    func overrides() throws -> CastOverrides {
        var overrides = CastOverrides()
        if let cast {
            do { overrides = try CastOverrides.load(from: URL(fileURLWithPath: cast)) } catch {
                throw CLIError("\(cast): \(error.description)")
            }
        }
        return overrides.merging(CastOverrides(provider: provider, language: language, narrator: narrator,
                                                 characters: try CastOverrides.characters(parsing: voices)))
    }
}
