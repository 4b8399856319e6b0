import Foundation

/// One provider id as `reparto providers` shows it: every capability under that id, its models,
/// and whether it is enabled and configured. Pure: built by ``merge(recorded:local:)`` from the
/// rows workers recorded and what this process sees.
public struct ProviderState: Codable, Sendable, Equatable {
    /// One provider object under an id, with its own switch: a speech provider (row of
    /// `voice_providers`) or a generation provider (row of `generation_providers`).
    public struct Part: Codable, Sendable, Equatable {
        public var name: String
        /// Sorted (``ProviderCapability`` order).
        public var capabilities: [String]
        public var models: [String: String]
        public var enabled: Bool
        public var configured: Bool
        /// True when the state is a worker's record, false when it is this process's view.
        public var recorded: Bool
        public var updatedAt: Date?

        public init(name: String, capabilities: [String], models: [String: String] = [:], enabled: Bool, configured: Bool,
                    recorded: Bool, updatedAt: Date? = nil) {
            (self.name, self.capabilities, self.models, self.enabled, self.configured, self.recorded, self.updatedAt) =
                (name, capabilities, models, enabled, configured, recorded, updatedAt)
        }

        /// What this process sees of a provider.
        public init(provider: any CapabilityProvider) {
            self.init(name: provider.displayName, capabilities: provider.capabilities.sorted().map(\.rawValue),
                      models: Dictionary(uniqueKeysWithValues: provider.defaultModels.map { ($0.key.rawValue, $0.value) }),
                      enabled: true, configured: provider.isConfigured, recorded: false)
        }

        /// True for the speech part (its own table and switch).
        public var isSpeech: Bool { capabilities == [ProviderCapability.speech.rawValue] }
    }

    public var id: String
    /// The name of the first part (a generation provider's when there is one).
    public var name: String
    /// Every capability of every part, sorted.
    public var capabilities: [String]
    public var models: [String: String]
    /// False when an operator disabled any part (they are switched together).
    public var enabled: Bool
    /// True when any part can be used.
    public var configured: Bool
    /// The capabilities whose part is not configured.
    public var unconfigured: [String]
    public var parts: [Part]

    /// The part that speaks, if any.
    public var speech: Part? { parts.first(where: \.isSpeech) }

    /// One state per id, sorted by id. A recorded part replaces this process's view of the same
    /// id and kind (speech or not); recorded parts this process does not know stay (another
    /// worker's providers).
    public static func merge(recorded: [(id: String, part: Part)], local: [(id: String, part: Part)]) -> [ProviderState] {
        var parts = recorded
        for (id, part) in local where !recorded.contains(where: { $0.id == id && $0.part.isSpeech == part.isSpeech }) {
            parts.append((id, part))
        }
        let order = ProviderCapability.allCases.map(\.rawValue)
        return Dictionary(grouping: parts, by: \.id).map { id, group in
            let members = group.map(\.part).sorted { ($0.isSpeech ? 1 : 0, $0.name) < ($1.isSpeech ? 1 : 0, $1.name) }
            let capabilities = Set(members.flatMap(\.capabilities)).sorted { (order.firstIndex(of: $0) ?? 99, $0) < (order.firstIndex(of: $1) ?? 99, $1) }
            let unconfigured = Set(members.filter { !$0.configured }.flatMap(\.capabilities))
            return ProviderState(id: id, name: members.first?.name ?? id, capabilities: capabilities,
                                 models: members.reduce(into: [:]) { $0.merge($1.models) { first, _ in first } },
                                 enabled: members.allSatisfy(\.enabled), configured: members.contains(where: \.configured),
                                 unconfigured: capabilities.filter(unconfigured.contains), parts: members)
        }.sorted { $0.id < $1.id }
    }
}
