import ArgumentParser
import Foundation
import Generation
import Providers
import Speech
import TableRead
import TerminalText

/// `reparto providers`: every provider — speech (voice_providers) and generation
/// (generation_providers) — with its capabilities, models and state; enable and disable.
/// `reparto voices providers` keeps working for the speech providers alone.
struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List every provider (speech, text, embedding, image) with its state, or enable / disable one.",
        subcommands: [ProvidersListCommand.self, ProvidersEnableCommand.self, ProvidersDisableCommand.self],
        defaultSubcommand: ProvidersListCommand.self)
}

struct ProvidersListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the providers as recorded in the database (without one: this machine's view).")

    @OptionGroup var cluster: ClusterOptions
    @Flag(name: .long, help: "Print JSON instead of a table.") var json = false

    func run() async throws {
        let values = try cluster.configuration
        let voices = VoiceProviderRegistry.standard(environment: values.variables)
        let generation = GenerationProviderRegistry.standard(values: values)
        var lines: [GenerationText.ProviderLine]
        if try cluster.hasDatabase {
            lines = try await cluster.withPostgres(maxConnections: 1, logger: cluster.makeLogger("reparto.providers")) { postgres in
                let speech = try await VoiceProviderDirectory(postgres: postgres).list().map {
                    GenerationText.ProviderLine(id: $0.id, name: $0.displayName, capabilities: ["speech"], models: [:],
                                                enabled: $0.enabled, configured: $0.configured)
                }
                let other = try await GenerationProviderDirectory(postgres: postgres).list().map {
                    GenerationText.ProviderLine(id: $0.id, name: $0.displayName, capabilities: $0.capabilities, models: $0.models,
                                                enabled: $0.enabled, configured: $0.configured)
                }
                return speech + other
            }
            // Providers no worker recorded yet: this machine's view.
            let recorded = Set(lines.map { "\($0.id)/\($0.capabilities == ["speech"])" })
            lines += voices.all.filter { !recorded.contains("\($0.id)/true") }.map(Self.line)
            lines += generation.providers.filter { !recorded.contains("\($0.id)/false") }.map(Self.line)
        } else {
            lines = voices.all.map(Self.line) + generation.providers.map(Self.line)
        }
        lines.sort { ($0.id, $0.capabilities.first ?? "") < ($1.id, $1.capabilities.first ?? "") }
        print(json ? try JSONText.pretty(lines) : GenerationText.providers(lines))
    }

    static func line(_ provider: any VoiceProvider) -> GenerationText.ProviderLine {
        .init(id: provider.id, name: provider.displayName, capabilities: ["speech"], models: [:], enabled: true, configured: provider.isConfigured)
    }

    static func line(_ provider: any GenerationProvider) -> GenerationText.ProviderLine {
        .init(id: provider.id, name: provider.displayName, capabilities: provider.capabilities.sorted().map(\.rawValue),
              models: Dictionary(uniqueKeysWithValues: provider.defaultModels.map { ($0.key.rawValue, $0.value) }),
              enabled: true, configured: provider.isConfigured)
    }
}

struct ProvidersEnableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enable", abstract: "Allow jobs to use a provider again.")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "Provider id (espeak-ng, flite, elevenlabs, openai, anthropic).") var id: String

    func run() async throws {
        try await ProviderSwitch.set(true, id: id, cluster: cluster)
    }
}

struct ProvidersDisableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable", abstract: "Make jobs refuse a provider (speech items fail; generation chains skip it).")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "Provider id (espeak-ng, flite, elevenlabs, openai, anthropic).") var id: String

    func run() async throws {
        try await ProviderSwitch.set(false, id: id, cluster: cluster)
    }
}

/// Switches a provider in every table that knows its id (`openai` is both a speech and a
/// generation provider: one switch for the company's API).
enum ProviderSwitch {
    static func set(_ enabled: Bool, id: String, cluster: ClusterOptions) async throws {
        let values = try cluster.configuration
        let voices = VoiceProviderRegistry.standard(environment: values.variables)
        let generation = GenerationProviderRegistry.standard(values: values)
        let isSpeech = voices.all.contains { $0.id == id }
        let isGeneration = generation.ids.contains(id)
        guard isSpeech || isGeneration else {
            throw CLIError("unknown provider '\(id)' (known: \((voices.all.map(\.id) + generation.ids).joined(separator: ", ")))")
        }
        try await cluster.withPostgres(maxConnections: 1, logger: cluster.makeLogger("reparto.providers")) { postgres in
            if isSpeech { _ = try await VoiceProviderDirectory(postgres: postgres).setEnabled(enabled, provider: id, registry: voices) }
            if isGeneration {
                let directory = GenerationProviderDirectory(postgres: postgres)
                if try await !directory.setEnabled(enabled, provider: id) {
                    try await directory.record(generation)
                    _ = try await directory.setEnabled(enabled, provider: id)
                }
            }
        }
        print("\(id): \(enabled ? "enabled" : "disabled")")
    }
}
