import SpeechJobs
import Foundation
import RepartoRuntime
import Postgres
import Screenplay
import Speech

/// One line of a table read: what is said, by whom, in which voice (a `production_lines` row).
public struct TableReadLine: Codable, Sendable, Hashable {
    public var chapterIndex: Int
    public var orderIndex: Int
    public var elementType: String
    /// `narrator` or the character's normalized name.
    public var speaker: String
    public var voice: String
    public var provider: String
    public var language: String?
    public var text: String
    /// The audio's `generated_content.content_key`.
    public var contentKey: String
    /// 1-based scene index, nil before the first scene heading.
    public var sceneIndex: Int?
    /// What the provider is given when it differs from ``text`` (a ``PronunciationLexicon`` changed
    /// a word); ``text`` stays the script's own spelling, for the subtitles and the report.
    public var spokenText: String?
    /// The parenthetical's delivery (also an unknown one, kept as evidence); nil: none.
    public var delivery: Delivery?
    /// The role's own synthesis options (a cast's age adjustment); nil: the voice as it is.
    public var options: SynthesisOptions?

    /// The text the provider speaks and the content key hashes.
    public var providerText: String { spokenText ?? text }
    /// The synthesis options the content key hashes: the role's, with the delivery applied on top.
    public var synthesisOptions: SynthesisOptions {
        let base = options ?? .standard
        return delivery?.options(base) ?? base
    }
}

/// A line as the assembler sees it: the line plus its audio, if generated.
struct AssemblyLine: Sendable {
    var line: TableReadLine
    var filePath: String?
    var sha256: String?
    var durationSeconds: Double?
    var peakDBFS: Double?
    var rmsDBFS: Double?
}

/// Everything the SQL of the table-read pipeline: one place for its tables
/// (`table_reads`, `production_characters`, `production_scenes`, `production_lines`, `casts`).
/// Every function runs on a connection's own thread (blocking).
enum TableReadRows {
    // MARK: submission

