import Foundation

/// One voice a provider offers.
public struct Voice: Codable, Sendable, Hashable {
    /// The id passed back to ``VoiceProvider/synthesize(text:voice:language:options:)``
    /// (espeak-ng: `en-us` or `en-us+Alicia`; ElevenLabs: the voice_id; OpenAI: `alloy`, …).
    public var id: String
    /// A human-readable name.
    public var name: String
    /// BCP-47-like language codes the voice speaks (empty: any / unknown).
    public var languages: [String]
    /// `male`, `female` or nil when the provider does not say.
    public var gender: String?
    /// The provider id.
    public var provider: String
    /// The age the provider gives the voice (ElevenLabs' `age` label: `young`, `middle aged`, `old`), if any.
    public var age: String?
    /// The accent the provider gives the voice (ElevenLabs' `accent` label), if any.
    public var accent: String?
    /// How the voice is made: a rule-based engine's (espeak-ng, flite) or a neural model's (Piper,
    /// Kokoro, OpenAI, ElevenLabs). nil: not known. Casting prefers natural voices for the narrator
    /// and the leads.
    public var quality: VoiceQuality?

    public init(id: String, name: String, languages: [String], gender: String? = nil, provider: String,
                age: String? = nil, accent: String? = nil, quality: VoiceQuality? = nil) {
        (self.id, self.name, self.languages, self.gender, self.provider, self.age, self.accent, self.quality)
            = (id, name, languages, gender, provider, age, accent, quality)
    }

    /// True when the voice speaks `language` (`en` matches `en-us`; nil or empty matches all).
    public func speaks(_ language: String?) -> Bool {
        guard let language = language?.lowercased(), !language.isEmpty else { return true }
        if languages.isEmpty { return true }
        return languages.contains { lang in
            let l = lang.lowercased()
            return l == language || l.hasPrefix(language + "-") || language.hasPrefix(l + "-")
        }
    }
}

/// How a voice is made, which is most of how natural it sounds.
public enum VoiceQuality: String, Codable, Sendable, Hashable, CaseIterable {
    /// Formant or diphone synthesis from rules (espeak-ng, flite): clear, robotic.
    case synthetic
    /// A neural model trained on a speaker (Piper, Kokoro, OpenAI, ElevenLabs).
    case natural
}

/// Knobs for one synthesis request. Providers ignore what they do not support.
public struct SynthesisOptions: Codable, Sendable, Hashable {
    /// Speaking speed as a multiple of the provider's normal speed (1.0 = normal).
    public var speed: Double
    /// espeak-ng pitch 0–99 (default 50).
    public var pitch: Int?
    /// Model id for HTTP providers (ElevenLabs `model_id`, OpenAI `model`); nil = provider default.
    public var model: String?
    /// Loudness as a multiple of the voice's normal amplitude (nil = 1): espeak-ng sets it itself,
    /// every other provider's audio gets the gain afterwards (``PCMAudio/amplified(by:)``).
    public var volume: Double?
    /// The delivery a parenthetical asked for, for providers that can act it (OpenAI's
    /// `instructions`, ElevenLabs' voice settings); the offline engines use ``volume``, ``speed``
    /// and ``pitch``, which ``Delivery/options(_:)`` sets with it.
    public var style: DeliveryStyle?

    public init(speed: Double = 1.0, pitch: Int? = nil, model: String? = nil, volume: Double? = nil, style: DeliveryStyle? = nil) {
        (self.speed, self.pitch, self.model, self.volume, self.style)
            = (speed, pitch, model, volume, style)
    }

    /// Default options.
    public static let standard = SynthesisOptions()

    /// The speeds accepted (a tenth to four times normal: OpenAI's top, and the most that keeps
    /// espeak-ng's rate and flite's stretch in range).
    public static let speedRange: ClosedRange<Double> = 0.1...4
    /// espeak-ng's pitch scale.
    public static let pitchRange: ClosedRange<Int> = 0...99
    /// The volumes accepted (silence to four times normal; espeak-ng itself stops at two).
    public static let volumeRange: ClosedRange<Double> = 0...4

    /// ``speed`` in ``speedRange`` (1 when it is not a finite number): what an engine is given,
    /// whatever a caller put in the struct.
    public var boundedSpeed: Double { speed.isFinite ? min(max(speed, Self.speedRange.lowerBound), Self.speedRange.upperBound) : 1 }
    /// ``pitch`` (50 when unset) in ``pitchRange``.
    public var boundedPitch: Int { min(max(pitch ?? 50, Self.pitchRange.lowerBound), Self.pitchRange.upperBound) }
    /// ``volume`` (1 when unset or not finite) in ``volumeRange``.
    public var boundedVolume: Double {
        guard let volume, volume.isFinite else { return 1 }
        return min(max(volume, Self.volumeRange.lowerBound), Self.volumeRange.upperBound)
    }

    private enum CodingKeys: String, CodingKey {
        case speed, pitch, model, volume, style
    }

    /// Refuses a speed, pitch or volume outside ``speedRange``, ``pitchRange``, ``volumeRange``
    /// (`DecodingError.dataCorrupted` at the key, which a job turns into an invalid parameter).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func refuse(_ key: CodingKeys, _ range: String, _ value: String) -> DecodingError {
            .dataCorruptedError(forKey: key, in: container, debugDescription: "must be between \(range), not \(value)")
        }
        speed = try container.decodeIfPresent(Double.self, forKey: .speed) ?? 1
        guard speed.isFinite, Self.speedRange.contains(speed) else { throw refuse(.speed, "0.1 and 4", "\(speed)") }
        do { pitch = try container.decodeIfPresent(Int.self, forKey: .pitch) } catch let error as DecodingError {
            throw error
        } catch {
            // 1e308: Foundation throws an internal error here, reported later with no key.
            throw refuse(.pitch, "0 and 99", "a number that fits no integer")
        }
        if let pitch, !Self.pitchRange.contains(pitch) { throw refuse(.pitch, "0 and 99", "\(pitch)") }
        model = try container.decodeIfPresent(String.self, forKey: .model)
        volume = try container.decodeIfPresent(Double.self, forKey: .volume)
        if let volume, !(volume.isFinite && Self.volumeRange.contains(volume)) { throw refuse(.volume, "0 and 4", "\(volume)") }
        style = try container.decodeIfPresent(DeliveryStyle.self, forKey: .style)
    }

    /// These options where they are set, `base`'s where they are not: a cast role's pitch and
    /// speed over a request's model, say. A speed of 1.0 counts as not set.
    public func layered(over base: SynthesisOptions) -> SynthesisOptions {
        SynthesisOptions(speed: speed == Self.standard.speed ? base.speed : speed, pitch: pitch ?? base.pitch,
                         model: model ?? base.model, volume: volume ?? base.volume, style: style ?? base.style)
    }
}

/// Audio returned by a provider: the bytes and what they are.
public struct SynthesizedAudio: Sendable, Hashable {
    /// The file bytes (a complete WAV file for every built-in provider).
    public var data: Data
    /// Mime type of `data`, e.g. `audio/wav`.
    public var mimeType: String
    /// The PCM format when `data` is WAV.
    public var format: WAVFormat?
    /// Duration in seconds when known.
    public var duration: TimeInterval?

    public init(data: Data, mimeType: String, format: WAVFormat? = nil, duration: TimeInterval? = nil) {
        self.data = data
        self.mimeType = mimeType
        self.format = format
        self.duration = duration
    }
}
