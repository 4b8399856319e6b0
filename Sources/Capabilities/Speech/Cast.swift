import Foundation
import Yams

/// One role's voice: the provider, the voice id, and an age adjustment (rate, pitch) when the
/// role is its person at another age (`YOUNG EDWARD` speaks with `EDWARD`'s voice, higher and quicker).
public struct CastRole: Codable, Sendable, Hashable {
    public var provider: String
    public var voice: String
    /// nil: the voice as it is.
    public var options: SynthesisOptions?

    public init(provider: String, voice: String, options: SynthesisOptions? = nil) {
        self.provider = provider
        self.voice = voice
        self.options = options
    }

    /// `provider:voice`, as a cast file writes it.
    public var reference: String { provider + ":" + voice }
}

/// The voices chosen for one document: a narrator and one role per character, possibly from
/// several providers. Stored with the production so every later job uses the same voices.
///
/// JSON: `{"provider", "language", "narrator", "characters": {NAME: {"provider", "voice", "options"}}}`.
/// A character given as a bare voice id (`{NAME: "en-us+m3"}`, how casts were stored before
/// roles named their provider) is a voice of ``provider``.
public struct Cast: Codable, Sendable, Hashable {
    /// The narrator's provider, and the provider of characters stored as bare voice ids.
    public var provider: String
    /// The language spoken.
    public var language: String
    /// The narrator's voice id (of ``provider``).
    public var narrator: String
    /// Normalized character name → role.
    public var characters: [String: CastRole]

    public init(provider: String, language: String, narrator: String, characters: [String: CastRole]) {
        self.provider = provider
        self.language = language
        self.narrator = narrator
        self.characters = characters
    }

    /// A cast whose characters all speak with voices of `provider`.
    public init(provider: String, language: String, narrator: String, characters: [String: String]) {
        self.init(provider: provider, language: language, narrator: narrator,
                  characters: characters.mapValues { CastRole(provider: provider, voice: $0) })
    }

    enum CodingKeys: String, CodingKey { case provider, language, narrator, characters }

    /// A stored role: an object, or a bare voice id of the cast's provider.
    private enum StoredRole: Decodable {
        case voice(String)
        case role(CastRole)

        init(from decoder: any Decoder) throws {
            if let voice = try? decoder.singleValueContainer().decode(String.self) {
                self = .voice(voice)
            } else {
                self = .role(try CastRole(from: decoder))
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        provider = try c.decode(String.self, forKey: .provider)
        language = try c.decodeIfPresent(String.self, forKey: .language) ?? CastingDirector.defaultLanguage
        narrator = try c.decode(String.self, forKey: .narrator)
        let stored = try c.decodeIfPresent([String: StoredRole].self, forKey: .characters) ?? [:]
        let provider = self.provider
        characters = stored.mapValues { role in
            switch role {
            case .voice(let voice): return CastRole(provider: provider, voice: voice)
            case .role(let role): return role
            }
        }
    }

    /// The narrator's role.
    public var narratorRole: CastRole { CastRole(provider: provider, voice: narrator) }

    /// The role for `speaker`; characters not in the cast get the narrator's.
    public func role(for speaker: SpeakerRole) -> CastRole {
        switch speaker {
        case .narrator: return narratorRole
        case .character(let name): return characters[CastingDirector.normalize(name)] ?? narratorRole
        }
    }

    /// The voice id for `role`; characters not in the cast get the narrator's voice.
    public func voice(for role: SpeakerRole) -> String { self.role(for: role).voice }

    /// The providers the cast uses, narrator's first, then by name.
    public var providers: [String] {
        [provider] + Set(characters.values.map(\.provider)).subtracting([provider]).sorted()
    }
}

/// Choices made by people, from a cast file or command-line flags; anything left nil is chosen
/// by ``CastingDirector``.
///
/// Cast file (YAML or JSON, same keys):
/// ```yaml
/// provider: espeak-ng
/// language: en
/// narrator: en-gb
/// characters:
///   ISOLDE: en-us+Alicia
///   Tristan: en-gb-scotland
///   MARKE: flite:rms
/// ```
/// A voice may name its provider (`flite:rms`); without one it is a voice of `provider` (or,
/// when no provider is named, of the default provider). Naming `provider` casts from that provider
/// only; without it, casting spreads characters over the configured offline engines.
public struct CastOverrides: Codable, Sendable, Hashable {
    public var provider: String?
    public var language: String?
    public var narrator: String?
    /// Character name (any case) → voice id, or `provider:voice`.
    public var characters: [String: String]

