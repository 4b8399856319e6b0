import BookCatalog
import Foundation
import Postgres

/// The SQL of the enrich stage: which books to ask about, and what the services said.
enum BookEnrichRows {
    /// The import's books that have no answer yet (never enriched, or failed before), in title order.
    static func pending(production: UUID, on connection: PostgresConnection) throws -> [UUID] {
        try connection.query("""
            SELECT DISTINCT b.id, b.title FROM book_import_rows r JOIN books b ON b.id = r.book_id
            WHERE r.production_id = $1 AND (b.enrich_status IS NULL OR b.enrich_status = 'failed')
            ORDER BY b.title, b.id
            """, [production]).compactMap { $0.uuid("id") }
    }

    static func books(_ ids: [UUID], on connection: PostgresConnection) throws -> [BookEnricher.Book] {
        try connection.query("""
            SELECT b.id, b.isbn13, b.title,
                   (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
                    WHERE ba.book_id = b.id ORDER BY ba.position LIMIT 1) AS author
            FROM books b WHERE b.id = ANY($1::uuid[]) ORDER BY b.title, b.id
            """, [ids]).compactMap { row in
                row.uuid("id").map { BookEnricher.Book(id: $0, isbn13: row.string("isbn13"), title: row.string("title") ?? "",
                                                       author: row.string("author")) }
            }
    }

    static func store(_ id: UUID, _ outcome: BookEnricher.Outcome, on connection: PostgresConnection) throws {
        switch outcome {
        case .notFound:
            try connection.query("""
                UPDATE books SET enrich_status = 'not-found', enriched_at = now(), updated_at = now() WHERE id = $1
                """, [id])
        case let .enriched(metadata, coverPath, _):
            let identifiers = String(decoding: try JSONEncoder().encode(metadata.identifiers), as: UTF8.self)
            try connection.query("""
                UPDATE books SET subtitle = $2, publishers = $3::text[], publish_year = $4, page_count = $5,
                    subjects = $6::text[], language = $7, description = $8, identifiers = $9::jsonb,
                    cover_path = COALESCE($10, cover_path), enrich_status = 'enriched', enriched_at = now(), updated_at = now()
                WHERE id = $1
                """, [id, metadata.subtitle, metadata.publishers, metadata.publishYear, metadata.pageCount, metadata.subjects,
                      metadata.language, metadata.description, identifiers, coverPath])
            // A book the export gave no author gets the service's.
            let hasAuthors = try connection.query("SELECT 1 FROM book_authors WHERE book_id = $1 LIMIT 1", [id]).first != nil
            if !hasAuthors {
                for (position, name) in metadata.authors.enumerated() {
                    let key = MatchKey.author(name)
                    guard !key.isEmpty else { continue }
                    try connection.query("""
                        WITH author AS (
                            INSERT INTO authors (name, name_key) VALUES ($2, $3)
                            ON CONFLICT (name_key) DO UPDATE SET name = authors.name RETURNING id)
                        INSERT INTO book_authors (book_id, author_id, position) SELECT $1, id, $4 FROM author
                        ON CONFLICT DO NOTHING
                        """, [id, name, key, position])
                }
            }
        }
    }

    static func markFailed(_ id: UUID, reason: String, on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE books SET enrich_status = 'failed', enriched_at = now(), updated_at = now() WHERE id = $1
            """, [id])
    }

    /// The import's books by enrichment state.
    static func counts(production: UUID, on connection: PostgresConnection) throws -> BookEnrichmentCounts {
        guard let row = try connection.query("""
            SELECT count(*) FILTER (WHERE b.enrich_status = 'enriched') AS enriched,
                   count(*) FILTER (WHERE b.enrich_status = 'not-found') AS not_found,
                   count(*) FILTER (WHERE b.enrich_status = 'failed') AS failed,
                   count(*) FILTER (WHERE b.enrich_status IS NULL) AS pending,
                   count(*) FILTER (WHERE b.cover_path IS NOT NULL) AS covers
            FROM (SELECT DISTINCT book_id FROM book_import_rows WHERE production_id = $1) r JOIN books b ON b.id = r.book_id
            """, [production]).first else { return BookEnrichmentCounts() }
        return BookEnrichmentCounts(enriched: row.int("enriched") ?? 0, notFound: row.int("not_found") ?? 0,
                                    failed: row.int("failed") ?? 0, pending: row.int("pending") ?? 0, covers: row.int("covers") ?? 0)
    }
}

/// An import's books by enrichment state (books the catalog already had count with their state).
public struct BookEnrichmentCounts: Codable, Sendable, Hashable {
    public var enriched = 0
    public var notFound = 0
    public var failed = 0
    public var pending = 0
    public var covers = 0

    public init(enriched: Int = 0, notFound: Int = 0, failed: Int = 0, pending: Int = 0, covers: Int = 0) {
        self.enriched = enriched
        self.notFound = notFound
        self.failed = failed
        self.pending = pending
        self.covers = covers
    }
}
