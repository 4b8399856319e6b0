import Foundation
import Postgres

/// The SQL of the script analysis on `analyses` and `analysis_scenes` (and the embeddings it
/// reads from `generated_content`). Each function takes the caller's connection.
public enum AnalysisRows {
    /// Records a new analysis and its scenes.
    static func create(_ productionID: UUID, request: AnalysisRequest, scenes: [AnalysisScene], on connection: PostgresConnection) throws {
        _ = try connection.query("""
            INSERT INTO analyses (production_id, source_name, text_providers, embedding_providers) VALUES ($1, $2, $3, $4)
            """, [productionID, request.sourceName, request.textProviders, request.embeddingProviders])
        _ = try connection.query("""
            INSERT INTO analysis_scenes (production_id, scene, heading, body)
            SELECT $1::uuid, * FROM unnest($2::integer[], $3::text[], $4::text[])
            """, [productionID, scenes.map(\.index), scenes.map(\.heading), scenes.map(\.body)])
    }

    /// Records the characters to describe.
    static func createCharacters(_ productionID: UUID, _ characters: [AnalysisCharacter], on connection: PostgresConnection) throws {
        guard !characters.isEmpty else { return }
        _ = try connection.query("""
            INSERT INTO analysis_characters (production_id, name, line_count, lines)
            SELECT $1::uuid, * FROM unnest($2::text[], $3::integer[], $4::text[])
            """, [productionID, characters.map(\.name), characters.map(\.lineCount), characters.map(\.lines)])
    }

    /// The characters recorded for an analysis, most lines first.
    static func characters(_ productionID: UUID, on connection: PostgresConnection) throws -> [AnalysisCharacter] {
        try connection.query("""
            SELECT name, line_count, lines FROM analysis_characters WHERE production_id = $1 ORDER BY line_count DESC, name
            """, [productionID]).map {
            AnalysisCharacter(name: $0.string("name") ?? "", lineCount: $0.int("line_count") ?? 0, lines: $0.string("lines") ?? "")
        }
    }

    /// Stores a character's description.
    static func setCharacter(_ productionID: UUID, name: String, description: String, on connection: PostgresConnection) throws {
        _ = try connection.query("UPDATE analysis_characters SET description = $3 WHERE production_id = $1 AND name = $2",
                                 [productionID, name, description])
    }

    /// Stores a scene's summary and the key of its embedding.
    static func setScene(_ productionID: UUID, scene: Int, summary: String, provider: String, embeddingKey: String,
                         on connection: PostgresConnection) throws {
        _ = try connection.query("""
            UPDATE analysis_scenes SET summary = $3, summary_provider = $4, embedding_key = $5
            WHERE production_id = $1 AND scene = $2
            """, [productionID, scene, summary, provider, embeddingKey])
    }

    /// The summaries written so far, in scene order.
    static func summaries(_ productionID: UUID, on connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            SELECT summary FROM analysis_scenes WHERE production_id = $1 AND summary IS NOT NULL ORDER BY scene
            """, [productionID]).compactMap { $0.string("summary") }
    }

    /// Stores a scene's storyboard frame.
    static func setFrame(_ productionID: UUID, scene: Int, frame: AnalysisResults.Frame, contentKey: String,
                         on connection: PostgresConnection) throws {
        _ = try connection.query("""
            UPDATE analysis_scenes SET frame_path = $3, frame_sha256 = $4, frame_key = $5, frame_provider = $6
            WHERE production_id = $1 AND scene = $2
            """, [productionID, scene, frame.path, frame.sha256, contentKey, frame.provider])
    }

    /// The scenes with a summary, in order: what the storyboard draws.
    static func summarizedScenes(_ productionID: UUID, on connection: PostgresConnection) throws -> [(index: Int, heading: String, summary: String)] {
        try connection.query("""
            SELECT scene, heading, summary FROM analysis_scenes WHERE production_id = $1 AND summary IS NOT NULL ORDER BY scene
            """, [productionID]).map { ($0.int("scene") ?? 0, $0.string("heading") ?? "", $0.string("summary") ?? "") }
    }

    /// Stores the logline and synopsis.
    static func setSynopsis(_ productionID: UUID, logline: String, synopsis: String, on connection: PostgresConnection) throws {
        _ = try connection.query("UPDATE analyses SET logline = $2, synopsis = $3 WHERE production_id = $1",
                                 [productionID, logline, synopsis])
    }

    /// An analysis with its scenes; nil when `productionID` is not an analysis.
    static func results(_ productionID: UUID, assetsRoot: URL?, on connection: PostgresConnection) throws -> AnalysisResults? {
        guard let row = try connection.query("""
            SELECT source_name, logline, synopsis FROM analyses WHERE production_id = $1
            """, [productionID]).first else { return nil }
        let scenes = try connection.query("""
            SELECT scene, heading, summary, summary_provider, embedding_key IS NOT NULL AS embedded,
                   frame_path, frame_sha256, frame_provider
            FROM analysis_scenes WHERE production_id = $1 ORDER BY scene
            """, [productionID]).map { scene in
            let frame = scene.string("frame_path").map { path in
                AnalysisResults.Frame(path: path, sha256: scene.string("frame_sha256") ?? "", provider: scene.string("frame_provider") ?? "",
                                      file: assetsRoot?.appendingPathComponent(path).path)
            }
            return AnalysisResults.Scene(index: scene.int("scene") ?? 0, heading: scene.string("heading") ?? "",
                                         summary: scene.string("summary"), provider: scene.string("summary_provider"),
                                         embedded: scene.bool("embedded") ?? false, frame: frame)
        }
        let characters = try connection.query("""
            SELECT name, line_count, description FROM analysis_characters WHERE production_id = $1 ORDER BY line_count DESC, name
            """, [productionID]).map {
            AnalysisResults.Character(name: $0.string("name") ?? "", lines: $0.int("line_count") ?? 0, description: $0.string("description"))
        }
        return AnalysisResults(productionID: productionID, sourceName: row.string("source_name") ?? "",
                               logline: row.string("logline"), synopsis: row.string("synopsis"), scenes: scenes, characters: characters)
    }

    /// The embedded scenes (of one production, or all), with the provider and model of each vector.
    static func sceneEmbeddings(production: UUID?, on connection: PostgresConnection) throws -> [SceneVector] {
        try connection.query("""
            SELECT s.production_id, s.scene, s.heading, s.summary, c.provider, c.model, c.embedding
            FROM analysis_scenes s JOIN generated_content c ON c.content_key = s.embedding_key
            WHERE ($1::uuid IS NULL OR s.production_id = $1) AND c.embedding IS NOT NULL
            ORDER BY s.production_id, s.scene
            """, [production]).compactMap { row in
            guard let id = row.uuid("production_id"), let embedding = row.string("embedding") else { return nil }
            return SceneVector(productionID: id, scene: row.int("scene") ?? 0, heading: row.string("heading") ?? "",
                               summary: row.string("summary"), provider: row.string("provider") ?? "", model: row.string("model") ?? "",
                               vector: embedding.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).split(separator: ",").compactMap { Float($0) })
        }
    }
}

/// One embedded scene, as search reads it.
public struct SceneVector: Sendable, Equatable {
    public var productionID: UUID
    public var scene: Int
    public var heading: String
    public var summary: String?
    public var provider: String
    public var model: String
    public var vector: [Float]
}
