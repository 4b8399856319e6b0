import Foundation

/// The front door for turning text into WAV: picks the provider and a default voice, validates
/// and chunks the text, and joins chunk audio.
public struct SpeechSynthesizer: Sendable {
    public var registry: VoiceProviderRegistry
    /// Longest text accepted in one call, whatever the chunking (characters).
    public var maximumLength: Int
    /// Silence between chunks of one long text, in seconds.
    public var chunkPause: Double

    public init(registry: VoiceProviderRegistry, maximumLength: Int = SpeechText.defaultMaximumLength, chunkPause: Double = 0.25) {
        self.registry = registry
        self.maximumLength = maximumLength
        self.chunkPause = chunkPause
    }

    /// The voice used when none is given: the provider's first voice for `language`
    /// (``CastingDirector/defaultLanguage`` when nil).
    public func defaultVoice(provider: any VoiceProvider, language: String?) async throws -> Voice {
        let voices = try await provider.voices(language: language ?? CastingDirector.defaultLanguage)
        guard let voice = voices.first else {
            throw SpeechError.unknownVoice("(default for \(language ?? "any language"))", provider: provider.id)
        }
        return voice
    }

    /// Speaks `text`. Text longer than the provider's per-request limit is split at sentence
    /// boundaries, synthesized part by part, and joined into one WAV.
    /// - Throws: ``SpeechError``.
    public func synthesize(text: String, provider providerID: String? = nil, voice: String? = nil, language: String? = nil,
                           options: SynthesisOptions = .standard) async throws -> SynthesizedAudio {
        let text = try SpeechText.validated(text, limit: maximumLength)
        let provider = try registry.configuredProvider(providerID)
        let voiceID: String
        if let voice { voiceID = voice } else { voiceID = try await defaultVoice(provider: provider, language: language).id }
        let chunks = SpeechText.chunks(text, maxLength: provider.maxCharactersPerRequest)
        let gain = provider.setsVolume ? nil : options.volume.flatMap { $0 == 1 ? nil : $0 }
        if chunks.count == 1 && gain == nil {
            return try await provider.synthesize(text: chunks[0], voice: voiceID, language: language, options: options)
        }
        var parts: [PCMAudio] = []
        for chunk in chunks {
            let audio = try await provider.synthesize(text: chunk, voice: voiceID, language: language, options: options)
            do { parts.append(try PCMAudio(wav: audio.data)) } catch {
                throw SpeechError.invalidAudio(provider: provider.id, reason: error.description)
            }
        }
        var joined = try PCMAudio.concatenate(parts, pause: chunkPause)
        if let gain { joined = joined.amplified(by: gain) }
        let data = joined.wavData()
        return SynthesizedAudio(data: data, mimeType: "audio/wav", format: .pcm16(sampleRate: joined.sampleRate, channels: joined.channels),
                                duration: joined.duration)
    }

    /// Speaks `items` with `cast`'s voices and joins them into one WAV with `pause` seconds between
    /// items. A role's own options win where they are set; `options` fill in the rest (a model, say).
    public func render(_ items: [SpeakableItem], cast: Cast, pause: Double = 0.4, options: SynthesisOptions = .standard) async throws -> SynthesizedAudio {
        var parts: [PCMAudio] = []
        for item in items {
            let role = cast.role(for: item.role)
            let base = role.options?.layered(over: options) ?? options
            let audio = try await synthesize(text: item.text, provider: role.provider, voice: role.voice,
                                             language: cast.language, options: item.delivery?.options(base) ?? base)
            do { parts.append(try PCMAudio(wav: audio.data)) } catch {
                throw SpeechError.invalidAudio(provider: role.provider, reason: error.description)
            }
        }
        guard !parts.isEmpty else { throw SpeechError.emptyText }
        let joined = try PCMAudio.concatenate(parts, pause: pause)
        return SynthesizedAudio(data: joined.wavData(), mimeType: "audio/wav",
                                format: .pcm16(sampleRate: joined.sampleRate, channels: joined.channels), duration: joined.duration)
    }
}
