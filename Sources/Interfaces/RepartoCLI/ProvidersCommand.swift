import ProviderControl
import SpeechJobs
import ArgumentParser
import Foundation
import Providers
import Composition
import TerminalText

/// `reparto providers [list|enable ID|disable ID] [--json]`: every provider of the one provider
/// layer (speech, text, embedding, image) with its capabilities, models and state
/// (``ProviderDirectory``). `reparto voices providers` is the same commands, scoped to speech.
struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List every provider (speech, text, embedding, image) with its state, or enable / disable one.",
        subcommands: [ProvidersListCommand<AllProviders>.self, ProvidersEnableCommand<AllProviders>.self,
                      ProvidersDisableCommand<AllProviders>.self],
        defaultSubcommand: ProvidersListCommand<AllProviders>.self)
}

/// Which providers a `providers` command shows and how it prints them: every provider
/// (`reparto providers`), or the speech ones as `reparto voices providers` always printed them.
protocol ProviderScope {
    /// nil: every provider.
    static var capability: ProviderCapability? { get }
    /// Help texts.
    static var listAbstract: String { get }
    static var idHelp: String { get }
    static func render(_ states: [ProviderState], json: Bool) throws -> String
}

/// `reparto providers`: one line per id with every capability.
enum AllProviders: ProviderScope {
    static let capability: ProviderCapability? = nil
    static let listAbstract = "List the providers as recorded in the database (without one: this machine's view)."
    static let idHelp = "Provider id (espeak-ng, flite, elevenlabs, openai, anthropic)."

    static func render(_ states: [ProviderState], json: Bool) throws -> String {
        json ? try JSONText.pretty(states) : GenerationText.providers(states)
    }
}

/// `reparto voices providers`: the speech part of each provider, in the columns and JSON
/// (`VoiceProviderState`) that command has always printed.
enum SpeechProviders: ProviderScope {
    static let capability: ProviderCapability? = .speech
    static let listAbstract = "List the speech providers: enabled and configured as recorded in the database (without one: this machine's view)."
    static let idHelp = "Provider id (espeak-ng, flite, elevenlabs, openai)."

    static func render(_ states: [ProviderState], json: Bool) throws -> String {
        let rows = states.compactMap { state in
            state.speech.map { VoiceProviderState(id: state.id, displayName: $0.name, enabled: $0.enabled, configured: $0.configured,
                                                  updatedAt: $0.updatedAt) }
        }
        return json ? try JSONText.pretty(rows) : VoiceText.providers(rows)
    }
}

struct ProvidersListCommand<Scope: ProviderScope>: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(commandName: "list", abstract: Scope.listAbstract) }

    @OptionGroup var cluster: ClusterOptions
    @Flag(name: .long, help: "Print JSON instead of a table.") var json = false

    func run() async throws {
        let directory = ProviderDirectory(configuration: try cluster.configuration)
        let states = if try cluster.hasDatabase {
            try await cluster.withPostgres(maxConnections: 1, logger: cluster.makeLogger("reparto.providers")) { postgres in
                try await directory.list(postgres: postgres, capability: Scope.capability)
            }
        } else {
            try await directory.list(postgres: nil, capability: Scope.capability)
        }
        print(try Scope.render(states, json: json))
    }
}

struct ProvidersEnableCommand<Scope: ProviderScope>: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(commandName: "enable", abstract: "Allow jobs to use a provider again.") }

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: ArgumentHelp(Scope.idHelp)) var id: String

    func run() async throws {
        try await ProviderSwitch.set(true, id: id, capability: Scope.capability, cluster: cluster)
    }
}

struct ProvidersDisableCommand<Scope: ProviderScope>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "disable", abstract: "Make jobs refuse a provider (speech items fail; generation chains skip it).")
    }

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: ArgumentHelp(Scope.idHelp)) var id: String

    func run() async throws {
        try await ProviderSwitch.set(false, id: id, capability: Scope.capability, cluster: cluster)
    }
}

/// The body of `enable` and `disable`: one switch for every capability of the id.
enum ProviderSwitch {
    static func set(_ enabled: Bool, id: String, capability: ProviderCapability?, cluster: ClusterOptions) async throws {
        let directory = ProviderDirectory(configuration: try cluster.configuration)
        let state = try await cluster.withPostgres(maxConnections: 1, logger: cluster.makeLogger("reparto.providers")) { postgres in
            try await directory.setEnabled(enabled, id: id, capability: capability, postgres: postgres)
        }
        print("\(state.id): \(state.enabled ? "enabled" : "disabled") (running workers see it within 5 s)")
    }
}
