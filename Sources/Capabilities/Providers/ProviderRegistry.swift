/// The one registry of providers a process knows, whatever they do: speech, text, embedding,
/// image. `reparto providers` lists it; an id that several providers share (`openai` speaks
/// and generates) is one entry with their capabilities merged.
///
/// The typed look-ups stay with each capability's registry (``GenerationProviderRegistry`` for
/// text, embeddings and images; the `Speech` module's `VoiceProviderRegistry` for voices); this
/// one is built from both (`ProviderDirectory.providers(_:)` in ProviderControl).
public struct ProviderRegistry: Sendable {
    /// Every provider, in the order given.
    public let providers: [any CapabilityProvider]

    public init(_ providers: [any CapabilityProvider]) {
        self.providers = providers
    }

    /// The distinct ids, in order.
    public var ids: [String] {
        var seen = Set<String>()
        return providers.map(\.id).filter { seen.insert($0).inserted }
    }

    /// The ids of the providers with a capability.
    public func ids(with capability: ProviderCapability) -> [String] {
        ids.filter { id in providers.contains { $0.id == id && $0.capabilities.contains(capability) } }
    }

    /// What this process sees of each provider: one part per provider object, never switched off
    /// (only the database knows an operator's switch).
    public var parts: [ProviderState.Part] {
        providers.map(ProviderState.Part.init(provider:))
    }
}
