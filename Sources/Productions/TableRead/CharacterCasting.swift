import SpeechJobs
import Screenplay
import Speech

/// Why a character of a production got its voice: the `production_characters.casting` column,
/// shown by `reparto results` (see ``CastProposal``).
public struct CharacterCasting: Codable, Sendable, Hashable {
    public var tier: CastProposal.Tier
    /// One line: why this voice.
    public var reason: String
    /// The voice's gender (nil: neutral or unknown).
    public var voiceGender: Gender?
    /// The role's age adjustment, if any.
    public var options: SynthesisOptions?
    /// What the script says about the character.
    public var evidence: [CastingEvidence]

    public init(_ choice: CastProposal.Choice) {
        tier = choice.tier
        reason = choice.reason
        voiceGender = choice.voiceGender
        options = choice.options
        evidence = choice.evidence
    }
}
