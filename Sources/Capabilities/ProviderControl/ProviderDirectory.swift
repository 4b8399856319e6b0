import Foundation
import Generation
import Postgres
import Providers
import RepartoRuntime
import RepartoConfiguration
import Speech
import SpeechJobs

/// What ``ProviderDirectory`` refuses.
public enum ProviderDirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No provider (of the capability asked, if any) has this id; `known` lists those that do.
    case unknownProvider(String, capability: ProviderCapability?, known: [String])

    public var description: String {
        switch self {
        case .unknownProvider(let id, let capability, let known):
            let kind = capability == .speech ? "voice provider" : capability.map { "\($0.rawValue) provider" } ?? "provider"
            return "unknown \(kind) '\(id)'" + (known.isEmpty ? "" : " (known: \(known.joined(separator: ", ")))")
        }
    }
}

/// The state of every provider, whatever it does, in one place: what workers recorded (the
/// `provider_states` view over the speech providers' switches in `voice_providers` and the
/// generation providers' in `generation_providers`, read by the speech gate and by the fallback
/// chains) merged with this process's view
/// (``ProviderRegistry``) by id. `reparto providers` and its alias `reparto voices providers` are
/// this type and nothing else.
public struct ProviderDirectory: Sendable {
    public let registry: ProviderRegistry
    let voices: VoiceProviderRegistry
    let generation: GenerationProviderRegistry

    /// The providers configured from `configuration` (flags > environment > env file).
    public init(configuration: ConfigurationValues) {
        voices = VoiceProviderRegistry.standard(environment: configuration.variables)
        generation = GenerationProviderRegistry.standard(values: configuration)
        registry = Self.providers(voices: voices, generation: generation)
    }

    /// Every provider (of `capability`, if given), one entry per id; without a database, this
    /// process's view (nothing can have been disabled).
    public func list(postgres: PostgresClient?, capability: ProviderCapability? = nil) async throws -> [ProviderState] {
        let local = registry.providers.map { (id: $0.id, part: ProviderState.Part(provider: $0)) }
        var recorded: [(id: String, part: ProviderState.Part)] = []
        if let postgres {
            recorded = try await postgres.withConnection { connection in
                try connection.query("""
                    SELECT id, display_name, capabilities, models, enabled, configured, updated_at FROM provider_states ORDER BY id
                    """).map { row in
                    (row.string("id") ?? "", ProviderState.Part(
                        name: row.string("display_name") ?? "",
                        capabilities: row.string("capabilities").map(GenerationProviderDirectory.parseTextArray) ?? [],
                        models: (try? row.json("models", as: [String: String].self)) ?? [:],
                        enabled: row.bool("enabled") ?? true, configured: row.bool("configured") ?? false,
                        recorded: true, updatedAt: row.date("updated_at")))
                }
            }
        }
        let states = ProviderState.merge(recorded: recorded, local: local)
        guard let capability else { return states }
        return states.filter { $0.capabilities.contains(capability.rawValue) }
    }

    /// Switches provider `id` in every table that knows it (`openai` speaks and generates: one
    /// switch for the company's API) and returns its state. `capability` narrows which ids are
    /// accepted (`voices providers` takes speech providers only).
    /// - Throws: ``ProviderDirectoryError/unknownProvider(_:capability:known:)`` when no provider
    ///   (recorded or known here) of the capability has the id.
    @discardableResult
    public func setEnabled(_ enabled: Bool, id: String, capability: ProviderCapability? = nil,
                           postgres: PostgresClient) async throws -> ProviderState {
        let known = try await list(postgres: postgres, capability: capability)
        guard let state = known.first(where: { $0.id == id }) else {
            throw ProviderDirectoryError.unknownProvider(id, capability: capability, known: known.map(\.id))
        }
        if state.speech != nil {
            try await VoiceProviderDirectory(postgres: postgres).setEnabled(enabled, provider: id, registry: voices)
        }
        if state.parts.contains(where: { !$0.isSpeech }) {
            let directory = GenerationProviderDirectory(postgres: postgres)
            if try await !directory.setEnabled(enabled, provider: id) {
                try await directory.record(generation)
                _ = try await directory.setEnabled(enabled, provider: id)
            }
        }
        return try await list(postgres: postgres, capability: capability).first { $0.id == id } ?? state
    }
}

extension ProviderDirectory {
    /// The migration line of the provider layer (the `provider_states` view).
    public static func migrations() throws(MigrationError) -> MigrationLine {
        try ProviderMigrations.line()
    }

    /// The one provider registry of this build: the speech providers and the generation
    /// providers configured from `configuration`.
    public static func providers(_ configuration: ConfigurationValues) -> ProviderRegistry {
        providers(voices: .standard(environment: configuration.variables), generation: .standard(values: configuration))
    }

    static func providers(voices: VoiceProviderRegistry, generation: GenerationProviderRegistry) -> ProviderRegistry {
        ProviderRegistry(generation.providers.map { $0 as any CapabilityProvider } + voices.all.map { $0 as any CapabilityProvider })
    }
}
