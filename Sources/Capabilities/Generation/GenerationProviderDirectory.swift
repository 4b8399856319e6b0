import Foundation
import Postgres
import Providers

/// One row of `generation_providers`.
public struct GenerationProviderState: Codable, Sendable, Hashable {
    public var id: String
    public var displayName: String
    public var capabilities: [String]
    /// Default model per capability.
    public var models: [String: String]
    /// Operator-owned switch: a disabled provider is skipped by every chain.
    public var enabled: Bool
    /// Whether the last worker that recorded it could use it (false after a 401/403).
    public var configured: Bool
    public var updatedAt: Date?

    public init(id: String, displayName: String, capabilities: [String], models: [String: String], enabled: Bool,
                configured: Bool, updatedAt: Date? = nil) {
        (self.id, self.displayName, self.capabilities, self.models, self.enabled, self.configured, self.updatedAt) =
            (id, displayName, capabilities, models, enabled, configured, updatedAt)
    }
}

/// The `generation_providers` table: workers record their providers, operators switch them
/// (`reparto providers enable|disable`), chains skip disabled ones, a 401/403 marks a provider
/// unconfigured. All SQL runs on the pool's own threads (``PostgresClient/withConnection(_:)``).
public struct GenerationProviderDirectory: Sendable {
    public let postgres: PostgresClient

    public init(postgres: PostgresClient) {
        self.postgres = postgres
    }

    /// Upserts every provider of `registry`; `enabled` stays as an operator set it.
    public func record(_ registry: GenerationProviderRegistry) async throws {
        let states = registry.providers.map { provider in
            GenerationProviderState(id: provider.id, displayName: provider.displayName,
                                    capabilities: provider.capabilities.sorted().map(\.rawValue),
                                    models: Dictionary(uniqueKeysWithValues: provider.defaultModels.map { ($0.key.rawValue, $0.value) }),
                                    enabled: true, configured: provider.isConfigured)
        }
        try await postgres.withConnection { connection in
            for state in states {
                let models = String(decoding: try JSONEncoder().encode(state.models), as: UTF8.self)
                _ = try connection.query("""
                    INSERT INTO generation_providers (id, display_name, capabilities, models, configured)
                    VALUES ($1, $2, $3, $4::jsonb, $5)
                    ON CONFLICT (id) DO UPDATE SET display_name = EXCLUDED.display_name, capabilities = EXCLUDED.capabilities,
                        models = EXCLUDED.models, configured = EXCLUDED.configured, updated_at = now()
                    """, [state.id, state.displayName, state.capabilities, models, state.configured])
            }
        }
    }

    /// Every recorded provider, by id.
    public func list() async throws -> [GenerationProviderState] {
        try await postgres.withConnection { connection in
            try connection.query("""
                SELECT id, display_name, capabilities, models, enabled, configured, updated_at
                FROM generation_providers ORDER BY id
                """).map { row in
                GenerationProviderState(
                    id: row.string("id") ?? "", displayName: row.string("display_name") ?? "",
                    capabilities: row.string("capabilities").map(Self.parseTextArray) ?? [],
                    models: (try? row.json("models", as: [String: String].self)) ?? [:],
                    enabled: row.bool("enabled") ?? true, configured: row.bool("configured") ?? false, updatedAt: row.date("updated_at"))
            }
        }
    }

    /// Sets the switch of a recorded provider; false when no row has this id.
    public func setEnabled(_ enabled: Bool, provider id: String) async throws -> Bool {
        try await postgres.withConnection { connection in
            try connection.query("UPDATE generation_providers SET enabled = $2, updated_at = now() WHERE id = $1 RETURNING id",
                                 [id, enabled]).count > 0
        }
    }

    /// False only when an operator disabled the provider (an unrecorded provider is enabled).
    public func isEnabled(_ id: String) async throws -> Bool {
        try await postgres.withConnection { connection in
            try connection.query("SELECT enabled FROM generation_providers WHERE id = $1", [id]).first?.bool("enabled") ?? true
        }
    }

    /// Marks the provider unconfigured (its key was refused) until a worker records it again.
    public func markUnconfigured(_ id: String) async throws {
        try await postgres.withConnection { connection in
            _ = try connection.query("UPDATE generation_providers SET configured = false, updated_at = now() WHERE id = $1", [id])
        }
    }

    /// `{text,embedding}` as strings.
    public static func parseTextArray(_ text: String) -> [String] {
        text.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    }
}
