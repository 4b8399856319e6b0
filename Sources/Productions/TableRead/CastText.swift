import SpeechJobs
import Foundation
import Screenplay
import Speech

/// How a proposed cast reads on a terminal: `reparto cast` (a YAML cast file with the evidence as
/// comments, or JSON) and the casting lines of `reparto results`.
public enum CastText {
    /// A YAML cast file for `source`: every cue with its voice as `provider:voice`, each preceded by
    /// comments saying what the script says about the character and why that voice.
    public static func yaml(_ proposal: CastProposal, source: String) -> String {
        var out = [
            "# Cast proposed by `reparto cast` for \(source), from \(proposal.providers.joined(separator: ", ")).",
            "# Edit any voice and pass the file back with --cast: the names it lists win over every inference.",
            "language: \(quoted(proposal.cast.language))",
            "narrator: \(quoted(proposal.cast.narratorRole.reference))",
            "characters:",
        ]
        for choice in proposal.choices {
            out.append("  # \(summary(choice))")
            if choice.tier != .sameIdentity {
                for evidence in choice.evidence { out.append("  #   " + line(evidence)) }
            }
            out.append("  \(quoted(choice.name)): \(quoted(choice.provider + ":" + choice.voice))")
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// What `reparto cast --json` prints: a cast file (`language`, `narrator`, `characters`) that
    /// also carries the providers and every choice with its evidence.
    public struct ProposalJSON: Codable, Sendable {
        public var language: String?
        public var narrator: String?
        public var characters: [String: String]
        public var providers: [String]
        public var choices: [CastProposal.Choice]
    }

    /// `--json`: sorted keys, pretty-printed.
    public static func json(_ proposal: CastProposal) throws -> String {
        let file = proposal.castFile
        let value = ProposalJSON(language: file.language, narrator: file.narrator, characters: file.characters,
                                 providers: proposal.providers, choices: proposal.choices)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    /// `EDWARD — 412 lines; male (0.95), adult; lead 1: …`
    static func summary(_ c: CastProposal.Choice) -> String {
        var parts = ["\(c.name) — \(c.lines) line\(c.lines == 1 ? "" : "s")"]
        if c.identity != c.name { parts.append("is \(c.identity)") }
        if c.kind == .person { parts.append(traits(gender: c.gender?.rawValue, confidence: c.genderConfidence, age: c.age?.rawValue)) }
        parts.append(c.reason)
        return parts.joined(separator: "; ")
    }

    /// `male (0.95), adult` or `gender unknown`.
    static func traits(gender: String?, confidence: Double?, age: String?) -> String {
        var text = gender.map { g in confidence.map { String(format: "%@ (%.2f)", g, $0) } ?? g } ?? "gender unknown"
        if let age { text += ", " + age }
        return text
    }

    /// One evidence: `introduction: "SANDRA (60s)": 60s`.
    public static func line(_ evidence: CastingEvidence) -> String {
        "\(evidence.source.rawValue): \(evidence.detail)"
    }

    /// The casting lines `reparto results` prints under a character (nil before casting was recorded).
    public static func resultLines(_ c: TableReadResults.Character) -> [String] {
        guard let casting = c.casting else { return [] }
        var out = [(c.identity.map { $0 != c.name ? "is \($0); " : "" } ?? "")
            + traits(gender: c.gender, confidence: c.genderConfidence, age: c.age) + "; " + casting.reason]
        out += casting.evidence.map(line)
        return out
    }

    /// A YAML double-quoted scalar.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
