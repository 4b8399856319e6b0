import Foundation
import Yams

/// The voices chosen for one document: a narrator and one voice per character, all from one
/// provider. Stored with the production so every later job uses the same voices.
public struct Cast: Codable, Sendable, Hashable {
    /// The provider id.
    public var provider: String
    /// The language spoken.
    public var language: String
    /// The narrator's voice id.
    public var narrator: String
    /// Normalized character name → voice id.
    public var characters: [String: String]

    public init(provider: String, language: String, narrator: String, characters: [String: String]) {
        self.provider = provider
        self.language = language
        self.narrator = narrator
        self.characters = characters
    }

    /// The voice for `role`; characters not in the cast get the narrator's voice.
    public func voice(for role: SpeakerRole) -> String {
        switch role {
        case .narrator: return narrator
        case .character(let name): return characters[CastingDirector.normalize(name)] ?? narrator
        }
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
/// ```
public struct CastOverrides: Codable, Sendable, Hashable {
    public var provider: String?
    public var language: String?
    public var narrator: String?
    /// Character name (any case) → voice id.
    public var characters: [String: String]

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
