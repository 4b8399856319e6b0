import Foundation
import Screenplay

/// Gives every character a voice, deterministically.
///
/// - The narrator gets the override, else the provider's first voice for the language.
/// - Each character gets its override, else a voice picked by a stable FNV-1a hash of its
///   normalized name (never Swift's per-process randomized `hashValue`), probing to the next
///   unused voice so characters get distinct voices as long as the provider has enough; only
///   then are voices reused (still deterministically).
/// - The same document, provider and overrides always give the same cast.
public enum CastingDirector {
    /// Default language when neither the cast nor the document says.
    public static let defaultLanguage = "en"

    /// Upper-cased, trimmed, inner whitespace collapsed: `" Isolde  Marie "` → `"ISOLDE MARIE"`.
    public static func normalize(_ name: String) -> String {
        CharacterCue.normalize(name)
    }

    /// 64-bit FNV-1a of the UTF-8 bytes: stable across processes, machines and Swift versions.
    public static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The document's language from its title page (`Language:` or `Lang:`), if any.
    public static func language(of document: ScreenplayDocument) -> String? {
        document.titlePage.first { ["language", "lang"].contains($0.key.lowercased().trimmingCharacters(in: .whitespaces)) }?
            .values.first?.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The distinct normalized character names of `document`, in order of first appearance.
    public static func characters(of document: ScreenplayDocument) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for e in document.elements where e.type == .character {
            let name = normalize(e.name ?? SpeakableRules.cueName(e.plainText))
            if !name.isEmpty, seen.insert(name).inserted { out.append(name) }
        }
        return out
    }

    /// Casts `characters` from `voices` (the provider's voices for `language`).
    ///
    /// - Throws: ``SpeechError/unknownVoice(_:provider:)`` when an override names a voice that is
    ///   not in `voices`; ``SpeechError/invalidCast(reason:)`` when `voices` is empty.
    public static func cast(characters: [String], voices: [Voice], provider: String, language: String,
                            overrides: CastOverrides = CastOverrides()) throws(SpeechError) -> Cast {
        try overrides.validate()
        guard !voices.isEmpty else { throw .invalidCast(reason: "provider \(provider) has no voices for language \(language)") }
        let known = Set(voices.map(\.id))
        func check(_ id: String) throws(SpeechError) -> String {
            guard known.contains(id) else { throw .unknownVoice(id, provider: provider) }
            return id
        }
        let narrator = try overrides.narrator.map(check) ?? voices[0].id
        var assigned: [String: String] = [:]
        for (name, voice) in overrides.characters { assigned[normalize(name)] = try check(voice) }

        let reserved = Set([narrator]).union(assigned.values)
        var pool = voices.map(\.id).filter { !reserved.contains($0) }.sorted()
        if pool.isEmpty { pool = voices.map(\.id).sorted() }
        let pending = Set(characters.map(normalize)).subtracting(assigned.keys).filter { !$0.isEmpty }
            .map { (name: $0, hash: stableHash($0)) }
            .sorted { ($0.hash, $0.name) < ($1.hash, $1.name) }
        var used = Set<Int>()
        for (name, hash) in pending {
            if used.count == pool.count { used.removeAll() }  // more characters than voices: reuse
            var index = Int(hash % UInt64(pool.count))
            while used.contains(index) { index = (index + 1) % pool.count }
            used.insert(index)
            assigned[name] = pool[index]
        }
        return Cast(provider: provider, language: language, narrator: narrator, characters: assigned)
    }

    /// Casts a whole document: provider and language from the overrides, else the registry default
    /// and the document's title page, else ``defaultLanguage``.
    public static func cast(document: ScreenplayDocument, registry: VoiceProviderRegistry,
                            overrides: CastOverrides = CastOverrides()) async throws -> Cast {
        let provider = try registry.configuredProvider(overrides.provider)
        let language = overrides.language ?? language(of: document) ?? defaultLanguage
        let voices = try await provider.voices(language: language)
        return try cast(characters: characters(of: document), voices: voices, provider: provider.id,
                        language: language, overrides: overrides)
    }
}
