import Foundation

/// The second offline provider: flite (CMU's Festival-lite), linked into Reparto with its five
/// US English voices.
///
/// Voices: `kal16` and `kal` (diphone, male; `kal` at 8 kHz), `slt` (female), `rms` (male) and
/// `awb` (male, Scottish English) — the last three clustergen voices at 16 kHz. Each line comes
/// back as a 16-bit mono WAV at its voice's own sample rate.
///
/// ``SynthesisOptions/speed`` becomes flite's `duration_stretch` (1 ÷ speed) and
/// ``SynthesisOptions/pitch`` (0–99, 50 = the voice's own) moves the voice's mean F0
/// (`int_f0_target_mean`) by up to half an octave either way. Lines are spoken by this process's
/// ``FliteLibrary`` (one at a time), or by ``SpeechHelperPool`` helpers in parallel when given.
public struct FliteProvider: VoiceProvider, ConfigurationHinting {
    /// `flite`.
    public static let providerID = "flite"
    public var id: String { Self.providerID }
    public var displayName: String { "Flite (offline)" }
    public var outputMimeType: String { "audio/wav" }
    public var requiresAPIKey: Bool { false }
    public var maxCharactersPerRequest: Int
    /// Helper processes to speak several lines at once (nil: this process's one ``FliteLibrary``).
    public let helpers: SpeechHelperPool?
    /// Words per minute at speed 1.0, for duration estimates (flite's voices speak at about 170).
    public var baseWordsPerMinute: Int = 170

    /// - Parameters:
    ///   - maxCharactersPerRequest: longer text is chunked by ``SpeechSynthesizer``.
    ///   - helpers: helper processes for a process that runs several workers.
    public init(maxCharactersPerRequest: Int = 5_000, helpers: SpeechHelperPool? = nil) {
        self.maxCharactersPerRequest = maxCharactersPerRequest
        self.helpers = helpers
    }

    /// The voices, in casting order (the narrator gets the first).
    public static let voices: [Voice] = [
        Voice(id: "kal16", name: "Kal (US English, 16 kHz)", languages: ["en-us", "en"], gender: "male", provider: providerID),
        Voice(id: "slt", name: "SLT (US English)", languages: ["en-us", "en"], gender: "female", provider: providerID),
        Voice(id: "rms", name: "RMS (US English)", languages: ["en-us", "en"], gender: "male", provider: providerID),
        Voice(id: "awb", name: "AWB (Scottish English)", languages: ["en"], gender: "male", provider: providerID),
        Voice(id: "kal", name: "Kal (US English, 8 kHz)", languages: ["en-us", "en"], gender: "male", provider: providerID),
    ]

    /// Always: libflite is linked, and Debian's libflite1 ships the voice libraries with it. They
    /// are opened at the first synthesis, not here, so a process that only lists providers (every
    /// worker at start) does not pay their memory; one that fails to open says so then.
    public var isConfigured: Bool { true }

    public var configurationHint: String { "install flite (apt-get install libflite1) and rebuild with flite1-dev" }

    public func voices(language: String?) async throws -> [Voice] {
        Self.voices.filter { $0.speaks(language) }
    }

    public func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
        let text = try SpeechText.validated(text, limit: maxCharactersPerRequest)
        guard Self.voices.contains(where: { $0.id == voice }) else { throw SpeechError.unknownVoice(voice, provider: id) }
        let request = EngineRequest(engine: .flite, text: text, voice: voice, rate: Self.durationStretch(speed: options.speed),
                                    pitch: options.boundedPitch)
        let output = if let helpers {
            try await helpers.synthesize(request)
        } else {
            try await FliteLibrary.shared.synthesize(request)
        }
        return try output.wav(provider: id)
    }

    /// flite's `duration_stretch` for `speed`, in thousandths (speed 2 → 500: half as long).
    static func durationStretch(speed: Double) -> Int {
        let speed = speed.isFinite && speed > 0 ? speed : 1
        return Int((1000 / min(4, max(0.25, speed))).rounded())
    }

    public func estimateDuration(text: String, options: SynthesisOptions) -> TimeInterval {
        Self.wordBasedEstimate(text: text, wordsPerMinute: Double(baseWordsPerMinute) * options.boundedSpeed)
    }
}
