/// A provider of the one provider layer: an id, what it can do, its default models, and whether
/// it is configured. Speech providers (espeak-ng, flite, ElevenLabs, OpenAI speech; the `Speech`
/// module's `VoiceProvider`) and generation providers (``GenerationProvider``: OpenAI-compatible,
/// Anthropic) are both, so one ``ProviderRegistry`` lists them all and one switch enables or
/// disables an id whatever it does.
public protocol CapabilityProvider: Sendable {
    /// Stable id: `espeak-ng`, `openai`, `anthropic`; used in limits (`provider:ID`), rows and flags.
    var id: String { get }
    /// A human name for lists.
    var displayName: String { get }
    /// What it can do.
    var capabilities: Set<ProviderCapability> { get }
    /// The model used for each capability when a request names none (empty for voices).
    var defaultModels: [ProviderCapability: String] { get }
    /// True when it can be called (engine present, key or base URL set).
    var isConfigured: Bool { get }
    /// What to set to configure it (one line, naming the variables; never a secret).
    var configurationHint: String { get }
}