    static func create(productionID: UUID, request: TableReadRequest, on connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO table_reads (production_id, source_path, source_name) VALUES ($1, $2, $3)
            """, [productionID, request.sourcePath, request.sourceName])
    }

    // MARK: the plan

    /// The result of the production's succeeded parse job, if any.
    static func parseResult(_ productionID: UUID, on connection: PostgresConnection) throws -> ParseJobResult? {
        try ProductionJobs.latestResult(production: productionID, stage: TableReadRequest.Stage.parse.rawValue, on: connection)
            .map { try JSONDecoder().decode(ParseJobResult.self, from: $0) }
    }

    static func setDocument(_ productionID: UUID, documentID: UUID, on connection: PostgresConnection) throws {
        try connection.query("UPDATE table_reads SET document_id = $2 WHERE production_id = $1", [productionID, documentID])
    }

    /// True when a job of `stage` succeeded for the production.
    static func stageSucceeded(_ productionID: UUID, stage: String, on connection: PostgresConnection) throws -> Bool {
        try ProductionJobs.stageSucceeded(production: productionID, stage: stage, on: connection)
    }

    /// Lines whose audio does not exist yet, one per distinct content key, in script order.
    static func linesNeedingAudio(_ productionID: UUID, on connection: PostgresConnection) throws -> [TableReadLine] {
        try connection.query("""
            SELECT * FROM (
                SELECT DISTINCT ON (l.content_key) l.*
                FROM production_lines l
                WHERE l.production_id = $1
                  AND NOT EXISTS (SELECT 1 FROM generated_content g WHERE g.content_key = l.content_key)
                ORDER BY l.content_key, l.chapter_index, l.order_index
            ) pending
            ORDER BY chapter_index, order_index
            """, [productionID]).map { try line(from: $0) }
    }

    // MARK: enrich

    /// The production's request and parsed document id.
    static func context(_ productionID: UUID, on connection: PostgresConnection) throws -> (request: TableReadRequest, documentID: UUID?)? {
        guard let row = try connection.query(
            "SELECT document_id FROM table_reads WHERE production_id = $1", [productionID]).first,
              let production = try ProductionJobs.production(productionID, on: connection) else { return nil }
        return (try JSONDecoder().decode(TableReadRequest.self, from: production.parameters), row.uuid("document_id"))
    }

    /// Replaces the production's characters, scenes, lines and cast, and records the summary.
    static func storeEnrichment(_ productionID: UUID, analysis: ScriptAnalysis, cast: Cast, lines: [TableReadLine],
                                choices: [CastProposal.Choice] = [], on connection: PostgresConnection) throws {
        for table in ["production_characters", "production_scenes", "production_lines"] {
            try connection.query("DELETE FROM \(table) WHERE production_id = $1", [productionID])
        }
        let characters = analysis.characters
        if !characters.isEmpty {
            let chosen = characters.map { character in choices.first { $0.name == character.name } }
            try connection.query("""
                INSERT INTO production_characters
                    (production_id, name, dialogue_lines, words, first_chapter, first_order, scenes, voice,
                     identity, gender, gender_confidence, age, provider, casting)
                SELECT $1, c.name, c.lines, c.words, c.chapter, c.ord, ARRAY(SELECT jsonb_array_elements_text(c.scenes)::int), c.voice,
                       c.identity, c.gender, c.confidence, c.age, c.provider, c.casting
                FROM unnest($2::text[], $3::int[], $4::int[], $5::int[], $6::int[], $7::jsonb[], $8::text[],
                            $9::text[], $10::text[], $11::float8[], $12::text[], $13::text[], $14::jsonb[])
                     AS c(name, lines, words, chapter, ord, scenes, voice, identity, gender, confidence, age, provider, casting)
                """, [productionID, characters.map(\.name), characters.map(\.dialogueLines), characters.map(\.words),
                      characters.map(\.firstChapter), characters.map(\.firstOrder),
                      try characters.map { try PostgresJSON(encoding: $0.scenes) },
                      characters.map { Optional(cast.voice(for: .character($0.name))) },
                      chosen.map { $0?.identity }, chosen.map { $0?.gender?.rawValue }, chosen.map { $0?.genderConfidence },
                      chosen.map { $0?.age?.rawValue }, characters.map { Optional(cast.role(for: .character($0.name)).provider) },
                      try chosen.map { try $0.map { try PostgresJSON(encoding: CharacterCasting($0)) } }])
        }
        let scenes = analysis.scenes
        if !scenes.isEmpty {
            try connection.query("""
                INSERT INTO production_scenes (production_id, scene_index, chapter_index, order_index, heading, setting,
                                               location, time_of_day, scene_number, eighths, estimated_seconds)
                SELECT $1, s.* FROM unnest($2::int[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[],
                                           $9::text[], $10::int[], $11::float8[])
                     AS s(scene_index, chapter_index, order_index, heading, setting, location, time_of_day, scene_number,
                          eighths, estimated_seconds)
                """, [productionID, scenes.map(\.index), scenes.map(\.chapterIndex), scenes.map(\.orderIndex),
                      scenes.map(\.heading), scenes.map { $0.setting?.rawValue }, scenes.map(\.location),
                      scenes.map(\.timeOfDay), scenes.map(\.sceneNumber), scenes.map(\.eighths), scenes.map(\.estimatedSeconds)])
        }
        if !lines.isEmpty {
            try connection.query("""
                INSERT INTO production_lines (production_id, chapter_index, order_index, element_type, speaker, voice,
                                              provider, language, text, content_key, scene_index, spoken_text, delivery, options)
                SELECT $1, l.* FROM unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                                           $9::text[], $10::text[], $11::int[], $12::text[], $13::jsonb[], $14::jsonb[])
                     AS l(chapter_index, order_index, element_type, speaker, voice, provider, language, text, content_key,
                          scene_index, spoken_text, delivery, options)
                """, [productionID, lines.map(\.chapterIndex), lines.map(\.orderIndex), lines.map(\.elementType),
                      lines.map(\.speaker), lines.map(\.voice), lines.map(\.provider), lines.map(\.language),
                      lines.map(\.text), lines.map(\.contentKey), lines.map(\.sceneIndex), lines.map(\.spokenText),
                      try lines.map { try $0.delivery.map { try PostgresJSON(encoding: $0) } },
                      try lines.map { try $0.options.map { try PostgresJSON(encoding: $0) } }])
        }
        try connection.query("""
            INSERT INTO casts (owner, provider, language, narrator, characters, updated_at)
            VALUES ($1, $2, $3, $4, $5::jsonb, now())
            ON CONFLICT (owner) DO UPDATE SET provider = EXCLUDED.provider, language = EXCLUDED.language,
                narrator = EXCLUDED.narrator, characters = EXCLUDED.characters, updated_at = now()
            """, [castOwner(productionID), cast.provider, cast.language, cast.narrator, try PostgresJSON(encoding: cast.characters)])
        try connection.query("""
            UPDATE table_reads SET provider = $2, language = $3, page_count = $4, estimated_seconds = $5,
                word_count = $6, line_count = $7, rules_version = $8
            WHERE production_id = $1
            """, [productionID, cast.provider, cast.language, analysis.pageCount, analysis.estimatedSeconds,
                  analysis.wordCount, lines.count, SpeakableRules.version])
    }

    /// The file of every content key in `keys` that has a `generated_content` row.
    static func recordedAudio(_ keys: [String], on connection: PostgresConnection) throws -> [String: String] {
        var files: [String: String] = [:]
        for row in try connection.query("""
            SELECT content_key, file_path FROM generated_content WHERE content_key = ANY($1::text[]) AND file_path IS NOT NULL
            """, [keys]) {
            if let key = row.string("content_key"), let path = row.string("file_path") { files[key] = path }
        }
        return files
    }

    /// Drops the `generated_content` rows of `keys` (their files are gone).
    static func forgetAudio(_ keys: [String], on connection: PostgresConnection) throws {
        guard !keys.isEmpty else { return }
        try connection.query("DELETE FROM generated_content WHERE content_key = ANY($1::text[])", [keys])
    }

    /// The `casts.owner` of a production's cast.
    static func castOwner(_ productionID: UUID) -> String { "production:" + productionID.uuidString.lowercased() }

    // MARK: assemble

    /// Every line of the production with its audio (if generated), in script order.
    static func assemblyLines(_ productionID: UUID, on connection: PostgresConnection) throws -> [AssemblyLine] {
        try connection.query("""
            SELECT l.*, g.file_path, g.sha256, g.duration_seconds, g.peak_dbfs, g.rms_dbfs
            FROM production_lines l LEFT JOIN generated_content g ON g.content_key = l.content_key
            WHERE l.production_id = $1
            ORDER BY l.chapter_index, l.order_index
            """, [productionID]).map { row in
                AssemblyLine(line: try line(from: row), filePath: row.string("file_path"), sha256: row.string("sha256"),
                             durationSeconds: row.double("duration_seconds"), peakDBFS: row.double("peak_dbfs"),
                             rmsDBFS: row.double("rms_dbfs"))
            }
    }

    /// The states and last errors of the production's unfinished or unsuccessful `generate`
    /// jobs, by the content key of each line they carry (oldest job first).
    static func generateJobStates(_ productionID: UUID, on connection: PostgresConnection) throws -> [String: [(state: JobState, error: String?)]] {
        var states: [String: [(state: JobState, error: String?)]] = [:]
        let jobs = try ProductionJobs.jobs(production: productionID, kind: SpeechJob.kind,
                                           states: JobState.allCases.filter { $0 != .succeeded }, on: connection)
        for job in jobs {
            guard let parameters = try? JSONDecoder().decode(SpeechJob.self, from: job.parameters) else { continue }
            for item in parameters.items {
                states[item.contentKey.description, default: []].append((job.state, job.lastError))
            }
        }
        return states
    }

    /// Why generation failed, by content key: the last error of each dead or cancelled `generate`
    /// job of the production.
    static func generationFailures(_ productionID: UUID, on connection: PostgresConnection) throws -> [String: String] {
        try generateJobStates(productionID, on: connection).compactMapValues { jobs in
            guard case (.failed, let reason) = TableReadLineStatus.of(hasAudio: false, jobs: jobs, productionEnded: true) else { return nil }
            return reason
        }
    }

    /// Scene headings by scene index.
    static func sceneHeadings(_ productionID: UUID, on connection: PostgresConnection) throws -> [Int: String] {
        var headings: [Int: String] = [:]
        for row in try connection.query(
            "SELECT scene_index, heading FROM production_scenes WHERE production_id = $1", [productionID]) {
            if let index = row.int("scene_index") { headings[index] = row.string("heading") ?? "" }
        }
        return headings
    }

    /// Records the assembled outputs on the production and in `generated_content`.
    static func recordAssembly(_ productionID: UUID, outputs: TableReadOutputs, jobID: UUID,
                               on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE table_reads SET audio_path = $2, subtitles_path = $3, chapters_path = $4, report_path = $5,
                audio_seconds = $6, peak_dbfs = $7, rms_dbfs = $8, spoken_lines = $9, missing_lines = $10,
                loudness_lufs = $11, true_peak_dbtp = $12, assembled_at = now()
            WHERE production_id = $1
            """, [productionID, outputs.audio.path, outputs.subtitles.path, outputs.chapters.path, outputs.report.path,
                  outputs.durationSeconds, outputs.peakDBFS, outputs.rmsDBFS, outputs.spokenLines, outputs.missingLines,
                  outputs.loudnessLUFS, outputs.truePeakDBTP])
        try connection.query("""
            UPDATE production_lines SET audio_defects = NULL WHERE production_id = $1 AND audio_defects IS NOT NULL
            """, [productionID])
        if !outputs.flagged.isEmpty {
            try connection.query("""
                UPDATE production_lines l SET audio_defects = string_to_array(f.defects, ',')
                FROM unnest($2::int[], $3::int[], $4::text[]) AS f(chapter_index, order_index, defects)
                WHERE l.production_id = $1 AND l.chapter_index = f.chapter_index AND l.order_index = f.order_index
                """, [productionID, outputs.flagged.map(\.chapterIndex), outputs.flagged.map(\.orderIndex),
                      outputs.flagged.map { $0.defects.map(\.rawValue).joined(separator: ",") }])
        }
        let owner = castOwner(productionID)
        try connection.query("""
            DELETE FROM generated_content WHERE owner_kind = 'identifier' AND owner_id = $1
            """, [owner])
        for (record, duration) in [(outputs.audio, Optional(outputs.durationSeconds)), (outputs.subtitles, nil)] {
            try connection.query("""
                INSERT INTO generated_content (id, mime_type, owner_kind, owner_id, file_path, size_bytes, sha256,
                                               duration_seconds, peak_dbfs, rms_dbfs, job_id)
                VALUES ($1, $2, 'identifier', $3, $4, $5, $6, $7, $8, $9, $10)
                """, [UUID(), record.mimeType, owner, record.path, record.size, record.sha256, duration,
                      duration == nil ? nil : outputs.peakDBFS, duration == nil ? nil : outputs.rmsDBFS, jobID])
        }
    }

    // MARK: rows

    static func line(from row: PostgresRow) throws -> TableReadLine {
        TableReadLine(chapterIndex: row.int("chapter_index") ?? 0, orderIndex: row.int("order_index") ?? 0,
                      elementType: row.string("element_type") ?? "", speaker: row.string("speaker") ?? "narrator",
                      voice: row.string("voice") ?? "", provider: row.string("provider") ?? "",
                      language: row.string("language"), text: row.string("text") ?? "",
                      contentKey: row.string("content_key") ?? "", sceneIndex: row.int("scene_index"),
                      spokenText: row.string("spoken_text"), delivery: try row.json("delivery", as: Delivery.self),
                      options: try row.json("options", as: SynthesisOptions.self))
    }
}
