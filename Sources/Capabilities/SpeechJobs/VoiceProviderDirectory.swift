import Foundation
import Postgres
import RepartoRuntime
import Speech

/// One row of `voice_providers`: a provider a deployment offers and whether it may be used.
public struct VoiceProviderState: Codable, Sendable, Hashable {
    /// The provider id (`espeak-ng`, `elevenlabs`, `openai`).
    public var id: String
    /// Human-readable name, as the last worker that recorded it reported.
    public var displayName: String
    /// Operator-owned switch: a disabled provider's items fail their `speech.synthesize` job permanently.
    public var enabled: Bool
    /// Whether the last worker that recorded the provider could use it (engine present, key set).
    public var configured: Bool
    /// When a worker last recorded the row or an operator last switched it.
    public var updatedAt: Date?

    public init(id: String, displayName: String, enabled: Bool, configured: Bool, updatedAt: Date? = nil) {
        self.id = id
        self.displayName = displayName
        self.enabled = enabled
        self.configured = configured
        self.updatedAt = updatedAt
    }
}

/// What ``VoiceProviderDirectory`` refuses.
public enum VoiceProviderDirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Neither the table nor this process's registry knows the id; `known` lists the ids that exist.
    case unknownProvider(String, known: [String])

    public var description: String {
        switch self {
        case .unknownProvider(let id, let known):
            return "unknown voice provider '\(id)'" + (known.isEmpty ? "" : " (known: \(known.joined(separator: ", ")))")
        }
    }
}

/// The `voice_providers` table: workers record the providers they offer, operators enable and
/// disable them, the `speech.synthesize` job reads the `enabled` flag (through ``VoiceProviderGate``).
///
/// All SQL runs through ``PostgresClient/withConnection(_:)`` (on the connection's own thread,
/// never the cooperative pool).
///
/// ```swift
/// let directory = VoiceProviderDirectory(postgres: client)
/// try await directory.record(.standard())
/// _ = try await directory.setEnabled(false, provider: "openai", registry: .standard())
/// for state in try await directory.list() { print(state.id, state.enabled) }
/// ```
public struct VoiceProviderDirectory: Sendable {
    public let postgres: PostgresClient

    public init(postgres: PostgresClient) {
        self.postgres = postgres
    }

    /// Upserts every provider of `registry` (display name, whether it is configured in this
    /// process); `enabled` is left as an operator set it (true for a new row). A configured
    /// provider with a ``VoiceProvider/defaultConcurrency`` gets its limit `provider:ID` unless one
    /// of that name exists.
    public func record(_ registry: VoiceProviderRegistry) async throws {
        try await postgres.withConnection { connection in
            // isConfigured may look at the file system: evaluated here, off the cooperative pool.
            let rows = registry.all.map { ($0.id, $0.displayName, $0.isConfigured) }
            let limits = registry.all.compactMap { provider in
                provider.isConfigured ? provider.defaultConcurrency.map { LimitSpec(name: "provider:\(provider.id)", concurrency: $0) } : nil
            }
            try connection.transaction { connection in
                for (id, name, configured) in rows {
                    _ = try connection.query("""
                        INSERT INTO voice_providers (id, display_name, configured, updated_at) VALUES ($1, $2, $3, now())
                        ON CONFLICT (id) DO UPDATE
                        SET display_name = EXCLUDED.display_name, configured = EXCLUDED.configured, updated_at = now()
                        """, [id, name, configured])
                }
                for spec in limits { _ = try JobClient.addLimitIfAbsent(spec, in: connection) }
            }
        }
    }

    /// Every recorded provider, by id.
    public func list() async throws -> [VoiceProviderState] {
        let rows = try await postgres.query("""
            SELECT id, display_name, enabled, configured, updated_at FROM voice_providers ORDER BY id
            """)
        return rows.map { row in
            VoiceProviderState(id: row.string("id") ?? "", displayName: row.string("display_name") ?? "",
                               enabled: row.bool("enabled") ?? true, configured: row.bool("configured") ?? false,
                               updatedAt: row.date("updated_at"))
        }
    }

    /// The `enabled` flag of every recorded provider (one small query).
    public func enabledFlags() async throws -> [String: Bool] {
        let rows = try await postgres.query("SELECT id, enabled FROM voice_providers")
        var flags: [String: Bool] = [:]
        for row in rows { if let id = row.string("id") { flags[id] = row.bool("enabled") ?? true } }
        return flags
    }

    /// Sets the operator switch of provider `id` and returns the row.
    ///
    /// A provider this process's `registry` knows but no worker has recorded yet gets its row
    /// (`configured` false until a worker records it).
    /// - Throws: ``VoiceProviderDirectoryError/unknownProvider(_:known:)`` when neither the table
    ///   nor `registry` has `id`; a ``PostgresError`` otherwise.
    @discardableResult
    public func setEnabled(_ enabled: Bool, provider id: String, registry: VoiceProviderRegistry) async throws -> VoiceProviderState {
        let names = Dictionary(registry.all.map { ($0.id, $0.displayName) }, uniquingKeysWith: { first, _ in first })
        let outcome: Result<VoiceProviderState, VoiceProviderDirectoryError> = try await postgres.withTransaction { connection in
            let columns = "id, display_name, enabled, configured, updated_at"
            var rows = try connection.query(
                "UPDATE voice_providers SET enabled = $2, updated_at = now() WHERE id = $1 RETURNING \(columns)", [id, enabled])
            if rows.isEmpty, let name = names[id] {
                rows = try connection.query("""
                    INSERT INTO voice_providers (id, display_name, enabled, configured, updated_at) VALUES ($1, $2, $3, false, now())
                    ON CONFLICT (id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()
                    RETURNING \(columns)
                    """, [id, name, enabled])
            }
            guard let row = rows.first else {
                let recorded = try connection.query("SELECT id FROM voice_providers").compactMap { $0.string("id") }
                return .failure(.unknownProvider(id, known: Set(recorded).union(names.keys).sorted()))
            }
            return .success(VoiceProviderState(
                id: row.string("id") ?? id, displayName: row.string("display_name") ?? "",
                enabled: row.bool("enabled") ?? enabled, configured: row.bool("configured") ?? false,
                updatedAt: row.date("updated_at")))
        }
        return try outcome.get()
    }
}
