import Foundation

/// Which cues name the same person: `YOUNG EDWARD`, `EDWARD` and `ADULT EDWARD` are one identity
/// at three ages; `EDWARD (V.O.)`, `EDWARD (CONT'D)` and `@EDWARD` are `EDWARD` already (the
/// parser keeps the extension and the `@` out of the name).
///
/// Rules, applied to the normalized cue names of one script:
/// - **age prefix** (`YOUNG`, `LITTLE`, `OLD`, `ADULT`, …): `YOUNG EDWARD` → `EDWARD`, moved an age
///   band younger, when the rest names a person: another cue, or not a generic word (`OLD MAN`
///   stays itself).
/// - **honorific** (`MR.`, `MRS.`, `DR.`, …): `MRS. BLOOM` → `BLOOM` when `BLOOM` is a cue of its own
///   and no other honorific is used with it.
/// - **full name**: `EDWARD BLOOM` → `EDWARD` when `EDWARD` is a cue and no other cue starts with it.
/// - **group** (`EDWARD AND WILL`, `EDWARD & WILL`, `EDWARD/WILL`): the member identities.
/// - **chorus** (`ALL`, `BOTH`, `EVERYONE`, …): no one in particular.
public struct CharacterIdentity: Codable, Sendable, Hashable {
    /// How a cue relates to the identities of the script.
    public enum Kind: String, Codable, Sendable, Hashable {
        /// One person (maybe at another age than its identity's main cue).
        case person
        /// Several named people speaking together.
        case group
        /// Everyone or anyone: no particular speaker.
        case chorus
    }

    /// The normalized cue name.
    public var cue: String
    /// The identity it belongs to (the cue itself when nothing merges it).
    public var identity: String
    public var kind: Kind
    /// Age bands this cue is moved from its identity by its prefix (`YOUNG` −1, `OLD` +1), if it has one.
    public var ageShift: Int?
    /// For a group: the members' identities, in the order written.
    public var members: [String]
    /// Why it was merged, split or left alone.
    public var evidence: [CastingEvidence]

    /// Resolves every cue of `names` (normalized cue names) against the others. Deterministic:
    /// the result follows the order of `names`.
    public static func resolve(_ names: [String]) -> [CharacterIdentity] {
        let known = Set(names)
        var step = names.map { single($0, known: known, all: names) }
        // Chains such as `YOUNG MR. BLOOM` → `MR. BLOOM` → `BLOOM`.
        var identityOf: [String: String] = [:]
        for entry in step where entry.kind == .person { identityOf[entry.cue] = entry.identity }
        for index in step.indices where step[index].kind == .person {
            var target = step[index].identity
            var hops = 0
            while let next = identityOf[target], next != target, hops < 4 {
                target = next
                hops += 1
            }
            step[index].identity = target
            identityOf[step[index].cue] = target
        }
        for index in step.indices where step[index].kind == .group {
            step[index].members = step[index].members.map { identityOf[$0] ?? $0 }
        }
        return step
    }

    static func single(_ cue: String, known: Set<String>, all: [String]) -> CharacterIdentity {
        var result = CharacterIdentity(cue: cue, identity: cue, kind: .person, ageShift: nil, members: [], evidence: [])
        if CharacterLexicon.chorusCues.contains(cue) {
            result.kind = .chorus
            result.evidence.append(.init(source: .group, detail: "\(cue) names no one in particular"))
            return result
        }
        if let parts = groupParts(cue), parts.contains(where: { known.contains($0) }) || parts.count > 2 {
            result.kind = .group
            result.members = parts
            result.evidence.append(.init(source: .group, detail: "\(cue): \(parts.joined(separator: ", ")) together"))
            return result
        }
        let words = cue.split(separator: " ").map(String.init)
        guard words.count >= 2 else { return result }
        let first = words[0]
        let rest = words.dropFirst().joined(separator: " ")
        if let shift = CharacterLexicon.agePrefixes[first] {
            let restIsGeneric = words.dropFirst().allSatisfy { CharacterLexicon.generic.contains($0) || isNumbering($0) }
            // `YOUNG X` is X when X is a cue, or when another age of X is (`YOUNG X` and `OLD X`);
            // `LITTLE GIRL` is not `GIRL`.
            let sibling = all.contains { other in
                other != cue && other.hasSuffix(" " + rest)
                    && CharacterLexicon.agePrefixes[String(other.split(separator: " ")[0])] != nil
            }
            if !restIsGeneric, known.contains(rest) || sibling {
                result.identity = rest
                result.ageShift = shift
                result.evidence.append(.init(source: .identity, detail: "\(cue) is \(rest) at another age (\(first))"))
            }
            return result
        }
        if CharacterLexicon.honorifics[first] != nil {
            let siblings = all.filter { $0 != cue && $0.hasSuffix(" " + rest) && CharacterLexicon.honorifics[String($0.split(separator: " ")[0])] != nil }
            if known.contains(rest), siblings.isEmpty {
                result.identity = rest
                result.evidence.append(.init(source: .identity, detail: "\(cue) is \(rest) (\(first))"))
            }
            return result
        }
        // `EDWARD BLOOM` and `EDWARD`: one person when no other cue starts with `EDWARD `.
        if known.contains(first), !CharacterLexicon.generic.contains(first),
           !all.contains(where: { $0 != cue && $0.hasPrefix(first + " ") }) {
            result.identity = first
            result.evidence.append(.init(source: .identity, detail: "\(cue) is \(first) (full name)"))
        }
        return result
    }

    /// `A AND B`, `A & B`, `A/B`, `A, B AND C` split into names; nil when the cue is one name.
    static func groupParts(_ cue: String) -> [String]? {
        var text = " " + cue + " "
        for separator in [" AND ", " & ", "/", " + ", ", "] {
            text = text.replacingOccurrences(of: separator, with: "\u{1}")
        }
        let parts = text.split(separator: "\u{1}").map { CharacterCue.normalize(String($0)) }.filter { !$0.isEmpty }
        return parts.count >= 2 ? parts : nil
    }

    /// `#2`, `2`, `II`: the numbering of a generic extra (`MAN #2`).
    static func isNumbering(_ word: String) -> Bool {
        let stripped = word.hasPrefix("#") ? String(word.dropFirst()) : word
        return !stripped.isEmpty && (stripped.allSatisfy(\.isNumber) || stripped.allSatisfy { "IVX".contains($0) })
    }
}
