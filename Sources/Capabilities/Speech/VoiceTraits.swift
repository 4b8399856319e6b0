import Screenplay

/// What casting knows about a voice: who it sounds like, and whether it may be cast at all.
public struct VoiceTraits: Codable, Sendable, Hashable {
    /// nil: neither (or not known).
    public var gender: Gender?
    /// The youngest and oldest characters the voice suits.
    public var youngest: AgeGroup
    public var oldest: AgeGroup
    /// A short accent name (`American`, `British`, `Scottish`), if known.
    public var accent: String?
    /// The voice's middle pitch in Hz (from espeak-ng's variant files; an estimate elsewhere).
    public var pitch: Double
    /// Voices of one family sound alike (espeak-ng variants that share formants, `kal`/`kal16`).
    public var family: String
    /// False for novelty voices (robots, demons, whispers, effects): never cast unless a cast file names them.
    public var castable: Bool
    /// True for a neural model's voice (Piper, Kokoro, OpenAI, ElevenLabs), false for a rule-based
    /// engine's (espeak-ng, flite) or an unknown one: casting prefers natural voices for the
    /// narrator and the leads (``VoiceMetadata/isNatural(_:)``).
    public var natural: Bool

    public init(gender: Gender?, youngest: AgeGroup = .youngAdult, oldest: AgeGroup = .adult, accent: String? = nil,
                pitch: Double? = nil, family: String, castable: Bool = true, natural: Bool = false) {
        self.gender = gender
        self.youngest = youngest
        self.oldest = oldest
        self.accent = accent
        self.pitch = pitch ?? (gender == .female ? 200 : gender == .male ? 100 : 150)
        self.family = family
        self.castable = castable
        self.natural = natural
    }

    /// True when the voice suits a character of `age` (always for an unknown age).
    public func suits(_ age: AgeGroup?) -> Bool {
        guard let age else { return true }
        return youngest <= age && age <= oldest
    }

    /// How far apart two voices sound, for casting leads apart: another engine counts most, then
    /// gender, family, accent and pitch. Symmetric, 0 for the same voice.
    public func distance(to other: VoiceTraits, sameProvider: Bool) -> Double {
        var d = 0.0
        if !sameProvider { d += 3 }
        if gender != other.gender { d += 2 }
        if family != other.family { d += 1.5 }
        if accent != other.accent { d += 1 }
        d += min(abs(pitch - other.pitch) / 25, 2)
        return d
    }
}
