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

    /// The books with their authors, what is stored of their covers, their pending parts, and
    /// where `production` read them (its file and first line), for a review item.
    static func books(_ ids: [UUID], production: UUID?, on connection: PostgresConnection) throws -> [BookEnricher.Book] {
        try connection.query("""
            SELECT b.id, b.isbn13, b.title, b.cover_id, b.cover_url, b.cover_path IS NOT NULL AS has_cover,
                   to_jsonb(b.enrich_pending) AS pending,
                   to_jsonb(ARRAY(SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
                                  WHERE ba.book_id = b.id ORDER BY ba.position)) AS authors,
                   (SELECT min(r.line) FROM book_import_rows r WHERE r.book_id = b.id AND r.production_id = $2::uuid) AS line,
                   (SELECT i.source_name FROM book_imports i WHERE i.production_id = $2::uuid) AS source_name
            FROM books b WHERE b.id = ANY($1::uuid[]) ORDER BY b.title, b.id
            """, [ids, production]).compactMap { row in
                guard let id = row.uuid("id") else { return nil }
                let pending = try row.json("pending", as: [String].self) ?? []
                var reference = "catalog book"
                if let line = row.int("line") { reference = [row.string("source_name"), "line \(line)"].compactMap { $0 }.joined(separator: ", ") }
                return BookEnricher.Book(id: id, isbn13: row.string("isbn13"), title: row.string("title") ?? "",
                                         authors: try row.json("authors", as: [String].self) ?? [], reference: reference,
                                         coverID: row.int("cover_id"), coverURL: row.string("cover_url"),
                                         hasCover: row.bool("has_cover") ?? false,
                                         pending: Set(pending.compactMap(BookEnrichJob.Part.init(rawValue:))))
            }
    }

    static func store(_ id: UUID, _ outcome: BookEnricher.Outcome, on connection: PostgresConnection) throws {
        switch outcome {
        case let .notFound(pending):
            try connection.query("""
                UPDATE books SET enrich_status = 'not-found', enrich_pending = $2::text[], enriched_at = now(), updated_at = now()
                WHERE id = $1
                """, [id, pending.map(\.rawValue).sorted()])
        case let .unmatched(candidates):
            // The reader's own fields stay; the best candidate's score and evidence say why not.
            let best = candidates.first
            try connection.query("""
                UPDATE books SET enrich_status = 'unmatched', match_score = $2, match_evidence = $3::text[],
                    enriched_at = now(), updated_at = now()
                WHERE id = $1
                """, [id, best?.score, best?.evidence])
        case let .enriched(found):
            try storeFound(id, found, on: connection)
        }
    }

    private static func storeFound(_ id: UUID, _ found: BookEnricher.Enrichment, on connection: PostgresConnection) throws {
        let metadata = found.metadata
        let identifiers = String(decoding: try JSONEncoder().encode(metadata.identifiers), as: UTF8.self)
        try connection.query("""
            UPDATE books SET subtitle = $2, publishers = $3::text[], publish_year = $4, page_count = $5,
                subjects = $6::text[], language = $7, description = $8, identifiers = $9::jsonb,
                cover_path = COALESCE($10, cover_path), cover_id = $11, cover_url = $12, enrich_pending = $13::text[],
                match_score = $14, match_evidence = $15::text[],
                enrich_status = 'enriched', enriched_at = now(), updated_at = now()
            WHERE id = $1
            """, [id, metadata.subtitle, metadata.publishers, metadata.publishYear, metadata.pageCount, metadata.subjects,
                  metadata.language, metadata.description, identifiers, found.coverPath, found.coverID, found.coverURL,
                  found.pending.map(\.rawValue).sorted(), found.score, found.evidence])
        try addAuthorsIfNone(id, metadata.authors, on: connection)
    }

    /// A book the export gave no author gets the service's.
    private static func addAuthorsIfNone(_ id: UUID, _ names: [String], on connection: PostgresConnection) throws {
        let hasAuthors = try connection.query("SELECT 1 FROM book_authors WHERE book_id = $1 LIMIT 1", [id]).first != nil
        guard !hasAuthors else { return }
        try BookRows.linkAuthors(id, names, on: connection)
    }

    /// Opens the review item of an unmatched book, unless one is open already.
    static func openReview(_ book: BookEnricher.Book, candidates: [BookMatch], production: UUID?,
                           on connection: PostgresConnection) throws {
        let open = try connection.query("SELECT 1 FROM book_reviews WHERE existing_book_id = $1 AND state = 'open'", [book.id]).first
        guard open == nil else { return }
        _ = try BookReviews.open(source: "book-import", productionID: production, reference: book.reference, title: book.title,
                                 author: book.authors.isEmpty ? nil : book.authors.joined(separator: ", "), candidates: candidates,
                                 existingBookID: book.id, on: connection)
    }

    /// A follow-up's cover: stored (or, with `path` nil, given up), no longer pending.
    static func storeCover(_ id: UUID, path: String?, on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE books SET cover_path = COALESCE($2, cover_path), enrich_pending = array_remove(enrich_pending, 'cover'),
                updated_at = now()
            WHERE id = $1
            """, [id, path])
    }

    /// A follow-up's Google Books answer: a book not found before is enriched with it; a book
    /// enriched from Open Library gets its gaps filled (what Open Library said stays). A cover
    /// it names for a book without one becomes pending.
    static func storeGoogle(_ id: UUID, _ metadata: BookMetadata?, on connection: PostgresConnection) throws {
        guard let metadata else {
            try connection.query("UPDATE books SET enrich_pending = array_remove(enrich_pending, 'google-books'), updated_at = now() WHERE id = $1",
                                 [id])
            return
        }
        let identifiers = String(decoding: try JSONEncoder().encode(metadata.identifiers), as: UTF8.self)
        try connection.query("""
            UPDATE books SET subtitle = COALESCE(subtitle, $2),
                publishers = CASE WHEN coalesce(cardinality(publishers), 0) = 0 THEN $3::text[] ELSE publishers END,
                publish_year = COALESCE(publish_year, $4), page_count = COALESCE(page_count, $5),
                subjects = CASE WHEN coalesce(cardinality(subjects), 0) = 0 THEN $6::text[] ELSE subjects END,
                language = COALESCE(language, $7), description = COALESCE(description, $8),
                identifiers = $9::jsonb || COALESCE(identifiers, '{}'::jsonb),
                cover_url = CASE WHEN cover_path IS NULL AND cover_id IS NULL THEN COALESCE($10, cover_url) ELSE cover_url END,
                enrich_pending = array_remove(enrich_pending, 'google-books')
                    || CASE WHEN $10::text IS NOT NULL AND cover_path IS NULL AND cover_id IS NULL
                                 AND NOT 'cover' = ANY (enrich_pending) THEN ARRAY['cover'] ELSE '{}'::text[] END,
                enrich_status = 'enriched', enriched_at = now(), updated_at = now()
            WHERE id = $1
            """, [id, metadata.subtitle, metadata.publishers, metadata.publishYear, metadata.pageCount, metadata.subjects,
                  metadata.language, metadata.description, identifiers, metadata.coverURL])
        try addAuthorsIfNone(id, metadata.authors, on: connection)
    }

    /// A person accepted `candidate` for book `id` (a review item about it): the candidate's
    /// details become the book's enrichment, with the match's score and evidence; the reader's
    /// own fields (title, authors they gave) stay. Its cover, when it has an Open Library id and
    /// `fetchCover`, becomes pending (the caller enqueues its follow-up). Returns whether it did.
    static func applyAccepted(_ match: BookMatch, to id: UUID, fetchCover: Bool, on connection: PostgresConnection) throws -> Bool {
        let candidate = match.candidate
        var identifiers: [String: [String]] = [:]
        if let key = candidate.openLibraryKey {
            let last = String(key.split(separator: "/").last ?? Substring(key))
            identifiers[key.hasPrefix("/books/") ? "openlibrary" : "openlibrary_work"] = [last]
        }
        if let isbn = candidate.isbn13 { identifiers["isbn_13"] = [isbn] }
        let json = String(decoding: try JSONEncoder().encode(identifiers), as: UTF8.self)
        let coverPending = fetchCover && candidate.coverID != nil
        try connection.query("""
            UPDATE books SET subtitle = $2, publishers = $3::text[], publish_year = $4, identifiers = $5::jsonb,
                cover_id = $6, cover_url = NULL,
                enrich_pending = CASE WHEN $9::boolean THEN ARRAY['cover'] ELSE '{}'::text[] END,
                match_score = $7, match_evidence = $8::text[],
                enrich_status = 'enriched', enriched_at = now(), updated_at = now()
            WHERE id = $1
            """, [id, candidate.subtitle, candidate.publisher.map { [$0] } ?? [], candidate.year, json, candidate.coverID,
                  match.score, match.evidence + ["accepted by a person"], coverPending])
        try addAuthorsIfNone(id, candidate.authors, on: connection)
        return coverPending
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
                   count(*) FILTER (WHERE b.cover_path IS NOT NULL) AS covers,
                   count(*) FILTER (WHERE b.enrich_status = 'unmatched') AS unmatched,
                   count(*) FILTER (WHERE 'cover' = ANY (b.enrich_pending)) AS covers_pending
            FROM (SELECT DISTINCT book_id FROM book_import_rows WHERE production_id = $1) r JOIN books b ON b.id = r.book_id
            """, [production]).first else { return BookEnrichmentCounts() }
        return BookEnrichmentCounts(enriched: row.int("enriched") ?? 0, notFound: row.int("not_found") ?? 0,
                                    failed: row.int("failed") ?? 0, pending: row.int("pending") ?? 0, covers: row.int("covers") ?? 0,
                                    unmatched: row.int("unmatched") ?? 0, coversPending: row.int("covers_pending") ?? 0)
    }
}

/// An import's books by enrichment state (books the catalog already had count with their state).
public struct BookEnrichmentCounts: Codable, Sendable, Hashable {
    public var enriched = 0
    public var notFound = 0
    public var failed = 0
    /// Not asked yet.
    public var pending = 0
    public var covers = 0
    /// Matched below the threshold: on the review list, with the reader's own fields.
    public var unmatched = 0
    /// Covers a service held back, to be fetched by a follow-up job.
    public var coversPending = 0

    /// Counts as given.
    public init(enriched: Int = 0, notFound: Int = 0, failed: Int = 0, pending: Int = 0, covers: Int = 0, unmatched: Int = 0,
                coversPending: Int = 0) {
        self.enriched = enriched
        self.notFound = notFound
        self.failed = failed
        self.pending = pending
        self.covers = covers
        self.unmatched = unmatched
        self.coversPending = coversPending
    }
}
