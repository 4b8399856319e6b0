import Foundation
import Postgres

/// The SQL of the generation kinds on `generated_content` and `generation_usage`. Each
/// function takes the caller's connection (a look-up on the pool's, a write in the job's
/// completion transaction).
public enum GenerationRows {
    /// The stored rows among `keys`, by content key.
    public static func lookup(_ keys: [String], on connection: PostgresConnection) throws -> [String: GeneratedContent] {
        guard !keys.isEmpty else { return [:] }
        let rows = try connection.query("""
            SELECT id, mime_type, content_key, provider, model, inline_text, file_path, size_bytes, sha256,
                   embedding, job_id
            FROM generated_content WHERE content_key = ANY($1)
            """, [keys])
        var found: [String: GeneratedContent] = [:]
        for row in rows {
            guard let id = row.uuid("id"), let key = row.string("content_key") else { continue }
            found[key] = GeneratedContent(
                id: id, mimeType: row.string("mime_type") ?? "", contentKey: key, provider: row.string("provider") ?? "",
                model: row.string("model") ?? "", inlineText: row.string("inline_text"), filePath: row.string("file_path"),
                sizeBytes: row.int64("size_bytes"), sha256: row.string("sha256"),
                embedding: row.string("embedding").map(parseFloatArray), jobID: row.uuid("job_id"))
        }
        return found
    }

    /// Inserts the row, or replaces the content of the row with the same key (`--fresh`, or a
    /// redelivered job writing what it wrote before).
    public static func upsert(_ content: GeneratedContent, on connection: PostgresConnection) throws {
        _ = try connection.query("""
            INSERT INTO generated_content (id, mime_type, content_key, provider, model, inline_text, file_path,
                                           size_bytes, sha256, embedding, embedding_model, embedding_dimensions, job_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::float4[], $11, $12, $13)
            ON CONFLICT (content_key) DO UPDATE SET
                mime_type = EXCLUDED.mime_type, provider = EXCLUDED.provider, model = EXCLUDED.model,
                inline_text = EXCLUDED.inline_text, file_path = EXCLUDED.file_path, size_bytes = EXCLUDED.size_bytes,
                sha256 = EXCLUDED.sha256, embedding = EXCLUDED.embedding, embedding_model = EXCLUDED.embedding_model,
                embedding_dimensions = EXCLUDED.embedding_dimensions, job_id = EXCLUDED.job_id, created_at = now()
            """, [content.id, content.mimeType, content.contentKey, content.provider, content.model, content.inlineText,
                  content.filePath, content.sizeBytes, content.sha256, content.embedding,
                  content.embedding == nil ? nil : content.model, content.embedding?.count, content.jobID])
    }

    /// Appends a line to the usage ledger.
    public static func insertUsage(_ entry: UsageEntry, on connection: PostgresConnection) throws {
        _ = try connection.query("""
            INSERT INTO generation_usage (job_id, production_id, provider, model, capability, input_tokens, output_tokens,
                                          characters, images, audio_seconds, reused)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            """, [entry.jobID, entry.productionID, entry.provider, entry.model, entry.capability, entry.inputTokens,
                  entry.outputTokens, entry.characters, entry.images, entry.audioSeconds, entry.reused])
    }

    /// `{1,2.5,-3}` (PostgreSQL's text form of a float4[]) as floats.
    static func parseFloatArray(_ text: String) -> [Float] {
        text.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).split(separator: ",").compactMap { Float($0) }
    }
}
