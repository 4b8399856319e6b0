import Foundation
import Postgres
import Speech

/// A read-through cache of providers' voice listings in the `voice_cache` table.
///
/// ``voices(provider:language:)`` returns the cached listing while it is fresh; otherwise it asks
/// the provider and upserts the row with a new expiry. All SQL runs through
/// ``PostgresClient/withConnection(_:)`` (on the connection's own thread, never the cooperative pool).
///
/// ```swift
/// let catalog = VoiceCatalog(postgres: client, lifetime: 3600)
/// let voices = try await catalog.voices(provider: try registry.provider("espeak-ng"), language: "en")
/// ```
public struct VoiceCatalog: Sendable {
    public let postgres: PostgresClient
    /// Seconds a fetched listing stays fresh.
    public var lifetime: TimeInterval

    public init(postgres: PostgresClient, lifetime: TimeInterval = 24 * 3600) {
        self.postgres = postgres
        self.lifetime = lifetime
    }

    /// The voices of `provider` for `language` (nil: all), from the cache when fresh.
    /// - Throws: the provider's ``SpeechError`` on a miss, or a ``PostgresError``.
    public func voices(provider: any VoiceProvider, language: String?) async throws -> [Voice] {
        if let cached = try await cached(provider: provider.id, language: language) { return cached }
        let voices = try await provider.voices(language: language)
        try await store(voices, provider: provider.id, language: language)
        return voices
    }

    /// The cached listing if a fresh row exists.
    public func cached(provider: String, language: String?) async throws -> [Voice]? {
        let key = language ?? ""
        let data: String? = try await postgres.withConnection { connection in
            try connection.query("""
                SELECT voices::text AS voices FROM voice_cache
                WHERE provider = $1 AND language = $2 AND expires_at > now()
                """, [provider, key]).first?.string("voices")
        }
        guard let data else { return nil }
        return try JSONDecoder().decode([Voice].self, from: Data(data.utf8))
    }

    /// Stores (or replaces) a listing, fresh for ``lifetime`` seconds from now.
    public func store(_ voices: [Voice], provider: String, language: String?) async throws {
        let json = try PostgresJSON(encoding: voices)
        let key = language ?? ""
        let lifetime = self.lifetime
        try await postgres.withConnection { connection in
            _ = try connection.query("""
                INSERT INTO voice_cache (provider, language, voices, fetched_at, expires_at)
                VALUES ($1, $2, $3::jsonb, now(), now() + make_interval(secs => $4))
                ON CONFLICT (provider, language) DO UPDATE
                SET voices = EXCLUDED.voices, fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at
                """, [provider, key, json, lifetime])
        }
    }

    /// Forgets the cached listings of `provider` (all languages).
    public func invalidate(provider: String) async throws {
        try await postgres.withConnection { connection in
            _ = try connection.query("DELETE FROM voice_cache WHERE provider = $1", [provider])
        }
    }

    /// Records every provider of `registry` in `voice_providers` (display name and whether it is
    /// configured now); `enabled` is left as an operator set it. Same as ``VoiceProviderDirectory/record(_:)``.
    public func recordProviders(_ registry: VoiceProviderRegistry) async throws {
        try await VoiceProviderDirectory(postgres: postgres).record(registry)
    }
}
