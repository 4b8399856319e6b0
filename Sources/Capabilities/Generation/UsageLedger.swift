import Foundation
import Postgres

/// One line of `reparto usage`: what one provider and model used for one capability.
public struct UsageSummary: Codable, Sendable, Equatable {
    public var provider: String
    public var model: String
    public var capability: String
    /// Provider calls that answered (reuses not counted).
    public var calls: Int
    /// Results answered from stored rows instead.
    public var reused: Int
    public var inputTokens: Int64
    public var outputTokens: Int64
    public var characters: Int64
    public var images: Int64
    public var audioSeconds: Double
    /// What it cost by ``UsagePrices`` (nil: no price configured for the model).
    public var cost: Double?

    public init(provider: String, model: String, capability: String, calls: Int, reused: Int, inputTokens: Int64,
                outputTokens: Int64, characters: Int64, images: Int64, audioSeconds: Double) {
        (self.provider, self.model, self.capability, self.calls, self.reused) = (provider, model, capability, calls, reused)
        (self.inputTokens, self.outputTokens, self.characters, self.images, self.audioSeconds) =
            (inputTokens, outputTokens, characters, images, audioSeconds)
    }
}

/// Reads the usage ledger (`generation_usage`).
public struct UsageLedger: Sendable {
    public let postgres: PostgresClient

    public init(postgres: PostgresClient) {
        self.postgres = postgres
    }

    /// Sums per provider, model and capability since `since` (nil: all), of one production (nil: all).
    public func summary(since: Date?, production: UUID?) async throws -> [UsageSummary] {
        try await postgres.withConnection { connection in
            try connection.query("""
                SELECT provider, model, capability,
                       count(*) FILTER (WHERE NOT reused) AS calls, count(*) FILTER (WHERE reused) AS reused,
                       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(characters) AS characters,
                       sum(images) AS images, sum(audio_seconds) AS audio_seconds
                FROM generation_usage
                WHERE ($1::timestamptz IS NULL OR created_at >= $1) AND ($2::uuid IS NULL OR production_id = $2)
                GROUP BY provider, model, capability
                ORDER BY provider, capability, model
                """, [since, production]).map { row in
                UsageSummary(provider: row.string("provider") ?? "", model: row.string("model") ?? "",
                             capability: row.string("capability") ?? "", calls: row.int("calls") ?? 0, reused: row.int("reused") ?? 0,
                             inputTokens: row.int64("input_tokens") ?? 0, outputTokens: row.int64("output_tokens") ?? 0,
                             characters: row.int64("characters") ?? 0, images: row.int64("images") ?? 0,
                             audioSeconds: row.double("audio_seconds") ?? 0)
            }
        }
    }
}
