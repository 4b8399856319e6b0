import Foundation
import Postgres
import RepartoRuntime

/// The scan's SQL.
enum ScanRows {
    /// A photo of a scan as the jobs read it.
    struct Photo: Sendable {
        var photo: Int
        var sourceName: String
        var path: String
        var sha256: String
        var state: String
        var spines: [ShelfSpine]?
    }

    @available(*, noasync)
    static func create(_ id: UUID, request: ScanRequest, photos: [StoredPhoto], on connection: PostgresConnection) throws {
        try connection.query("INSERT INTO bookshelf_scans (production_id, vision_provider, model) VALUES ($1, $2, $3)",
                             [id, request.visionProvider, request.model])
        for (index, photo) in photos.enumerated() {
            try connection.query("""
                INSERT INTO bookshelf_photos (production_id, photo, source_name, path, sha256, width, height)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """, [id, index, photo.sourceName, photo.path, photo.sha256, photo.width, photo.height])
        }
    }

    @available(*, noasync)
    static func photo(_ id: UUID, photo: Int, on connection: PostgresConnection) throws -> Photo? {
        try connection.query("""
            SELECT photo, source_name, path, sha256, state, spines::text AS spines FROM bookshelf_photos
            WHERE production_id = $1 AND photo = $2
            """, [id, photo]).first.map(Self.photo)
    }

    @available(*, noasync)
    static func photos(_ id: UUID, state: String? = nil, on connection: PostgresConnection) throws -> [Photo] {
        try connection.query("""
            SELECT photo, source_name, path, sha256, state, spines::text AS spines FROM bookshelf_photos
            WHERE production_id = $1 AND ($2::text IS NULL OR state = $2) ORDER BY photo
            """, [id, state]).map(Self.photo)
    }

    private static func photo(_ row: PostgresRow) -> Photo {
        Photo(photo: row.int("photo") ?? 0, sourceName: row.string("source_name") ?? "", path: row.string("path") ?? "",
              sha256: row.string("sha256") ?? "", state: row.string("state") ?? "pending",
              spines: row.string("spines").flatMap { try? JSONDecoder().decode([ShelfSpine].self, from: Data($0.utf8)) })
    }

    /// A reading stored before under `key`, nil when none.
    @available(*, noasync)
    static func reading(_ key: String, on connection: PostgresConnection) throws -> (spines: [ShelfSpine], model: String)? {
        guard let row = try connection.query("SELECT spines::text AS spines, model FROM bookshelf_reads WHERE read_key = $1", [key]).first,
              let spines = row.string("spines").flatMap({ try? JSONDecoder().decode([ShelfSpine].self, from: Data($0.utf8)) })
        else { return nil }
        return (spines, row.string("model") ?? "")
    }

    /// Records the photo's spines (and the reading under its key, unless one is there).
    @available(*, noasync)
    static func setRead(_ id: UUID, photo: Int, spines: [ShelfSpine], reused: Bool, model: String, provider: String, key: String,
                        on connection: PostgresConnection) throws {
        let json = String(decoding: try JSONEncoder().encode(spines), as: UTF8.self)
        try connection.query("""
            INSERT INTO bookshelf_reads (read_key, provider, model, spines) VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT (read_key) DO NOTHING
            """, [key, provider, model, json])
        try connection.query("""
            UPDATE bookshelf_photos SET state = 'read', spines = $3::jsonb, reused = $4, model = $5
            WHERE production_id = $1 AND photo = $2
            """, [id, photo, json, reused, model])
    }

    /// What one spine became.
    struct SpineOutcome: Sendable {
        var spine: ShelfSpine
        var outcome: String
        var bookID: UUID?
        var reviewID: UUID?
        var score: Double?
        var evidence: [String]
    }

    /// Records the photo's spines' outcomes (replacing any earlier ones) and marks it matched.
    @available(*, noasync)
    static func setMatched(_ id: UUID, photo: Int, outcomes: [SpineOutcome], on connection: PostgresConnection) throws {
        try connection.query("DELETE FROM bookshelf_spines WHERE production_id = $1 AND photo = $2", [id, photo])
        for item in outcomes {
            try connection.query("""
                INSERT INTO bookshelf_spines (production_id, photo, position, title, author, confidence, outcome, book_id, review_id, score, evidence)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::text[])
                """, [id, photo, item.spine.position, item.spine.title, item.spine.author, item.spine.confidence, item.outcome,
                      item.bookID, item.reviewID, item.score, item.evidence])
        }
        try connection.query("UPDATE bookshelf_photos SET state = 'matched' WHERE production_id = $1 AND photo = $2", [id, photo])
    }

    /// The scan's totals, stored as its report.
    @available(*, noasync)
    static func storeReport(_ id: UUID, on connection: PostgresConnection) throws -> ScanReport {
        let photos = try connection.query("""
            SELECT count(*)::int AS photos, count(*) FILTER (WHERE state <> 'pending')::int AS read,
                   count(*) FILTER (WHERE reused)::int AS reused
            FROM bookshelf_photos WHERE production_id = $1
            """, [id]).first
        let spines = try connection.query("""
            SELECT count(*)::int AS spines,
                   count(*) FILTER (WHERE outcome = 'owned')::int AS owned, count(*) FILTER (WHERE outcome = 'added')::int AS added,
                   count(*) FILTER (WHERE outcome = 'review')::int AS review, count(*) FILTER (WHERE outcome = 'unreadable')::int AS unreadable
            FROM bookshelf_spines WHERE production_id = $1
            """, [id]).first
        let report = ScanReport(photos: photos?.int("photos") ?? 0, read: photos?.int("read") ?? 0, reused: photos?.int("reused") ?? 0,
                                spines: spines?.int("spines") ?? 0, owned: spines?.int("owned") ?? 0, added: spines?.int("added") ?? 0,
                                toReview: spines?.int("review") ?? 0, unreadable: spines?.int("unreadable") ?? 0)
        try connection.query("UPDATE bookshelf_scans SET report = $2::jsonb WHERE production_id = $1",
                             [id, String(decoding: try JSONEncoder().encode(report), as: UTF8.self)])
        return report
    }
}

/// A photo stored on the asset volume at submission.
struct StoredPhoto: Sendable {
    var sourceName: String
    var path: String
    var sha256: String
    var width: Int
    var height: Int
}

/// The scan's totals (the report stage's result).
public struct ScanReport: Codable, Sendable, Hashable {
    public var photos: Int
    public var read: Int
    /// Photos whose reading was reused (the same image read before by the same provider and model).
    public var reused: Int
    public var spines: Int
    /// Spines recognised as books the reader already has.
    public var owned: Int
    /// Spines that became new catalog books.
    public var added: Int
    /// Spines waiting in `reparto books review`.
    public var toReview: Int
    public var unreadable: Int
}

