import Foundation
import Postgres
import RepartoRuntime

/// A scan's results: each photo's spines, what each became and why.
public struct ScanResults: Codable, Sendable, Hashable {
    public var productionID: UUID
    public var name: String
    /// `running`, `completed`, `completed_with_failures` or `cancelled`.
    public var state: String
    public var stage: String
    public var visionProvider: String
    public var report: ScanReport?
    public var photos: [Photo]
    /// Jobs that failed for good, with their reasons.
    public var failures: [Failure]

    public struct Photo: Codable, Sendable, Hashable {
        /// 1 for the first photo of the scan.
        public var number: Int
        public var sourceName: String
        /// `pending` (not read), `read` or `matched`.
        public var state: String
        public var reused: Bool?
        public var model: String?
        public var spines: [Spine]
    }

    public struct Spine: Codable, Sendable, Hashable {
        public var position: Int
        public var title: String
        public var author: String?
        public var confidence: Double
        /// `owned`, `added`, `review`, `unreadable`; nil before matching.
        public var outcome: String?
        public var bookID: UUID?
        /// The catalog book it became (its title).
        public var book: String?
        public var reviewID: UUID?
        public var score: Double?
        public var evidence: [String]
    }

    public struct Failure: Codable, Sendable, Hashable {
        public var kind: String
        public var stage: String?
        public var state: String
        public var error: String?
    }

    @available(*, noasync)
    static func load(_ id: UUID, on connection: PostgresConnection) throws -> ScanResults? {
        guard let production = try ProductionJobs.production(id, on: connection), production.plan == ScanRequest.plan,
              let scan = try connection.query("SELECT vision_provider, report::text AS report FROM bookshelf_scans WHERE production_id = $1",
                                              [id]).first
        else { return nil }
        var matched: [Int: [Spine]] = [:]
        for row in try connection.query("""
            SELECT s.photo, s.position, s.title, s.author, s.confidence, s.outcome, s.book_id, b.title AS book, s.review_id, s.score,
                   array_to_json(s.evidence)::text AS evidence
            FROM bookshelf_spines s LEFT JOIN books b ON b.id = s.book_id
            WHERE s.production_id = $1 ORDER BY s.photo, s.position
            """, [id]) {
            let spine = Spine(position: row.int("position") ?? 0, title: row.string("title") ?? "", author: row.string("author"),
                              confidence: row.double("confidence") ?? 0, outcome: row.string("outcome"),
                              bookID: row.string("book_id").flatMap(UUID.init(uuidString:)), book: row.string("book"),
                              reviewID: row.string("review_id").flatMap(UUID.init(uuidString:)), score: row.double("score"),
                              evidence: row.string("evidence").flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? [])
            matched[row.int("photo") ?? 0, default: []].append(spine)
        }
        let photos = try connection.query("""
            SELECT photo, source_name, state, reused, model, spines::text AS spines FROM bookshelf_photos
            WHERE production_id = $1 ORDER BY photo
            """, [id]).map { row -> Photo in
                let index = row.int("photo") ?? 0
                let read = row.string("spines").flatMap { try? JSONDecoder().decode([ShelfSpine].self, from: Data($0.utf8)) } ?? []
                let spines = matched[index] ?? read.map {
                    Spine(position: $0.position, title: $0.title, author: $0.author, confidence: $0.confidence, outcome: nil,
                          bookID: nil, book: nil, reviewID: nil, score: nil, evidence: [])
                }
                return Photo(number: index + 1, sourceName: row.string("source_name") ?? "", state: row.string("state") ?? "pending",
                             reused: row.bool("reused"), model: row.string("model"), spines: spines)
            }
        let failures = try ProductionJobs.failures(production: id, on: connection).map {
            Failure(kind: $0.kind, stage: $0.stage, state: $0.state.rawValue, error: $0.lastError)
        }
        return ScanResults(productionID: id, name: production.name, state: production.state, stage: production.stage,
                           visionProvider: scan.string("vision_provider") ?? "",
                           report: scan.string("report").flatMap { try? JSONDecoder().decode(ScanReport.self, from: Data($0.utf8)) },
                           photos: photos, failures: failures)
    }
}
