import Foundation
import Providers

/// A text-to-speech backend: offline (espeak-ng) or over HTTP (ElevenLabs, OpenAI-compatible).
/// Speech is one capability of the one provider layer: a voice provider is a
/// ``CapabilityProvider`` with the capability `speech`.
public protocol VoiceProvider: CapabilityProvider {
    /// Stable id used in flags, cast files and content keys (`espeak-ng`, `elevenlabs`, `openai`).
    var id: String { get }
    /// Human-readable name.
    var displayName: String { get }
    /// Mime type of ``SynthesizedAudio/data`` (all built-in providers return `audio/wav`).
    var outputMimeType: String { get }
    /// True when the provider needs an API key.
    var requiresAPIKey: Bool { get }
    /// True when the provider can be used now (engine present, key set).
    var isConfigured: Bool { get }
    /// Longest text accepted in one request; longer text is chunked by ``SpeechSynthesizer``.
    var maxCharactersPerRequest: Int { get }
    /// The phoneme notation the provider reads inside its text (espeak-ng: `[[...]]` mnemonics);
    /// nil: none, a ``PronunciationLexicon`` gives it respellings.
    var phonemeAlphabet: PhonemeAlphabet? { get }
    /// True when the provider sets ``SynthesisOptions/volume`` itself; otherwise
    /// ``SpeechSynthesizer`` applies it as a gain to the audio.
    var setsVolume: Bool { get }
    /// The concurrency of this provider's cluster-wide limit `provider:ID` when no limit of that
    /// name exists: a worker creates it so (an operator's own terms stay). nil: no default limit.
    var defaultConcurrency: Int? { get }

    /// The voices for `language` (nil: all).
    func voices(language: String?) async throws -> [Voice]

    /// Speaks `text` with `voice`.
    /// - Throws: ``SpeechError``.
    func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio

    /// A rough duration estimate in seconds, without synthesizing.
    func estimateDuration(text: String, options: SynthesisOptions) -> TimeInterval
}

extension VoiceProvider {
    /// `speech`.
    public var capabilities: Set<ProviderCapability> { [.speech] }
    /// None: a voice is chosen per line, not per provider.
    public var defaultModels: [ProviderCapability: String] { [:] }
    /// Providers that know what to set say so (``ConfigurationHinting``).
    public var configurationHint: String { "not available" }
    public var phonemeAlphabet: PhonemeAlphabet? { nil }
    public var setsVolume: Bool { false }
    public var defaultConcurrency: Int? { nil }

    /// Default: about 165 words per minute at speed 1.0, plus a little per sentence.
    public func estimateDuration(text: String, options: SynthesisOptions) -> TimeInterval {
        Self.wordBasedEstimate(text: text, wordsPerMinute: 165 * options.boundedSpeed)
    }

    /// Words ÷ words-per-minute, plus 0.3 s per sentence end.
    public static func wordBasedEstimate(text: String, wordsPerMinute: Double) -> TimeInterval {
        let words = text.split(whereSeparator: { $0.isWhitespace }).count
        let sentences = text.filter { ".!?".contains($0) }.count
        return Double(words) / wordsPerMinute * 60 + Double(sentences) * 0.3
    }
}

/// The providers known to this process, by id.
public struct VoiceProviderRegistry: Sendable {
    private var providers: [String: any VoiceProvider] = [:]
    private var order: [String] = []
    /// The provider used when none is named: `espeak-ng`.
    public var defaultProviderID: String

    public init(defaultProviderID: String = EspeakProvider.providerID) {
        self.defaultProviderID = defaultProviderID
    }

    /// Adds or replaces a provider.
    public mutating func register(_ provider: any VoiceProvider) {
        if providers[provider.id] == nil { order.append(provider.id) }
        providers[provider.id] = provider
    }

    /// All registered providers in registration order.
    public var all: [any VoiceProvider] { order.compactMap { providers[$0] } }

    /// The phoneme alphabet of every provider that reads one, by provider id.
    public var phonemeAlphabets: [String: PhonemeAlphabet] {
        providers.compactMapValues(\.phonemeAlphabet)
    }

    /// The provider with `id` (nil: the default).
    /// - Throws: ``SpeechError/unknownProvider(_:)``.
    public func provider(_ id: String? = nil) throws(SpeechError) -> any VoiceProvider {
        let key = id ?? defaultProviderID
        guard let provider = providers[key] else { throw .unknownProvider(key) }
        return provider
    }

    /// Like ``provider(_:)`` but also requires the provider to be configured.
    /// - Throws: ``SpeechError/notConfigured(provider:hint:)``.
    public func configuredProvider(_ id: String? = nil) throws(SpeechError) -> any VoiceProvider {
        let provider = try provider(id)
        guard provider.isConfigured else {
            throw .notConfigured(provider: provider.id, hint: provider.configurationHint)
        }
        return provider
    }

    /// espeak-ng, flite, Piper, ElevenLabs and OpenAI-compatible providers configured from
    /// `environment` (see docs/speech.md for the variables); `speechHelpers` speak the linked
    /// engines' lines in parallel for a process that runs several workers (Piper always speaks
    /// through the process's shared ``PiperHelperPool``).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment,
                                speechHelpers: SpeechHelperPool? = nil) -> VoiceProviderRegistry {
        var registry = VoiceProviderRegistry()
        registry.register(EspeakProvider(environment: environment, helpers: speechHelpers))
        registry.register(FliteProvider(helpers: speechHelpers))
        registry.register(PiperProvider(environment: environment))
        registry.register(ElevenLabsProvider(configuration: .init(environment: environment)))
        registry.register(OpenAISpeechProvider(configuration: .init(environment: environment)))
        return registry
    }
}

/// Providers that can say how to configure themselves (e.g. which environment variable to set).
public protocol ConfigurationHinting {
    /// One line telling the user what to set; never contains a secret.
    var configurationHint: String { get }
}
