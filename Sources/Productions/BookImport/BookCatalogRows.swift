import Foundation
import RepartoRuntime
import Postgres

/// The SQL that reads the catalog and an import's results (blocking, on the caller's connection).
enum BookCatalogRows {
    private static let select = """
        SELECT b.id, b.isbn13, b.title, b.publisher, b.pages, b.year, to_jsonb(b.invalid_isbns) AS invalid_isbns, b.enrich_status,
               b.match_score, to_jsonb(COALESCE(b.match_evidence, '{}')) AS match_evidence, to_jsonb(b.enrich_pending) AS enrich_pending,
               b.subtitle, to_jsonb(COALESCE(b.publishers, '{}')) AS publishers, b.publish_year, b.page_count,
               to_jsonb(COALESCE(b.subjects, '{}')) AS subjects, b.language, b.description, b.cover_path,
               to_jsonb(ARRAY(SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
                              WHERE ba.book_id = b.id ORDER BY ba.position)) AS authors,
               e.book_id IS NOT NULL AS in_library, e.rating, to_jsonb(e.shelves) AS shelves, e.status,
               to_char(e.date_added, 'YYYY-MM-DD') AS date_added, to_char(e.date_read, 'YYYY-MM-DD') AS date_read
        FROM books b LEFT JOIN library_entries e ON e.book_id = b.id
        """

    /// Books whose title, author or ISBN-13 matches `search` (every book when nil), by title.
    static func list(search: String?, limit: Int, on connection: PostgresConnection) throws -> [CatalogBook] {
        let rows: PostgresResult
        if let search, !search.isEmpty {
            rows = try connection.query(select + """

                WHERE b.title ILIKE '%' || $1 || '%' OR b.isbn13 = $2
                   OR EXISTS (SELECT 1 FROM book_authors ba JOIN authors a ON a.id = ba.author_id
                              WHERE ba.book_id = b.id AND a.name ILIKE '%' || $1 || '%')
                ORDER BY b.title, b.id LIMIT $3
                """, [escapeLike(search), search.filter { $0.isNumber }, limit])
        } else {
            rows = try connection.query(select + "\nORDER BY b.title, b.id LIMIT $1", [limit])
        }
        return try rows.map(book)
    }

    /// One book by id or ISBN-13, with every imported row that named it.
    static func details(id: UUID?, isbn13: String?, on connection: PostgresConnection) throws -> CatalogBookDetails? {
        guard let row = try connection.query(select + "\nWHERE b.id = $1 OR b.isbn13 = $2", [id, isbn13]).first else { return nil }
        let book = try book(row)
        let rows = try connection.query("""
            SELECT production_id, line, title, merged_into_line, merge_reason, invalid_isbn, rating, to_jsonb(shelves) AS shelves, status
            FROM book_import_rows WHERE book_id = $1 ORDER BY production_id, line
            """, [book.id]).map { row in
                CatalogBookRow(productionID: try required(row.uuid("production_id")), line: row.int("line") ?? 0,
                               title: row.string("title") ?? "", mergedIntoLine: row.int("merged_into_line"),
                               mergeReason: row.string("merge_reason"), invalidISBN: row.string("invalid_isbn"),
                               rating: row.double("rating"), shelves: try texts(row, "shelves"),
                               status: row.string("status") ?? "unknown")
            }
        return CatalogBookDetails(book: book, rows: rows)
    }

    /// The import's results, or nil when `id` is not a book import.
    static func results(_ id: UUID, on connection: PostgresConnection) throws -> BookImportResults? {
        guard let row = try connection.query("SELECT source_name, report FROM book_imports WHERE production_id = $1", [id]).first,
              let production = try ProductionJobs.production(id, on: connection) else { return nil }
        let report = try row.json("report", as: BookImportReport.self)
        let failures = try ProductionJobs.failures(production: id, on: connection).map { "\($0.kind): \($0.lastError ?? $0.state.rawValue)" }
        return BookImportResults(productionID: id, name: production.name, state: production.state, stage: production.stage,
                                 sourceName: row.string("source_name") ?? "", report: report,
                                 enrichment: report == nil ? nil : try BookEnrichRows.counts(production: id, on: connection),
                                 failures: failures)
    }

    private static func book(_ row: PostgresRow) throws -> CatalogBook {
        let library: CatalogBook.LibraryEntry? = row.bool("in_library") == true
            ? .init(rating: row.double("rating"), shelves: try texts(row, "shelves"), status: row.string("status") ?? "unknown",
                    dateAdded: row.string("date_added"), dateRead: row.string("date_read"))
            : nil
        return CatalogBook(id: try required(row.uuid("id")), isbn13: row.string("isbn13"), title: row.string("title") ?? "",
                           authors: try texts(row, "authors"), publisher: row.string("publisher"), pages: row.int("pages"),
                           year: row.int("year"), invalidISBNs: try texts(row, "invalid_isbns"),
                           enrichStatus: row.string("enrich_status"), matchScore: row.double("match_score"),
                           matchEvidence: try texts(row, "match_evidence"), enrichPending: try texts(row, "enrich_pending"),
                           subtitle: row.string("subtitle"),
                           publishers: try texts(row, "publishers"), publishYear: row.int("publish_year"),
                           pageCount: row.int("page_count"), subjects: try texts(row, "subjects"), language: row.string("language"),
                           description: row.string("description"), coverPath: row.string("cover_path"), library: library)
    }

    /// A `text[]` column selected as `to_jsonb(…)`.
    private static func texts(_ row: PostgresRow, _ column: String) throws -> [String] {
        try row.json(column, as: [String].self) ?? []
    }

    private static func required(_ id: UUID?) throws -> UUID {
        guard let id else { throw BookRowsError.missingColumn("id") }
        return id
    }

    /// `%`, `_` and `\` of a search taken literally by ILIKE.
    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
