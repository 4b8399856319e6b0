import Screenplay

/// A cast with the reasons for it: for every cue, the voice chosen, what the script says about
/// the character, and why that voice. What `reparto cast` prints and `results` shows.
public struct CastProposal: Codable, Sendable, Hashable {
    /// How a cue got its voice.
    public enum Tier: String, Codable, Sendable, Hashable {
        /// Named in the cast file (or a flag): wins over every inference.
        case castFile = "cast-file"
        /// A main character: one of the most distinct voices.
        case lead
        /// A minor character: an unused voice of its gender while there is one, else a shared one.
        case minor
        /// Another cue of a person cast already (another age, a full name, an honorific).
        case sameIdentity = "same-identity"
        /// Several named speakers: the first member's voice.
        case group
        /// Everyone or no one in particular: the narrator.
        case chorus
    }

    /// One cue's voice and why.
    public struct Choice: Codable, Sendable, Hashable {
        /// The normalized cue name.
        public var name: String
        /// The person it belongs to.
        public var identity: String
        public var kind: CharacterIdentity.Kind
        /// This cue's dialogue lines.
        public var lines: Int
        public var provider: String
        public var voice: String
        /// The age adjustment, if any.
        public var options: SynthesisOptions?
        /// What the script says (nil: unknown).
        public var gender: Gender?
        public var genderConfidence: Double
        public var age: AgeGroup?
        /// The voice's gender from ``VoiceMetadata`` (nil: neutral or unknown).
        public var voiceGender: Gender?
        public var tier: Tier
        /// One line: why this voice.
        public var reason: String
        public var evidence: [CastingEvidence]
    }

    public var cast: Cast
    /// The providers cast from, narrator's first.
    public var providers: [String]
    /// The narrator's choice is ``Cast/narrator``; one choice per cue: people in casting order
    /// (each person's cues together), then group and chorus cues.
    public var choices: [Choice]
    /// Engines that would have joined the casting but were left out, one line each with why
    /// (`openai: could not reach provider openai: …`); nil when none was.
    public var leftOut: [String]?

    /// The choice for cue `name` (normalized).
    public func choice(_ name: String) -> Choice? { choices.first { $0.name == name } }
}

/// The voices of one provider, as casting draws from them.
public struct VoicePool: Sendable, Hashable {
    public var provider: String
    /// All its voices for the language, in the provider's order (cast files may name any of them).
    public var voices: [Voice]

    public init(provider: String, voices: [Voice]) {
        self.provider = provider
        self.voices = voices
    }
}

extension CastProposal {
    /// The proposal as a cast file: every voice as `provider:voice`, no `provider` key (so the
    /// file does not restrict casting to one engine). Passing it back casts the same way.
    public var castFile: CastOverrides {
        var characters: [String: String] = [:]
        for choice in choices { characters[choice.name] = choice.provider + ":" + choice.voice }
        return CastOverrides(language: cast.language, narrator: cast.narratorRole.reference, characters: characters)
    }
}
