import Foundation
import Postgres

/// The read-side SQL of ``TableReadResults``.
enum TableReadResultRows {
    static func load(_ id: UUID, on connection: PostgresConnection) throws -> TableReadResults? {
        guard let row = try connection.query("""
            SELECT p.name, p.state, p.stage, t.*, c.narrator
            FROM productions p JOIN table_reads t ON t.production_id = p.id
            LEFT JOIN casts c ON c.owner = $2
            WHERE p.id = $1
            """, [id, TableReadRows.castOwner(id)]).first else { return nil }
        var files: TableReadResults.Files?
        if let audio = row.string("audio_path"), let subtitles = row.string("subtitles_path"),
           let chapters = row.string("chapters_path"), let report = row.string("report_path") {
            files = .init(audio: audio, subtitles: subtitles, chapters: chapters, report: report)
        }
        let order = TableReadRequest.Stage.allCases.map(\.rawValue)
        let stages = try connection.query("""
            SELECT stage, count(*) AS total, count(*) FILTER (WHERE state = 'succeeded') AS ok,
                   count(*) FILTER (WHERE state = 'dead') AS dead, count(*) FILTER (WHERE state = 'cancelled') AS cancelled
            FROM jobs WHERE production_id = $1 GROUP BY stage
            """, [id]).map { r in
                let total = r.int("total") ?? 0, ok = r.int("ok") ?? 0, dead = r.int("dead") ?? 0, cancelled = r.int("cancelled") ?? 0
                return TableReadResults.Stage(name: r.string("stage") ?? "", total: total, succeeded: ok, failed: dead,
                                              cancelled: cancelled, pending: total - ok - dead - cancelled)
            }.sorted { (order.firstIndex(of: $0.name) ?? order.count) < (order.firstIndex(of: $1.name) ?? order.count) }
        let characters = try connection.query("""
            SELECT name, dialogue_lines, words, first_chapter, first_order, to_jsonb(scenes)::text AS scenes, voice
            FROM production_characters WHERE production_id = $1 ORDER BY first_chapter, first_order
            """, [id]).map { r in
                TableReadResults.Character(name: r.string("name") ?? "", dialogueLines: r.int("dialogue_lines") ?? 0,
                                           words: r.int("words") ?? 0, firstChapter: r.int("first_chapter") ?? 0,
                                           firstOrder: r.int("first_order") ?? 0,
                                           scenes: try r.json("scenes", as: [Int].self) ?? [], voice: r.string("voice"))
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
        let failures = try connection.query("""
            SELECT id, kind, stage, state, last_error FROM jobs
            WHERE production_id = $1 AND state IN ('dead', 'cancelled', 'failed')
            ORDER BY created_at, id LIMIT 1000
            """, [id]).compactMap { r -> TableReadResults.Failure? in
                guard let jobID = r.uuid("id") else { return nil }
                return .init(jobID: jobID, kind: r.string("kind") ?? "", stage: r.string("stage"), state: r.string("state") ?? "",
                             error: r.string("last_error"))
            }
        return TableReadResults(
            productionID: id, name: row.string("name") ?? "", state: row.string("state") ?? "", stage: row.string("stage") ?? "",
            source: row.string("source_name") ?? "", documentID: row.uuid("document_id"), provider: row.string("provider"),
            language: row.string("language"), narratorVoice: row.string("narrator"), pageCount: row.double("page_count"),
            estimatedSeconds: row.double("estimated_seconds"), wordCount: row.int("word_count"), lineCount: row.int("line_count"),
            files: files, audioSeconds: row.double("audio_seconds"), peakDBFS: row.double("peak_dbfs"),
            rmsDBFS: row.double("rms_dbfs"), spokenLines: row.int("spoken_lines"), missingLines: row.int("missing_lines"),
            stages: stages, characters: characters, scenes: scenes, failures: failures,
            warnings: try row.uuid("document_id").map { try DocumentRows.warnings($0, on: connection) } ?? [])
    }
}
