import BookCatalog
import Foundation
import RepartoRuntime
import Postgres

/// The SQL of the book catalog's tables (`books`, `authors`, `book_authors`, `library_entries`,
/// `book_imports`, `book_import_rows`). Every function runs on a connection's own thread
/// (blocking), inside the caller's transaction.
enum BookRows {
    // MARK: submission

    static func create(productionID: UUID, request: BookImportRequest, on connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO book_imports (production_id, source_path, source_name, format, prune) VALUES ($1, $2, $3, $4, $5)
            """, [productionID, request.sourcePath, request.sourceName, request.format.rawValue, request.prune])
    }

    // MARK: the parse stage

    /// Stores an export's books against the catalog: each book found again by ISBN-13, else by
    /// match key, else added; the library's entries updated; every row recorded with its own
    /// fields; library books the export lacks reported (and removed when `prune`).
    ///
    /// Catalog writes of concurrent imports are serialized by a transaction-scoped advisory lock,
    /// so two imports of the same ISBN-less book cannot both add it.
    static func store(_ export: BookExport, productionID: UUID, prune: Bool,
                      on connection: PostgresConnection) throws -> BookImportReport {
        try lockCatalog(on: connection)
        try connection.query("DELETE FROM book_import_rows WHERE production_id = $1", [productionID])
        var report = BookImportReport(export: export)
        var bookIDs: [UUID] = []
        for group in export.books {
            let (id, added) = try upsertBook(group, on: connection)
            if added { report.added += 1 } else { report.updated += 1 }
            bookIDs.append(id)
            try linkAuthors(id, group.authors, on: connection)
            let user = group.primary.user
            try connection.query("""
                INSERT INTO library_entries (book_id, production_id, rating, shelves, status, date_added, date_read)
                VALUES ($1, $2, $3, $4, $5, $6::date, $7::date)
                ON CONFLICT (book_id) DO UPDATE SET production_id = $2, rating = $3, shelves = $4, status = $5,
                    date_added = $6::date, date_read = $7::date, updated_at = now()
                """, [id, productionID, user.rating, user.shelves, user.status.rawValue, user.dateAdded, user.dateRead])
            try insertRows(group, bookID: id, productionID: productionID, on: connection)
        }
        report.missing = try connection.query("""
            SELECT b.id, b.title, b.isbn13 FROM library_entries e JOIN books b ON b.id = e.book_id
            WHERE NOT (e.book_id = ANY($1::uuid[])) ORDER BY b.title, b.id
            """, [bookIDs]).map { row in
                BookImportReport.MissingBook(id: try decoded(row.uuid("id")), title: row.string("title") ?? "", isbn13: row.string("isbn13"))
            }
        if prune, !report.missing.isEmpty {
            let ids = report.missing.map(\.id)
            try connection.query("DELETE FROM library_entries WHERE book_id = ANY($1::uuid[])", [ids])
            report.pruned = try connection.query("DELETE FROM books WHERE id = ANY($1::uuid[])", [ids]).rowsAffected
        }
        try connection.query("UPDATE book_imports SET report = $2::jsonb WHERE production_id = $1",
                             [productionID, String(decoding: try JSONEncoder().encode(report), as: UTF8.self)])
        return report
    }

    /// Takes the catalog's write lock until the caller's transaction ends: imports and
    /// ``CatalogBooks/add(_:on:)`` add books one at a time, so none adds an ISBN another is adding.
    static func lockCatalog(on connection: PostgresConnection) throws {
        try connection.query("SELECT pg_advisory_xact_lock(hashtext('reparto.books'))")
    }

    /// The catalog book of `group`, and whether it was added now.
    private static func upsertBook(_ group: BookGroup, on connection: PostgresConnection) throws -> (UUID, Bool) {
        let key = group.matchKey ?? ""
        var existing: UUID?
        if let isbn = group.isbn13 {
            existing = try connection.query("SELECT id FROM books WHERE isbn13 = $1", [isbn]).first?.uuid("id")
            if existing == nil {
                // The same book imported before without an ISBN: it gets this one.
                existing = try connection.query("""
                    SELECT id FROM books WHERE match_key = $1 AND isbn13 IS NULL ORDER BY created_at, id LIMIT 1
                    """, [key]).first?.uuid("id")
            }
        } else {
            existing = try connection.query("""
                SELECT id FROM books WHERE match_key = $1 ORDER BY created_at, id LIMIT 1
                """, [key]).first?.uuid("id")
        }
        let invalid = group.invalidISBNs
        if let existing {
            try connection.query("""
                UPDATE books SET isbn13 = COALESCE(isbn13, $2), publisher = COALESCE(publisher, $3),
                    pages = COALESCE(pages, $4), year = COALESCE(year, $5),
                    invalid_isbns = ARRAY(SELECT DISTINCT unnest(invalid_isbns || $6::text[]) ORDER BY 1),
                    updated_at = now()
                WHERE id = $1
                """, [existing, group.isbn13, group.publisher, group.pages, group.year, invalid])
            return (existing, false)
        }
        let id = try insertBook(isbn13: group.isbn13, title: group.title, matchKey: key, publisher: group.publisher,
                                pages: group.pages, year: group.year, invalidISBNs: invalid, on: connection)
        return (id, true)
    }

    /// A new catalog book (the import's and ``CatalogBooks/add(_:on:)``'s one way of adding one).
    static func insertBook(isbn13: String?, title: String, matchKey: String, subtitle: String? = nil, publisher: String?,
                           pages: Int?, year: Int?, invalidISBNs: [String], on connection: PostgresConnection) throws -> UUID {
        let row = try connection.query("""
            INSERT INTO books (isbn13, title, match_key, subtitle, publisher, pages, year, invalid_isbns)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[]) RETURNING id
            """, [isbn13, title, matchKey, subtitle, publisher, pages, year, invalidISBNs]).first
        return try decoded(row?.uuid("id"))
    }

    /// Links a book to its authors in order, each author unique by ``MatchKey/author(_:)``.
    static func linkAuthors(_ bookID: UUID, _ names: [String], on connection: PostgresConnection) throws {
        for (position, name) in names.enumerated() {
            let key = MatchKey.author(name)
            guard !key.isEmpty else { continue }
            let row = try connection.query("""
                INSERT INTO authors (name, name_key) VALUES ($1, $2)
                ON CONFLICT (name_key) DO UPDATE SET name = authors.name RETURNING id
                """, [name, key]).first
            try connection.query("""
                INSERT INTO book_authors (book_id, author_id, position) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING
                """, [bookID, try decoded(row?.uuid("id")), position])
        }
    }

    private static func insertRows(_ group: BookGroup, bookID: UUID, productionID: UUID,
                                   on connection: PostgresConnection) throws {
        for row in group.rows {
            let merge = group.merges.first { $0.line == row.line }
            let invalid: String? = if case let .invalid(text) = row.isbn { text } else { nil }
            try connection.query("""
                INSERT INTO book_import_rows (production_id, line, book_id, title, authors, isbn13, invalid_isbn, source_id,
                    merged_into_line, merge_reason, rating, shelves, status, date_added, date_read)
                VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $10, $11, $12::text[], $13, $14::date, $15::date)
                """, [productionID, row.line, bookID, row.title, row.authors, row.isbn.isbn13, invalid, row.sourceID,
                      merge?.intoLine, merge?.reason.rawValue, row.user.rating, row.user.shelves, row.user.status.rawValue,
                      row.user.dateAdded, row.user.dateRead])
        }
    }

    private static func decoded(_ id: UUID?) throws -> UUID {
        guard let id else { throw BookRowsError.missingColumn("id") }
        return id
    }
}

/// A row the database returned without a column the catalog's SQL always selects.
enum BookRowsError: Error, CustomStringConvertible {
    case missingColumn(String)
    var description: String {
        switch self { case let .missingColumn(name): "book catalog: a row came back without \(name)" }
    }
}