    /// Splits `provider:voice` when the part before the first `:` is one of `providers`;
    /// otherwise the whole value is a voice id of no named provider.
    public static func reference(_ value: String, providers: [String]) -> (provider: String?, voice: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let colon = trimmed.firstIndex(of: ":"), providers.contains(String(trimmed[..<colon])) {
            return (String(trimmed[..<colon]), String(trimmed[trimmed.index(after: colon)...]))
        }
        return (nil, trimmed)
    }

    public init(provider: String? = nil, language: String? = nil, narrator: String? = nil, characters: [String: String] = [:]) {
        self.provider = provider
        self.language = language
        self.narrator = narrator
        self.characters = characters
    }

    enum CodingKeys: String, CodingKey { case provider, language, narrator, characters }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        provider = try c.decodeIfPresent(String.self, forKey: .provider)
        language = try c.decodeIfPresent(String.self, forKey: .language)
        narrator = try c.decodeIfPresent(String.self, forKey: .narrator)
        characters = try c.decodeIfPresent([String: String].self, forKey: .characters) ?? [:]
    }

    /// Parses a cast file: JSON when it starts with `{`, YAML otherwise.
    /// - Throws: ``SpeechError/invalidCast(reason:)``.
    public static func parse(_ data: Data) throws(SpeechError) -> CastOverrides {
        let text = String(decoding: data, as: UTF8.self)
        let overrides: CastOverrides
        do {
            if text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
                overrides = try JSONDecoder().decode(CastOverrides.self, from: data)
            } else if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                overrides = CastOverrides()
            } else {
                overrides = try YAMLDecoder().decode(CastOverrides.self, from: text)
            }
        } catch {
            throw .invalidCast(reason: "cast file is not valid YAML or JSON with provider/language/narrator/characters")
        }
        try overrides.validate()
        return overrides
    }

    /// Reads and parses a cast file.
    public static func load(from url: URL) throws(SpeechError) -> CastOverrides {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .invalidCast(reason: "cannot read cast file \(url.path)") }
        return try parse(data)
    }

    /// Rejects empty names or voice ids and names that differ only in case.
    public func validate() throws(SpeechError) {
        var seen = Set<String>()
        for (name, voice) in characters {
            let key = CastingDirector.normalize(name)
            guard !key.isEmpty else { throw .invalidCast(reason: "empty character name") }
            guard !voice.trimmingCharacters(in: .whitespaces).isEmpty else { throw .invalidCast(reason: "empty voice for \(name)") }
            guard seen.insert(key).inserted else { throw .invalidCast(reason: "character \(key) is listed twice") }
        }
        if let narrator = narrator, narrator.trimmingCharacters(in: .whitespaces).isEmpty {
            throw .invalidCast(reason: "empty narrator voice")
        }
    }

    /// `self` with every value set in `other` taking precedence (flags over file).
    public func merging(_ other: CastOverrides) -> CastOverrides {
        var out = self
        out.provider = other.provider ?? provider
        out.language = other.language ?? language
        out.narrator = other.narrator ?? narrator
        for (name, voice) in other.characters {
            let key = CastingDirector.normalize(name)
            out.characters = out.characters.filter { CastingDirector.normalize($0.key) != key }
            out.characters[name] = voice
        }
        return out
    }
}

extension CastOverrides {
    /// Characters' voices from `NAME=VOICE` pairs, as the `--voice` flag gives them (`VOICE` may be
    /// `provider:voice`); a later pair for the same name wins.
    /// - Throws: ``VoiceAssignmentError`` for a pair without a name, an `=` or a voice.
    public static func characters(parsing pairs: [String]) throws(VoiceAssignmentError) -> [String: String] {
        var characters: [String: String] = [:]
        for pair in pairs {
            guard let eq = pair.firstIndex(of: "="), !pair[..<eq].isEmpty, !pair[pair.index(after: eq)...].isEmpty else {
                throw VoiceAssignmentError(pair: pair)
            }
            characters[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        return characters
    }
}

/// A `--voice` value that is not `NAME=VOICE`.
public struct VoiceAssignmentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value as given.
    public var pair: String

    public var description: String { "--voice takes NAME=VOICE, not '\(pair)'" }
}
