import SpeechJobs
import Foundation
import RepartoRuntime
import Postgres
import Speech

/// The read-side SQL of ``TableReadResults``.
enum TableReadResultRows {
    static func load(_ id: UUID, on connection: PostgresConnection) throws -> TableReadResults? {
        guard let row = try connection.query("""
            SELECT t.*, c.narrator
            FROM table_reads t LEFT JOIN casts c ON c.owner = $2
            WHERE t.production_id = $1
            """, [id, TableReadRows.castOwner(id)]).first,
              let production = try ProductionJobs.production(id, on: connection) else { return nil }
        var files: TableReadResults.Files?
        if let audio = row.string("audio_path"), let subtitles = row.string("subtitles_path"),
           let chapters = row.string("chapters_path"), let report = row.string("report_path") {
            files = .init(audio: audio, subtitles: subtitles, chapters: chapters, report: report)
        }
        let order = TableReadRequest.Stage.allCases.map(\.rawValue)
        let stages = try ProductionJobs.stageCounts(production: id, on: connection).map { count in
                TableReadResults.Stage(name: count.stage ?? "", total: count.total, succeeded: count.succeeded,
                                       failed: count.dead, cancelled: count.cancelled, pending: count.pending)
            }.sorted { (order.firstIndex(of: $0.name) ?? order.count) < (order.firstIndex(of: $1.name) ?? order.count) }
        let characters = try connection.query("""
            SELECT name, dialogue_lines, words, first_chapter, first_order, to_jsonb(scenes)::text AS scenes, voice,
                   provider, identity, gender, gender_confidence, age, casting
            FROM production_characters WHERE production_id = $1 ORDER BY first_chapter, first_order
            """, [id]).map { r in
                TableReadResults.Character(name: r.string("name") ?? "", dialogueLines: r.int("dialogue_lines") ?? 0,
                                           words: r.int("words") ?? 0, firstChapter: r.int("first_chapter") ?? 0,
                                           firstOrder: r.int("first_order") ?? 0,
                                           scenes: try r.json("scenes", as: [Int].self) ?? [], voice: r.string("voice"),
                                           provider: r.string("provider"), identity: r.string("identity"),
                                           gender: r.string("gender"), genderConfidence: r.double("gender_confidence"),
                                           age: r.string("age"), casting: try r.json("casting", as: CharacterCasting.self))
            }
        let scenes = try connection.query("""
            SELECT scene_index, heading, setting, location, time_of_day, eighths, estimated_seconds
            FROM production_scenes WHERE production_id = $1 ORDER BY scene_index
            """, [id]).map { r in
                TableReadResults.Scene(index: r.int("scene_index") ?? 0, heading: r.string("heading") ?? "",
                                       setting: r.string("setting"), location: r.string("location") ?? "",
                                       timeOfDay: r.string("time_of_day"), eighths: r.int("eighths") ?? 0,
                                       estimatedSeconds: r.double("estimated_seconds") ?? 0)
            }
        let failures = try ProductionJobs.failures(production: id, limit: 1000, on: connection).map { failure in
                TableReadResults.Failure(jobID: failure.id, kind: failure.kind, stage: failure.stage,
                                         state: failure.state.rawValue, error: failure.lastError)
            }
        let request = try? JSONDecoder().decode(TableReadRequest.self, from: production.parameters)
        return TableReadResults(
            productionID: id, name: production.name, state: production.state, stage: production.stage,
            source: row.string("source_name") ?? "", documentID: row.uuid("document_id"), provider: row.string("provider"),
            language: row.string("language"), narratorVoice: row.string("narrator"), pageCount: row.double("page_count"),
            estimatedSeconds: row.double("estimated_seconds"), wordCount: row.int("word_count"), lineCount: row.int("line_count"),
            files: files, audioSeconds: row.double("audio_seconds"), peakDBFS: row.double("peak_dbfs"),
            rmsDBFS: row.double("rms_dbfs"), loudnessLUFS: row.double("loudness_lufs"), truePeakDBTP: row.double("true_peak_dbtp"),
            spokenLines: row.int("spoken_lines"), missingLines: row.int("missing_lines"),
            stages: stages, characters: characters, scenes: scenes, failures: failures,
            warnings: try row.uuid("document_id").map { try DocumentRows.warnings($0, on: connection) } ?? [],
            scope: request?.scope,
            lines: try lines(id, rulesVersion: row.int("rules_version"), productionEnded: production.state != "running",
                             on: connection),
            master: request?.master ?? .podcast)
    }

    /// The production's lines with the status of each: complete when its audio exists, else what
    /// the speech jobs carrying it say (``TableReadLineStatus/of(hasAudio:jobs:productionEnded:)``).
    static func lines(_ id: UUID, rulesVersion: Int?, productionEnded: Bool,
                      on connection: PostgresConnection) throws -> [TableReadResults.Line] {
        let jobs = try TableReadRows.generateJobStates(id, on: connection)
        return try connection.query("""
            SELECT l.chapter_index, l.order_index, l.scene_index, l.speaker, l.text, l.provider, l.voice, l.content_key,
                   array_to_string(l.audio_defects, ',') AS defects, g.duration_seconds,
                   (g.content_key IS NOT NULL AND g.file_path IS NOT NULL) AS has_audio
            FROM production_lines l LEFT JOIN generated_content g ON g.content_key = l.content_key
            WHERE l.production_id = $1
            ORDER BY l.chapter_index, l.order_index
            """, [id]).map { r in
                let key = r.string("content_key") ?? ""
                let (status, error) = TableReadLineStatus.of(hasAudio: r.bool("has_audio") ?? false, jobs: jobs[key] ?? [],
                                                             productionEnded: productionEnded)
                let defects = (r.string("defects") ?? "").split(separator: ",").compactMap { AudioDefect(rawValue: String($0)) }
                return TableReadResults.Line(
                    chapterIndex: r.int("chapter_index") ?? 0, orderIndex: r.int("order_index") ?? 0,
                    sceneIndex: r.int("scene_index"), speaker: r.string("speaker") ?? "", text: r.string("text") ?? "",
                    provider: r.string("provider") ?? "", voice: r.string("voice") ?? "", contentKey: key, status: status,
                    error: error, durationSeconds: r.double("duration_seconds"), defects: defects.isEmpty ? nil : defects,
                    rulesVersion: rulesVersion)
            }
    }
}
